//! A load through the store's bulk path: the rows of the whole load
//! checked and resolved, then applied as one bulk commit that a checkpoint
//! makes durable before the load reports completion
//! (docs/adr/0096-bulk-load-by-checkpoint.md). CSV files are read by
//! `bulk_csv.rs` (rows prepared in the parse workers and handed to the
//! store where they lie), RDF documents by `bulk_rdf.rs` (records of one
//! IRI merged on this thread). Either way the store takes the rows as
//! they are: no copy of them is made on the way in.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use nereid_errors::Status;
use nereid_loader_formats::{IriNumbers, NodeRecord, RelationshipRecord};
use nereid_storage::{BulkEnd, BulkNode, GraphNode, GraphRel, KeyedNode, Txn};
use nereid_values::Value;

use super::apply::{Ended, RowError};
use super::progress::Progress;
use super::source::{EndSpaces, Input};
use super::user_id::{owned_user_key, user_key_into};
use crate::db::{Database, DbError, Transaction};

pub(super) type Properties = Vec<(Arc<str>, Value)>;

pub(super) type Fast = foldhash::fast::RandomState;

/// A node row, its id spelled as its vertex key.
pub(super) struct NodeRow {
    pub(super) key: String,
    pub(super) labels: Vec<Arc<str>>,
    pub(super) properties: Properties,
    line: u64,
    /// Where the record's id starts in `key` (after its id space).
    id_from: usize,
}

impl NodeRow {
    pub(super) fn new(node: NodeRecord) -> Result<NodeRow, RowError> {
        let id_len = node.id.len();
        let key =
            owned_user_key(node.id_space.as_deref(), node.id).map_err(RowError::at(node.line))?;
        Ok(NodeRow {
            id_from: key.len() - id_len,
            key,
            labels: node.labels,
            properties: node.properties,
            line: node.line,
        })
    }

    /// An RDF vertex keyed by its IRI `key`, no labels or properties yet.
    pub(super) fn vertex(key: String) -> NodeRow {
        NodeRow {
            key,
            labels: Vec::new(),
            properties: Vec::new(),
            line: 0,
            id_from: 0,
        }
    }

    /// The error of a row whose id a node already has.
    pub(super) fn taken(&self) -> RowError {
        RowError::at(self.line)(DbError {
            status: Status::ConstraintValidationFailed,
            message: format!(
                "a node with id `{}` already exists",
                &self.key[self.id_from..]
            ),
        })
    }

    /// The key's id space part (`(space)`, or `()` or nothing for the
    /// global space) and its id.
    pub(super) fn split_key(&self) -> (&str, &str) {
        self.key.split_at(self.id_from)
    }
}

impl GraphNode<Arc<str>> for NodeRow {
    fn keyed(&self) -> KeyedNode<'_, Arc<str>> {
        KeyedNode {
            key: &self.key,
            node: BulkNode {
                labels: &self.labels,
                properties: &self.properties,
            },
        }
    }
}

/// A relationship row, its ends resolved: what the store takes.
pub(super) type RelRow = GraphRel<Arc<str>, Properties>;

/// What the bulk path did with a load that did not fail.
pub(crate) enum Outcome {
    Applied,
    /// Nothing: the (RDF) load adds labels or properties to committed
    /// vertices, which the bulk path cannot; it must run as a transaction.
    AddsToCommitted,
}

/// A load's rows, checked and resolved, as the store takes them: in
/// batches (a CSV file's each), by value, so the store frees them once
/// staged (docs/adr/0154-load-rows-freed-once-staged.md).
pub(super) struct Ready {
    /// The node rows the load keeps (a refused one is left out); the
    /// relationships' `BulkEnd::Loaded` positions count them in order.
    pub(super) nodes: Vec<Vec<NodeRow>>,
    pub(super) rels: Vec<Vec<RelRow>>,
}

