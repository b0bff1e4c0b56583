//! The shared store: dictionaries, predicate tables, the three partitioned
//! SPOI relations of a basic LPG (REL_VP, REL_E, REL_EP), id generators and
//! the commit clock.
//!
//! Clock invariants: `last_commit` (guarded by the commit mutex) is the
//! highest commit timestamp assigned; `visible` is the highest *published*
//! one and never exceeds it. New transactions read at `visible`, so a commit
//! is stamped before it is published but nobody reads it until then. Commit
//! timestamps are assigned in log order, so publishing `t` (durable) implies
//! every commit below `t` is durable too, which makes `fetch_max` correct
//! even when tickets are published out of order.

use crate::adjacency::KeyKind::{self, Hashed, Statement};
use crate::bulk::INTERN_AHEAD;
use crate::change::{Change, StoreConfig};
use crate::counts::{CountKey, Counts};
use crate::dictionary::Dictionary;
use crate::error::{Result, StorageError};
use crate::gc::Snapshots;
use crate::ids::{normalize_partitions, TAG_E, TAG_EP, TAG_LIT, TAG_VERT, TAG_VP};
use crate::predicates::PredicateTable;
use crate::relation::{IndexKeys, RelKind, Relation, Tuple, TupleRef};
use crate::stats::StatsCell;
use crate::txn::{replay_changes, Txn, TxnCore};
use crate::typed_value::dict_error;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The shared store.
pub struct Store {
    pub(crate) partitions: usize,
    /// REL_VERT: vertex identifier strings.
    pub(crate) vertices: Dictionary,
    /// REL_LIT: literal forms (string/bytes/list values, label names).
    pub(crate) literals: Dictionary,
    /// Property keys (REL_VP and REL_EP predicates).
    pub(crate) keys: PredicateTable,
    /// Relationship types (REL_E predicates).
    pub(crate) types: PredicateTable,
    /// Vertex properties, labels and existence, 1D by the low bits of S.
    pub(crate) vp: Relation,
    /// Edges, on a `P x P` grid by (S, O).
    pub(crate) e: Relation,
    /// Edge properties, in the grid cell of their edge.
    pub(crate) ep: Relation,
    /// Next number for generated vertex identifiers (`n<number>`).
    pub(crate) vertex_seq: AtomicU64,
    next_txn: AtomicU64,
    /// The last assigned commit timestamp; holding the lock serialises commits.
    pub(crate) commit_lock: Mutex<u64>,
    visible: AtomicU64,
    /// Node and relationship counts per snapshot, kept at commit (module
    /// `counts`).
    pub(crate) counts: Counts,
    /// Live snapshots and the garbage count (module `gc`).
    pub(crate) snapshots: Snapshots,
    /// Optimizer statistics, kept at commit (module `stats`).
    pub(crate) stats: StatsCell,
    /// Indexes and constraints (module `schema`).
    pub(crate) schema: crate::schema::Schema,
    /// Writers waiting for other transactions' writes (module `lock_wait`).
    pub(crate) lock_waits: crate::lock_wait::LockWaits,
}

impl Store {
    pub fn new(config: StoreConfig) -> Arc<Store> {
        let p = normalize_partitions(config.partitions);
        // Vertex keys of one partition share the low log2(p) hash bits.
        let vertex = KeyKind::Vertex {
            part_bits: p.trailing_zeros(),
        };
        Arc::new(Store {
            partitions: p,
            vertices: Dictionary::new(TAG_VERT),
            literals: Dictionary::new(TAG_LIT),
            keys: PredicateTable::new(2),
            types: PredicateTable::new(0),
            vp: Relation::new(
                TAG_VP,
                p,
                IndexKeys {
                    s: vertex,
                    o: Hashed,
                    sorted_s: false,
                },
            ),
            e: Relation::new(
                TAG_E,
                p * p,
                IndexKeys {
                    s: vertex,
                    o: vertex,
                    sorted_s: true,
                },
            ),
            ep: Relation::new(
                TAG_EP,
                p * p,
                IndexKeys {
                    s: Statement,
                    o: Hashed,
                    sorted_s: false,
                },
            ),
            vertex_seq: AtomicU64::new(0),
            next_txn: AtomicU64::new(1),
            commit_lock: Mutex::new(0),
            visible: AtomicU64::new(0),
            counts: Counts::default(),
            snapshots: Snapshots::default(),
            stats: StatsCell::default(),
            schema: crate::schema::Schema::default(),
            lock_waits: crate::lock_wait::LockWaits::default(),
        })
    }

