//! The graph as N-Triples or N-Quads (`GET /export`): every vertex of one
//! snapshot with its labels and properties, then every relationship, in
//! the load's mapping read backwards (docs/adr/0108-onegraph-rdf.md), so
//! an RDF load exported and loaded into an empty database gives the same
//! graph. With a query (`GET /export?query=...`), only the subgraph it
//! returns: the nodes, relationships and paths in its rows (inside lists
//! and maps too), with the end nodes of each relationship, read in the
//! same snapshot the query ran in.
//!
//! Why two steps ([`Loader::export_rdf`], then [`RdfExport::write_to`]):
//! what can refuse an export (a closed database, a syntax that is not
//! written, relationship properties RDF cannot carry) is decided before
//! the first byte, so a front end can still answer with an error status;
//! the writing then streams the snapshot in batches of nodes, holding
//! neither the document nor the list of nodes (ADR 0113).

use std::io::Write;
use std::sync::Arc;

use nereid_errors::Status;
use nereid_loader_formats::{RdfSyntax, RdfWriter, GRAPH_KEY};
use nereid_storage::NodeCursor;
use nereid_values::{Direction, NodeId, RelId, Value};

use super::Loader;
use crate::db::{Database, DbError, Params, Transaction};

/// Nodes read from the snapshot at a time.
pub(super) const NODE_BATCH: usize = 1024;

/// An export checked and pinned to one snapshot; [`RdfExport::write_to`]
/// writes it. Dropping it unwritten releases the snapshot.
pub struct RdfExport {
    db: Arc<Database>,
    tx: Option<Transaction>,
    syntax: RdfSyntax,
    /// A query's subgraph; `None`: the whole graph.
    subgraph: Option<Subgraph>,
}

/// The entities a query returned, each once, in id order.
#[derive(Default)]
struct Subgraph {
    nodes: Vec<NodeId>,
    rels: Vec<RelId>,
}

impl Subgraph {
    fn collect(&mut self, value: &Value) {
        match value {
            Value::Node(n) => self.nodes.push(*n),
            Value::Relationship(r) => self.rels.push(*r),
            Value::Path(path) => {
                self.nodes.extend(&path.nodes);
                self.rels.extend(&path.rels);
            }
            // Values nest as deep as a query builds them: the recursion
            // grows the stack as it goes, as every walk over values does.
            Value::List(items) => items
                .iter()
                .for_each(|v| nereid_stack::deeper(|| self.collect(v))),
            Value::Map(entries) => entries
                .values()
                .for_each(|v| nereid_stack::deeper(|| self.collect(v))),
            _ => {}
        }
    }

    /// Adds each relationship's end nodes; sorts and deduplicates.
    fn close(&mut self, txn: &nereid_storage::Txn) {
        self.rels.sort_unstable();
        self.rels.dedup();
        for &rel in &self.rels {
            if let Some((start, end, _)) = txn.rel_endpoints(rel) {
                self.nodes.extend([start, end]);
            }
        }
        self.nodes.sort_unstable();
        self.nodes.dedup();
    }
}

impl Loader {
    /// The loader's database's committed graph, to be written in `syntax`
    /// (N-Triples or N-Quads). Refused: Turtle (read, never written), and
    /// a graph with a relationship property other than `~graph` (RDF has
    /// no edge properties and Neptune writes none: ADR 0113).
    pub fn export_rdf(&self, syntax: RdfSyntax) -> Result<RdfExport, DbError> {
        self.open_export(syntax, None)
    }

    /// [`Loader::export_rdf`] of the subgraph `query` returns (run with
    /// `params` in the export's snapshot, which it may only read).
    pub fn export_rdf_subgraph(
        &self,
        syntax: RdfSyntax,
        query: &str,
        params: Params,
    ) -> Result<RdfExport, DbError> {
        self.open_export(syntax, Some((query, params)))
    }

    fn open_export(
        &self,
        syntax: RdfSyntax,
        query: Option<(&str, Params)>,
    ) -> Result<RdfExport, DbError> {
        let db = self.database().ok_or_else(|| DbError {
            status: Status::DatabaseUnavailable,
            message: "export: the database is closed".into(),
        })?;
        if syntax == RdfSyntax::Turtle {
            return Err(DbError {
                status: Status::ArgumentError,
                message: "export: only ntriples and nquads are written".into(),
            });
        }
        let tx = db.begin();
        let mut export = RdfExport {
            db: db.clone(),
            tx: Some(tx),
            syntax,
            subgraph: None,
        };
        if let Some((query, params)) = query {
            export.subgraph = Some(export.run_query(query, params)?);
        }
        if let Some((rel, key)) = export.rel_with_property() {
            let txn = export.txn();
            let key_of = |n| txn.node_key(n).unwrap_or_default();
            let shown = match txn.rel_endpoints(rel) {
                Some((start, end, t)) => format!("({})-[:{t}]->({})", key_of(start), key_of(end)),
                None => "a relationship".into(),
            };
            return Err(DbError {
                status: Status::ArgumentError,
                message: format!(
                    "export: relationship properties have no RDF form, and {shown} has the \
                     property `{key}`; remove the relationships' properties (all but \
                     `~graph`) to export the graph as RDF"
                ),
            });
        }
        Ok(export)
    }
}