/// How the rows of a load, once read, are committed.
pub(super) struct Commit<'a> {
    db: &'a Database,
    started: Instant,
    progress: &'a Progress,
}

/// Runs a load whose files are `inputs` through the bulk path; with
/// `merge` (RDF, the dictionary the readers number vertices by), vertex
/// records of one id are merged, not refused.
pub(crate) fn run(
    db: &Arc<Database>,
    inputs: Vec<Input>,
    fail_on_error: bool,
    merge: Option<Arc<IriNumbers>>,
    progress: &Progress,
    cancel: &AtomicBool,
) -> Result<Outcome, Ended> {
    let started = Instant::now();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Ids of committed nodes are looked up in a snapshot; the store checks
    // them again under its commit lock.
    let tx = db.begin();
    let commit = Commit {
        db: db.as_ref(),
        started,
        progress,
    };
    if let Some(numbers) = merge {
        let rdf = super::bulk_rdf::load;
        return rdf(
            tx,
            inputs,
            numbers,
            fail_on_error,
            progress,
            cancel,
            &commit,
        );
    }
    let read = super::bulk_csv::Read {
        threads,
        fail_on_error,
        progress,
        cancel,
    };
    read.load(tx, inputs, &commit)
}

impl Commit<'_> {
    /// Applies `ready` as one bulk commit, made durable by a checkpoint.
    /// `tx`, the snapshot the rows were resolved in, ends first: the store
    /// checks the ids again under its commit lock, and no older snapshot
    /// keeps the load's zones from being frozen at once.
    pub(super) fn apply(&self, tx: Transaction, ready: Ready) -> Result<Outcome, Ended> {
        self.db.rollback(tx);
        self.progress.committing();
        let resolved_in = self.started.elapsed();
        let loaded = self
            .db
            .bulk_load_graph(ready.nodes, ready.rels)
            .map_err(Ended::Failed)?;
        tracing::info!(
            read_and_resolved_ms = resolved_in.as_millis() as u64,
            applied_and_checkpointed_ms = (self.started.elapsed() - resolved_in).as_millis() as u64,
            commit_ts = loaded.commit_ts,
            nodes = loaded.nodes.len(),
            relationships = loaded.rels.len(),
            "bulk load committed"
        );
        Ok(Outcome::Applied)
    }
}

/// Resolves relationship ends: a node of this load (by its id in
/// `keys`), else a committed one.
pub(super) struct Ends<'a, K> {
    pub(super) keys: &'a K,
    pub(super) txn: &'a Txn,
}

impl<K> Clone for Ends<'_, K> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<K> Copy for Ends<'_, K> {}

/// The positions of a load's own vertices by their ids.
pub(super) trait LoadKeys {
    /// The position of the load's vertex `id` of `space`, if the load
    /// has one; `scratch` is a buffer for spelling its key when needed.
    fn position(&self, space: Option<&str>, id: &str, scratch: &mut String) -> Option<usize>;

    /// Asks for the memory a later `position` of the same id will read
    /// (a hint: nothing by default).
    fn prefetch(&self, _space: Option<&str>, _id: &str) {}

    /// Where the load's vertices of `space` whose ids are numbers in
    /// canonical decimal are kept (`None`: the load has none there), for
    /// [`LoadKeys::position_at`]: a file's ends look their spaces up once.
    fn number_slot(&self, space: Option<&str>) -> Option<usize>;

    /// [`LoadKeys::position`] of the id that is `n` in canonical decimal
    /// (`nereid_loader_formats::canonical_decimal`) in the space at `slot`.
    fn position_at(&self, slot: usize, n: u64) -> Option<usize>;

    /// [`LoadKeys::prefetch`] of the id that is `n` in canonical decimal
    /// in the space at `slot`.
    fn prefetch_at(&self, _slot: usize, _n: u64) {}

    /// [`LoadKeys::position`] of the id that is `n` in canonical decimal.
    fn position_of_number(&self, space: Option<&str>, n: u64) -> Option<usize> {
        self.position_at(self.number_slot(space)?, n)
    }
}