    /// Starts a transaction reading the latest *published* (durable) commit.
    pub fn begin(self: &Arc<Self>) -> Txn {
        let read_ts = self.snapshots.register(|| self.visible_ts());
        let core = TxnCore::new(self.next_txn_id(), read_ts);
        Txn::new(self.clone(), core)
    }

    /// Applies a committed transaction read back from the log, at its
    /// original commit timestamp and ids. Called before the store serves
    /// queries; timestamps must increase from call to call.
    pub fn replay(&self, commit_ts: u64, changes: &[Change]) -> Result<()> {
        let mut last = self.commit_lock.lock();
        if commit_ts <= *last {
            return Err(StorageError::Replay(format!(
                "commit timestamp {commit_ts} is not after {}",
                *last
            )));
        }
        let mut core = TxnCore::new(self.next_txn_id(), *last);
        core.replaying = true;
        replay_changes(self, &core, changes)?;
        crate::txn::stamp_committed(self, &core, commit_ts);
        *last = commit_ts;
        self.visible.fetch_max(commit_ts, Ordering::AcqRel);
        drop(last);
        self.maybe_collect_garbage();
        Ok(())
    }

    /// Number of nodes with `label` (all nodes when `None`) in the latest
    /// stamped snapshot: the planner's cardinality estimate. O(1): read from
    /// counts kept at commit (module `counts`), so it may include commits
    /// not yet published.
    pub fn estimate_nodes(&self, label: Option<&str>) -> u64 {
        match label {
            None => self.counts.latest(CountKey::Nodes),
            Some(l) => match self.literals.lookup(l.as_bytes()) {
                Some(gui) => self.counts.latest(CountKey::Label(gui)),
                None => 0,
            },
        }
    }

    /// A fresh vertex identifier `n<seq>` registered in REL_VERT. Numbers
    /// whose identifier is already registered (by replay or an import) are
    /// skipped.
    pub(crate) fn fresh_vertex(&self) -> Result<(u64, String)> {
        let mut key = VertexKey::default();
        loop {
            let seq = self.vertex_seq.fetch_add(1, Ordering::Relaxed);
            let form = key.of(seq);
            let interned = self.vertices.intern_new(form).map_err(dict_error)?;
            if interned.fresh {
                return Ok((interned.gui, String::from_utf8_lossy(form).into_owned()));
            }
        }
    }

    /// `n` fresh vertex guis for a bulk load, in the manner of
    /// [`Store::fresh_vertex`] but with one counter step and one dictionary
    /// lock for all of them.
    pub(crate) fn fresh_vertices(&self, n: usize) -> Result<Vec<u64>> {
        let mut guis = Vec::with_capacity(n);
        let mut vertices = self.vertices.writer();
        let (mut key, mut ahead) = (VertexKey::default(), VertexKey::default());
        let mut next = self.vertex_seq.fetch_add(n as u64, Ordering::Relaxed);
        let mut end = next + n as u64;
        while guis.len() < n {
            if next == end {
                // Some keys were taken: draw the shortfall.
                let missing = (n - guis.len()) as u64;
                next = self.vertex_seq.fetch_add(missing, Ordering::Relaxed);
                end = next + missing;
            }
            // Keys are known in advance: their table slots are fetched
            // while earlier keys are interned.
            vertices.prefetch(ahead.of(next + INTERN_AHEAD as u64));
            let interned = vertices.intern(key.of(next)).map_err(dict_error)?;
            next += 1;
            if interned.fresh {
                guis.push(interned.gui);
            }
        }
        Ok(guis)
    }