impl RdfExport {
    /// Runs `query` in the export's transaction and gathers what it
    /// returns; a query that writes is refused (nothing it did is kept:
    /// the transaction is rolled back when the export ends).
    fn run_query(&self, query: &str, params: Params) -> Result<Subgraph, DbError> {
        let tx = self.tx.as_ref().expect("held until dropped");
        let mut result = self.db.run(Some(tx), query, params)?;
        let mut subgraph = Subgraph::default();
        result.pull(-1, &mut |row, _| {
            row.iter().for_each(|v| subgraph.collect(v))
        })?;
        let summary = result.summary();
        if summary.query_type != "r" {
            return Err(DbError {
                status: Status::ArgumentError,
                message: format!(
                    "export: the query must only read (its type is `{}`)",
                    summary.query_type
                ),
            });
        }
        subgraph.close(self.txn());
        Ok(subgraph)
    }

    /// A relationship to export with a property other than `~graph`, and
    /// that property.
    fn rel_with_property(&self) -> Option<(RelId, String)> {
        let txn = self.txn();
        match &self.subgraph {
            None => txn.rel_property_other_than(GRAPH_KEY),
            Some(subgraph) => subgraph.rels.iter().find_map(|&rel| {
                txn.rel_properties(rel)
                    .into_keys()
                    .find(|k| k != GRAPH_KEY)
                    .map(|k| (rel, k))
            }),
        }
    }

    /// Writes the snapshot to `out`, flushing it at the end; answers the
    /// statements written. An error of `out` (a client gone) ends it.
    pub fn write_to(self, out: &mut dyn Write) -> Result<u64, DbError> {
        let failed = |e: std::io::Error| DbError {
            status: Status::ExternalResourceFailed,
            message: format!("export: {e}"),
        };
        let mut writer = RdfWriter::new(out, self.syntax).expect("checked when opened");
        self.write_graph(&mut writer).map_err(failed)?;
        let count = writer.written();
        writer.finish().flush().map_err(failed)?;
        Ok(count)
    }

    fn txn(&self) -> &nereid_storage::Txn {
        self.tx.as_ref().expect("held until dropped").store_txn()
    }

    /// Every vertex, then every relationship (from its start vertex), both
    /// a batch of nodes at a time.
    fn write_graph<W: Write>(&self, writer: &mut RdfWriter<W>) -> std::io::Result<()> {
        let txn = self.txn();
        let key = |id| txn.node_key(id).unwrap_or_default();
        if let Some(subgraph) = &self.subgraph {
            for &node in &subgraph.nodes {
                writer.vertex(
                    &key(node),
                    &txn.node_labels(node),
                    &txn.node_properties(node),
                )?;
            }
            for &rel in &subgraph.rels {
                if let Some((start, end, rel_type)) = txn.rel_endpoints(rel) {
                    writer.edge(&key(start), &rel_type, &key(end), &txn.rel_properties(rel))?;
                }
            }
            return Ok(());
        }
        each_node_batch(txn, |nodes| {
            for &node in nodes {
                writer.vertex(
                    &key(node),
                    &txn.node_labels(node),
                    &txn.node_properties(node),
                )?;
            }
            Ok(())
        })?;
        each_node_batch(txn, |nodes| {
            for &node in nodes {
                let start = key(node);
                for (rel, end) in txn.expand(node, Direction::Outgoing, &[]) {
                    let Some((_, _, rel_type)) = txn.rel_endpoints(rel) else {
                        continue;
                    };
                    writer.edge(&start, &rel_type, &key(end), &txn.rel_properties(rel))?;
                }
            }
            Ok(())
        })
    }
}

/// Calls `each` with the snapshot's nodes, [`NODE_BATCH`] at a time.
fn each_node_batch(
    txn: &nereid_storage::Txn,
    mut each: impl FnMut(&[NodeId]) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut batch = Vec::with_capacity(NODE_BATCH);
    let mut cursor = Some(NodeCursor::default());
    while let Some(from) = cursor {
        batch.clear();
        cursor = txn.scan_nodes_batch(from, NODE_BATCH, &mut batch);
        each(&batch)?;
    }
    Ok(())
}

impl Drop for RdfExport {
    fn drop(&mut self) {
        if let Some(tx) = self.tx.take() {
            self.db.rollback(tx);
        }
    }
}