/// The id spaces of `rel`'s ends: its own, else its file's (a bulk-path
/// reader leaves them out of each record, `Reader::end_spaces_apart`),
/// each with its slot in the load's keys when it is its file's and the
/// loader found that ([`EndSpaces::slots`]).
fn spaces<'a>(rel: &'a RelationshipRecord, file: &'a EndSpaces) -> [EndSpace<'a>; 2] {
    let own = [&rel.start_space, &rel.end_space];
    std::array::from_fn(|i| match own[i] {
        Some(space) => EndSpace {
            name: Some(space),
            slot: None,
        },
        None => EndSpace {
            name: file.names[i].as_deref(),
            slot: file.slots.map(|slots| slots[i]),
        },
    })
}

/// An end's id space: its name, and where the load keeps its numbered
/// vertices if known (`Some(None)`: the load has none there).
#[derive(Clone, Copy)]
struct EndSpace<'a> {
    name: Option<&'a str>,
    slot: Option<Option<usize>>,
}

impl<K: LoadKeys> Ends<'_, K> {
    /// Asks for what resolving `rel`'s ends will read, a few rows before
    /// [`Ends::resolve`] does (docs/adr/0154-load-rows-freed-once-staged.md).
    pub(super) fn prefetch(self, rel: &RelationshipRecord, file: &EndSpaces) {
        let [start, end] = rel.decimal_ends;
        let [start_space, end_space] = spaces(rel, file);
        for (space, text, number) in [(start_space, &rel.start, start), (end_space, &rel.end, end)]
        {
            let slot = match space.slot {
                Some(slot) => slot,
                None if number.is_some() => self.keys.number_slot(space.name),
                None => None,
            };
            match (number, slot) {
                (Some(n), Some(slot)) => self.keys.prefetch_at(slot, n),
                (Some(_), None) => {}
                (None, _) => self.keys.prefetch(space.name, text),
            }
        }
    }

    /// `rel` (of a file whose ends' spaces are `file`) with its ends
    /// resolved (`scratch` holds the key looked up).
    pub(super) fn resolve(
        self,
        rel: RelationshipRecord,
        file: &EndSpaces,
        scratch: &mut String,
    ) -> Result<RelRow, RowError> {
        let at = RowError::at(rel.line);
        let [start, end] = rel.decimal_ends;
        let [start_space, end_space] = spaces(&rel, file);
        let src = self.end(start_space, &rel.start, start, scratch);
        let dst = self.end(end_space, &rel.end, end, scratch);
        Ok(RelRow {
            src: src.map_err(at)?,
            dst: dst.map_err(at)?,
            rel_type: rel.rel_type,
            properties: rel.properties,
        })
    }

    /// The end `id` of `space`, or the id that is `number` in canonical
    /// decimal (a reader's `decimal_ends`, `id` then empty): found by its
    /// number among the load's own nodes, spelled only to look for a
    /// committed one.
    fn end(
        self,
        space: EndSpace<'_>,
        id: &str,
        number: Option<u64>,
        key: &mut String,
    ) -> Result<BulkEnd, DbError> {
        let spelled;
        let EndSpace { name: space, slot } = space;
        let id = match number {
            Some(n) => {
                let found = match slot {
                    Some(slot) => slot.and_then(|slot| self.keys.position_at(slot, n)),
                    None => self.keys.position_of_number(space, n),
                };
                if let Some(at) = found {
                    return Ok(BulkEnd::Loaded(at));
                }
                spelled = n.to_string();
                &spelled
            }
            None => {
                if let Some(at) = self.keys.position(space, id, key) {
                    return Ok(BulkEnd::Loaded(at));
                }
                id
            }
        };
        user_key_into(space, id, key)?;
        super::apply::endpoint_by_key(self.txn, key, space, id).map(BulkEnd::Existing)
    }
}
