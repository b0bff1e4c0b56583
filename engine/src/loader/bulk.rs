//! A load through the store's bulk path: node files parsed in parallel
//! and their ids checked and keyed on this thread, then the other files
//! parsed in parallel with their relationships' ends resolved by the
//! parse workers (against the load's own nodes, then the committed graph),
//! and the whole load applied as one bulk commit that a checkpoint makes
//! durable before the load reports completion
//! (docs/adr/0096-bulk-load-by-checkpoint.md). The resolved rows are what
//! the store takes, so no copy of them is made on the way in.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use nereid_errors::Status;
use nereid_loader_formats::{add_value, NodeRecord, Record, RelationshipRecord};
use nereid_storage::{BulkEnd, BulkNode, GraphRel, KeyedNode, Txn};
use nereid_values::Value;

use super::apply::{each_record, Ended, RowError};
use super::parse::{parse_all, Parsed};
use super::progress::Progress;
use super::source::Input;
use super::user_id::{user_key, user_key_into};
use crate::db::{Database, DbError};

type Properties = Vec<(Arc<str>, Value)>;

/// Vertex key -> position in the load's nodes.
type Keys = HashMap<String, usize, foldhash::fast::RandomState>;

/// A node row, its id spelled as its vertex key.
struct NodeRow {
    key: String,
    labels: Vec<Arc<str>>,
    properties: Properties,
}

/// A relationship row, its ends resolved: what the store takes.
type RelRow = GraphRel<Arc<str>, Properties>;

/// The rows of a load, checked and resolved, ready for the store.
#[derive(Default)]
struct Rows {
    nodes: Vec<NodeRow>,
    /// Vertex key -> position in `nodes`.
    keys: Keys,
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
    // Ids of committed nodes are looked up in a snapshot; the store checks
    // them again under its commit lock.
    let tx = db.begin();
    let mut rows = Rows {
        merge,
        ..Rows::default()
    };
    let read = rows.read_all(
        tx.store_txn(),
        inputs,
        threads,
        fail_on_error,
        progress,
        cancel,
    );
    db.rollback(tx);
    read?;
    progress.committing();
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
    let loaded = db
        .bulk_load_graph(&nodes, &rows.rels)
        .map_err(Ended::Failed)?;
    tracing::info!(
        read_and_resolved_ms = resolved_in.as_millis() as u64,
        applied_and_checkpointed_ms = (started.elapsed() - resolved_in).as_millis() as u64,
        commit_ts = loaded.commit_ts,
        nodes = loaded.nodes.len(),
        relationships = loaded.rels.len(),
        "bulk load committed"
    );
    Ok(Outcome::Applied)
}

impl Rows {
    /// Reads the node files, then the others, each group parsed in
    /// parallel; the relationships of the second are resolved by the
    /// parse workers against the nodes of the first (and the committed
    /// graph), so only their ends, type and values are kept. An RDF load
    /// (`merge`) resolves on this thread: its documents mix vertices and
    /// edges, and the vertices merge.
    fn read_all(
        &mut self,
        txn: &Txn,
        inputs: Vec<Input>,
        threads: usize,
        fail_on_error: bool,
        progress: &Progress,
        cancel: &AtomicBool,
    ) -> Result<(), Ended> {
        let (node_files, others): (Vec<Input>, Vec<Input>) =
            inputs.into_iter().partition(|input| input.nodes_only);
        let parsed = parse_all(node_files, threads, cancel, || Item::record)?;
        self.reserve(&parsed);
        let files = parsed.into_iter().map(|p| (p.name, p.items));
        each_record(files, fail_on_error, progress, cancel, |item| {
            self.add(txn, item, progress)
        })?;
        let ends = Ends {
            keys: &self.keys,
            txn,
        };
        let merge = self.merge;
        let parsed = parse_all(others, threads, cancel, || {
            let mut scratch = String::new();
            move |record| match record {
                Record::Relationship(rel) if !merge => Item::Rel(ends.resolve(rel, &mut scratch)),
                record => Item::record(record),
            }
        })?;
        self.rels
            .reserve(parsed.iter().map(|p| p.items.len()).sum());
        let files = parsed.into_iter().map(|p| (p.name, p.items));
        each_record(files, fail_on_error, progress, cancel, |item| {
            self.add(txn, item, progress)
        })
    }

    /// Room for the nodes of `parsed` at once (no regrowth).
    fn reserve(&mut self, parsed: &[Parsed<Item>]) {
        let nodes = parsed.iter().map(|p| p.items.len()).sum();
        self.nodes.reserve(nodes);
        self.keys.reserve(nodes);
    }

    fn add(&mut self, txn: &Txn, item: Item, progress: &Progress) -> Result<(), RowError> {
        let record = match item {
            Item::Record(record) => *record,
            Item::Rel(rel) => {
                let rel = rel?;
                Progress::add(&progress.property_values, rel.properties.len() as u64);
                self.rels.push(rel);
                return Ok(());
            }
        };
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
                let ends = Ends {
                    keys: &self.keys,
                    txn,
                };
                let rel = ends.resolve(rel, &mut self.scratch)?;
                if self.merge
                    && !self
                        .rdf_edges
                        .is_new(txn, rel.src, rel.dst, &rel.rel_type, &rel.properties)
                {
                    return Ok(());
                }
                Progress::add(&progress.property_values, rel.properties.len() as u64);
                self.rels.push(rel);
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
}

/// What a parse worker hands on: a record to add on the loader's thread,
/// or a relationship it resolved itself. The record is boxed: a file's
/// items are one vector, sized by the largest variant, and a record is
/// twice the size of a resolved row.
enum Item {
    Record(Box<Record>),
    Rel(Result<RelRow, RowError>),
}

impl Item {
    fn record(record: Record) -> Item {
        Item::Record(Box::new(record))
    }
}

/// Resolves relationship ends: a node of this load, else a committed one.
#[derive(Clone, Copy)]
struct Ends<'a> {
    keys: &'a Keys,
    txn: &'a Txn,
}

impl Ends<'_> {
    /// `rel` with its ends resolved (`scratch` holds the key looked up).
    fn resolve(self, rel: RelationshipRecord, scratch: &mut String) -> Result<RelRow, RowError> {
        let at = RowError::at(rel.line);
        let src = self.end(rel.start_space.as_deref(), &rel.start, scratch);
        let dst = self.end(rel.end_space.as_deref(), &rel.end, scratch);
        Ok(RelRow {
            src: src.map_err(at)?,
            dst: dst.map_err(at)?,
            rel_type: rel.rel_type,
            properties: rel.properties,
        })
    }

    fn end(self, space: Option<&str>, id: &str, key: &mut String) -> Result<BulkEnd, DbError> {
        user_key_into(space, id, key)?;
        if let Some(&at) = self.keys.get(key.as_str()) {
            return Ok(BulkEnd::Loaded(at));
        }
        super::apply::endpoint_by_key(self.txn, key, space, id).map(BulkEnd::Existing)
    }
}
