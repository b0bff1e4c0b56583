//! The graph as N-Triples or N-Quads (`GET /export`): every vertex of one
//! snapshot with its labels and properties, then every relationship, in
//! the load's mapping read backwards (docs/adr/0108-onegraph-rdf.md), so
//! an RDF load exported and loaded into an empty database gives the same
//! graph.

use std::io::Write;
use std::sync::Arc;

use nereid_errors::Status;
use nereid_loader_formats::{RdfSyntax, RdfWriter};
use nereid_values::Direction;

use super::Loader;
use crate::db::{Database, DbError};

impl Loader {
    /// Writes the loader's database's committed graph to `out` in
    /// `syntax` (N-Triples or N-Quads); answers the statements written.
    pub fn export_rdf(&self, syntax: RdfSyntax, out: &mut dyn Write) -> Result<u64, DbError> {
        let db = self.database().ok_or_else(|| DbError {
            status: Status::DatabaseUnavailable,
            message: "export: the database is closed".into(),
        })?;
        export_rdf(&db, syntax, out)
    }
}

fn export_rdf(db: &Arc<Database>, syntax: RdfSyntax, out: &mut dyn Write) -> Result<u64, DbError> {
    let Some(mut writer) = RdfWriter::new(out, syntax) else {
        return Err(DbError {
            status: Status::ArgumentError,
            message: "export: only ntriples and nquads are written".into(),
        });
    };
    let tx = db.begin();
    let written = write_graph(tx.store_txn(), &mut writer);
    db.rollback(tx);
    written.map_err(|e| DbError {
        status: Status::ExternalResourceFailed,
        message: format!("export: {e}"),
    })?;
    let count = writer.written();
    writer.finish().flush().map_err(|e| DbError {
        status: Status::ExternalResourceFailed,
        message: format!("export: {e}"),
    })?;
    Ok(count)
}

fn write_graph<W: Write>(
    txn: &nereid_storage::Txn,
    writer: &mut RdfWriter<W>,
) -> std::io::Result<()> {
    let nodes = txn.scan_nodes(None);
    let key = |id| txn.node_key(id).unwrap_or_default();
    for &node in &nodes {
        writer.vertex(
            &key(node),
            &txn.node_labels(node),
            &txn.node_properties(node),
        )?;
    }
    for &node in &nodes {
        let start = key(node);
        for (rel, end) in txn.expand(node, Direction::Outgoing, &[]) {
            let Some((_, _, rel_type)) = txn.rel_endpoints(rel) else {
                continue;
            };
            writer.edge(&start, &rel_type, &key(end), &txn.rel_properties(rel))?;
        }
    }
    Ok(())
}
