//! A load through the store's bulk path: files parsed in parallel, node
//! ids resolved (against the load's own nodes, then the committed graph),
//! and the whole load applied as one bulk commit that a checkpoint makes
//! durable before the load reports completion
//! (docs/adr/0096-bulk-load-by-checkpoint.md).

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use nereid_errors::Status;
use nereid_loader_formats::{add_value, NodeRecord, Record};
use nereid_storage::{BulkEnd, BulkNode, GraphRel, KeyedNode, Txn};
use nereid_values::Value;

use super::apply::{each_record, Ended, RowError};
use super::parse::{parse_all, Parsed};
use super::progress::Progress;
use super::source::Input;
use super::user_id::{user_key, user_key_into};
use crate::db::{Database, DbError};

type Properties = Vec<(Arc<str>, Value)>;

/// A node row, its id spelled as its vertex key.
struct NodeRow {
    key: String,
    labels: Vec<Arc<str>>,
    properties: Properties,
}

/// A relationship row, its ends resolved.
struct RelRow {
    src: BulkEnd,
    dst: BulkEnd,
    rel_type: Arc<str>,
    properties: Properties,
}

/// The rows of a load, checked and resolved, ready for the store.
#[derive(Default)]
struct Rows {
    nodes: Vec<NodeRow>,
    /// Vertex key -> position in `nodes`.
    keys: HashMap<String, usize, foldhash::fast::RandomState>,
    rels: Vec<RelRow>,
    /// The key being looked up (one buffer for all rows).
    scratch: String,
    /// Records of one id merge (RDF) instead of being refused.
    merge: bool,
    /// A merging record found a committed vertex to add to.
    adds_to_committed: bool,
    /// The load's RDF edges (`merge`): a triple loaded twice is one edge.
    rdf_edges: super::rdf_edges::LoadEdges,
}

/// What the bulk path did with a load that did not fail.
pub(crate) enum Outcome {
    Applied,
    /// Nothing: the (RDF) load adds labels or properties to committed
    /// vertices, which the bulk path cannot; it must run as a transaction.
    AddsToCommitted,
}

/// Runs a load whose files are `inputs` through the bulk path; with
/// `merge` (RDF), vertex records of one id are merged, not refused.
pub(crate) fn run(
    db: &Arc<Database>,
    inputs: Vec<Input>,
    fail_on_error: bool,
    merge: bool,
    progress: &Progress,
    cancel: &AtomicBool,
) -> Result<Outcome, Ended> {
    let started = Instant::now();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let parsed = parse_all(inputs, threads, cancel)?;
    let parsed_in = started.elapsed();
    progress.committing();
    // Ids of committed nodes are looked up in a snapshot; the store checks
    // them again under its commit lock.
    let tx = db.begin();
    let mut rows = Rows {
        merge,
        ..Rows::default()
    };
    rows.reserve(&parsed);
    let files = parsed.into_iter().map(|p| (p.name, p.items));
    let read = each_record(files, fail_on_error, progress, cancel, |record| {
        rows.add(tx.store_txn(), record, progress)
    });
    db.rollback(tx);
    read?;
    if rows.adds_to_committed {
        return Ok(Outcome::AddsToCommitted);
    }
    let resolved_in = started.elapsed();
    let nodes: Vec<KeyedNode<'_, Arc<str>>> = rows
        .nodes
        .iter()
        .map(|n| KeyedNode {
            key: &n.key,
            node: BulkNode {
                labels: &n.labels,
                properties: &n.properties,
            },
        })
        .collect();
    let rels: Vec<GraphRel<'_, Arc<str>>> = rows
        .rels
        .iter()
        .map(|r| GraphRel {
            src: r.src,
            dst: r.dst,
            rel_type: &r.rel_type,
            properties: &r.properties,
        })
        .collect();
    let loaded = db.bulk_load_graph(&nodes, &rels).map_err(Ended::Failed)?;
    tracing::info!(
        parsed_ms = parsed_in.as_millis() as u64,
        resolved_ms = (resolved_in - parsed_in).as_millis() as u64,
        applied_and_checkpointed_ms = (started.elapsed() - resolved_in).as_millis() as u64,
        commit_ts = loaded.commit_ts,
        nodes = loaded.nodes.len(),
        relationships = loaded.rels.len(),
        "bulk load committed"
    );
    Ok(Outcome::Applied)
}

