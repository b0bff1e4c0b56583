//! The state a transaction accumulates: its undo list, its logical changes,
//! its statistics, and the read/write sets commit-time validation needs.

use crate::change::{Change, WriteStats};
use crate::lock_wait::WaitLimits;
use crate::mvcc::{marker, View};
use crate::relation::{RelKind, TupleRef};
use crate::schema::PropertyIndex;
use crate::typed_value::TypedValue;
use parking_lot::Mutex;
use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    Active,
    Committed,
    RolledBack,
}

/// One physical write, in the order it happened.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Undo {
    /// We inserted this tuple (begin = our marker).
    Inserted(TupleRef),
    /// We marked this tuple deleted (end = our marker).
    Deleted(TupleRef),
}

/// An `(S, P[, O])` key we inserted without deleting a previous version:
/// validated at commit so that two transactions cannot both add it
/// (the "lost update" of a property that did not exist before).
#[derive(Copy, Clone, Debug)]
pub(crate) struct FreshKey {
    pub(crate) kind: RelKind,
    pub(crate) part: usize,
    pub(crate) s: u64,
    pub(crate) p: u32,
    /// Labels are keyed by their O too (a node has many labels).
    pub(crate) o: Option<TypedValue>,
}

pub(crate) struct TxnState {
    pub(crate) status: Status,
    /// Set by the first write-write conflict; commit then fails with it.
    pub(crate) doomed: Option<String>,
    pub(crate) undo: Vec<Undo>,
    pub(crate) changes: Vec<Change>,
    pub(crate) stats: WriteStats,
    pub(crate) fresh: Vec<FreshKey>,
    pub(crate) created_nodes: HashSet<u64>,
    pub(crate) created_rels: HashSet<u64>,
    /// Pre-existing nodes/relationships we wrote to (or attached edges to):
    /// they must not have been deleted by a concurrent commit.
    pub(crate) touched_nodes: HashSet<u64>,
    pub(crate) touched_rels: HashSet<u64>,
    /// Pre-existing nodes/relationships we deleted: nothing may have been
    /// attached to them by a concurrent commit.
    pub(crate) deleted_nodes: Vec<u64>,
    pub(crate) deleted_rels: Vec<u64>,
    /// The schema version when the first data write began: an index that
    /// appeared after it may lack this transaction's entries, which the
    /// commit then adds (module `schema_writes`).
    pub(crate) schema_version: Option<u64>,
    /// Entities whose key in a constraint's backing index this
    /// transaction set: checked again at commit against commits the
    /// snapshot cannot see.
    pub(crate) unique_keys: Vec<(Arc<PropertyIndex>, u64)>,
    /// The transaction changes the schema (and so may not change data).
    pub(crate) schema_change: bool,
    /// Index entries of keys this transaction moved entities off: stale
    /// once its commit is older than every snapshot (module `schema::stale`).
    pub(crate) stale: Vec<(Arc<PropertyIndex>, Vec<u8>, u64)>,
    /// Index entries this transaction added: stale if it rolls back.
    pub(crate) index_inserts: Vec<(Arc<PropertyIndex>, Vec<u8>, u64)>,
    /// Indexes its commit created, to populate once it returns.
    pub(crate) populate: Vec<Arc<PropertyIndex>>,
}

/// Identity, snapshot and state of one transaction.
pub(crate) struct TxnCore {
    /// The snapshot read; moves only when the transaction starts again
    /// with nothing written ([`crate::Txn::restart`]).
    read_ts: AtomicU64,
    pub(crate) marker: u64,
    /// The commit timestamp once committed (0 before).
    pub(crate) committed_ts: AtomicU64,
    pub(crate) state: Mutex<TxnState>,
    /// Log replay: the data was checked when it was first committed, and
    /// indexes are rebuilt once replay ends, so writes skip the schema.
    pub(crate) replaying: bool,
    /// What bounds this transaction's waits for others' writes.
    pub(crate) limits: Mutex<WaitLimits>,
}

impl TxnState {
    fn new() -> Self {
        TxnState {
            status: Status::Active,
            doomed: None,
            undo: Vec::new(),
            changes: Vec::new(),
            stats: WriteStats::default(),
            fresh: Vec::new(),
            created_nodes: HashSet::new(),
            created_rels: HashSet::new(),
            touched_nodes: HashSet::new(),
            touched_rels: HashSet::new(),
            deleted_nodes: Vec::new(),
            deleted_rels: Vec::new(),
            schema_version: None,
            unique_keys: Vec::new(),
            schema_change: false,
            populate: Vec::new(),
            stale: Vec::new(),
            index_inserts: Vec::new(),
        }
    }

    /// A state as at the transaction's start (after its writes were
    /// rolled back).
    pub(crate) fn reset(&mut self) {
        *self = TxnState::new();
    }
}

impl TxnCore {
    pub(crate) fn new(id: u64, read_ts: u64) -> Self {
        TxnCore {
            read_ts: AtomicU64::new(read_ts),
            marker: marker(id),
            committed_ts: AtomicU64::new(0),
            state: Mutex::new(TxnState::new()),
            replaying: false,
            limits: Mutex::new(WaitLimits::default()),
        }
    }

    pub(crate) fn read_ts(&self) -> u64 {
        self.read_ts.load(Ordering::Acquire)
    }

    pub(crate) fn set_read_ts(&self, read_ts: u64) {
        self.read_ts.store(read_ts, Ordering::Release);
    }

    pub(crate) fn view(&self) -> View {
        View {
            read_ts: self.read_ts(),
            me: self.marker,
            my_commit_ts: self.committed_ts.load(Ordering::Acquire),
        }
    }
}