    /// An upper bound on the key length [`Store::fresh_vertices`] gives
    /// when asked for `n` (unless keys already taken push it further).
    pub(crate) fn vertex_key_len(&self, n: usize) -> usize {
        let last = self.vertex_seq.load(Ordering::Relaxed) + n as u64;
        VertexKey::default().of(last).len()
    }

    /// The newest commit timestamp readers may see.
    pub fn visible_ts(&self) -> u64 {
        self.visible.load(Ordering::Acquire)
    }

    /// Ends every wait for another transaction's write, and refuses new
    /// ones (`LockWaitStopped`): the server is shutting down.
    pub fn release_waiters(&self) {
        self.lock_waits.close();
    }

    pub(crate) fn publish(&self, commit_ts: u64) {
        self.visible.fetch_max(commit_ts, Ordering::AcqRel);
        self.lock_waits.notify();
    }

    pub(crate) fn next_txn_id(&self) -> u64 {
        self.next_txn.fetch_add(1, Ordering::Relaxed)
    }

    pub(crate) fn relation(&self, kind: RelKind) -> &Relation {
        match kind {
            RelKind::Vp => &self.vp,
            RelKind::E => &self.e,
            RelKind::Ep => &self.ep,
        }
    }

    /// Runs `f` on the referenced tuple with its partition's lock held
    /// shared, so that `f` may stamp it (`Relation::stamp`).
    pub(crate) fn with_tuple<T>(&self, r: TupleRef, f: impl FnOnce(&Tuple) -> T) -> Option<T> {
        let part = self.relation(r.kind).stamp(r.part)?;
        part.tuple(r.index).map(|t| f(&t))
    }
}

/// A pending commit: the commit timestamp is assigned and the changes are
/// stamped, but not yet visible to new readers until [`Store`] is told the
/// commit is durable via [`CommitTicket::publish`]. Dropping a ticket
/// without publishing leaves the commit invisible until a later commit is
/// published (which implies this one is durable too: see the store docs).
pub struct CommitTicket {
    pub(crate) store: Arc<Store>,
    pub(crate) commit_ts: u64,
}

impl CommitTicket {
    pub fn commit_ts(&self) -> u64 {
        self.commit_ts
    }
    /// Makes the commit visible to transactions that begin afterwards.
    pub fn publish(self) {
        self.store.publish(self.commit_ts);
    }
}

/// The one spelling of generated vertex keys, `n<seq>`, built in place (a
/// bulk load builds one per vertex: no formatting machinery, no copy).
#[derive(Default)]
pub(crate) struct VertexKey([u8; 21]);

impl VertexKey {
    /// The key of sequence number `seq`.
    fn of(&mut self, mut seq: u64) -> &[u8] {
        let mut at = self.0.len();
        loop {
            at -= 1;
            self.0[at] = b'0' + (seq % 10) as u8;
            seq /= 10;
            if seq == 0 {
                break;
            }
        }
        at -= 1;
        self.0[at] = b'n';
        &self.0[at..]
    }

    /// The sequence number a key of the generated spelling stands for
    /// (the inverse of [`VertexKey::of`]; a replayed key of that spelling
    /// must keep later generated keys from reusing it). Other keys: `None`.
    pub(crate) fn seq(key: &str) -> Option<u64> {
        let digits = key.strip_prefix('n')?;
        let canonical = !digits.is_empty()
            && digits.bytes().all(|b| b.is_ascii_digit())
            && (digits == "0" || !digits.starts_with('0'));
        canonical.then(|| digits.parse().ok()).flatten()
    }
}

#[cfg(test)]
mod tests {
    use super::VertexKey;

    #[test]
    fn vertex_keys_match_formatting() {
        let mut key = VertexKey::default();
        for n in [0, 7, 10, 99, 12_345, u64::MAX] {
            assert_eq!(key.of(n), format!("n{n}").as_bytes());
            let spelled = std::str::from_utf8(key.of(n)).unwrap().to_string();
            assert_eq!(VertexKey::seq(&spelled), Some(n));
        }
        for other in [
            "",
            "n",
            "n-1",
            "n+1",
            "n07",
            "x7",
            "n7a",
            "n99999999999999999999",
        ] {
            assert_eq!(VertexKey::seq(other), None, "{other}");
        }
    }
}