impl Rows {
    /// Room for every record of `parsed` at once (no regrowth).
    fn reserve(&mut self, parsed: &[Parsed]) {
        let records = parsed.iter().flat_map(|p| p.items.iter()).flatten();
        let nodes = records.filter(|r| matches!(r, Record::Node(_))).count();
        let all: usize = parsed.iter().map(|p| p.items.len()).sum();
        self.nodes.reserve(nodes);
        self.keys.reserve(nodes);
        self.rels.reserve(all - nodes);
    }

    fn add(&mut self, txn: &Txn, record: Record, progress: &Progress) -> Result<(), RowError> {
        match record {
            Record::Node(node) => {
                let at = RowError::at(node.line);
                let key = user_key(node.id_space.as_deref(), &node.id).map_err(at)?;
                if self.merge {
                    self.merge_node(txn, key, node);
                    return Ok(());
                }
                if self.keys.contains_key(&key) || txn.node_by_element_id(&key).is_some() {
                    return Err(at(DbError {
                        status: Status::ConstraintValidationFailed,
                        message: format!("a node with id `{}` already exists", node.id),
                    }));
                }
                Progress::add(&progress.property_values, node.properties.len() as u64);
                self.keys.insert(key.clone(), self.nodes.len());
                self.nodes.push(NodeRow {
                    key,
                    labels: node.labels,
                    properties: node.properties,
                });
            }
            Record::Relationship(rel) => {
                let at = RowError::at(rel.line);
                let src = self
                    .end(txn, rel.start_space.as_deref(), &rel.start)
                    .map_err(at)?;
                let dst = self
                    .end(txn, rel.end_space.as_deref(), &rel.end)
                    .map_err(at)?;
                if self.merge
                    && !self
                        .rdf_edges
                        .is_new(txn, src, dst, &rel.rel_type, &rel.properties)
                {
                    return Ok(());
                }
                Progress::add(&progress.property_values, rel.properties.len() as u64);
                self.rels.push(RelRow {
                    src,
                    dst,
                    rel_type: rel.rel_type,
                    properties: rel.properties,
                });
            }
        }
        Ok(())
    }

    /// An RDF vertex: merged into the load's vertex of the same IRI, or
    /// nothing when it is a committed vertex it adds nothing to (an edge
    /// end), or a new vertex.
    fn merge_node(&mut self, txn: &Txn, key: String, node: NodeRecord) {
        if let Some(&at) = self.keys.get(&key) {
            let row = &mut self.nodes[at];
            for label in node.labels {
                if !row.labels.contains(&label) {
                    row.labels.push(label);
                }
            }
            for (k, v) in node.properties {
                add_value(&mut row.properties, k, v);
            }
            return;
        }
        if txn.node_by_element_id(&key).is_some() {
            let adds = !node.labels.is_empty() || !node.properties.is_empty();
            self.adds_to_committed |= adds;
            return;
        }
        self.keys.insert(key.clone(), self.nodes.len());
        self.nodes.push(NodeRow {
            key,
            labels: node.labels,
            properties: node.properties,
        });
    }

    /// A relationship end: a node of this load, else a committed one.
    fn end(&mut self, txn: &Txn, space: Option<&str>, id: &str) -> Result<BulkEnd, DbError> {
        user_key_into(space, id, &mut self.scratch)?;
        if let Some(&at) = self.keys.get(self.scratch.as_str()) {
            return Ok(BulkEnd::Loaded(at));
        }
        super::apply::endpoint_by_key(txn, &self.scratch, space, id).map(BulkEnd::Existing)
    }
}
