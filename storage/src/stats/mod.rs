//! Statistics the store keeps for the optimizer (Poseidon paper, section on
//! statistics): characteristic sets ([`characteristic`]) and distinct-value
//! sketches with exact relationship counts ([`sketches`]).
//!
//! Both are fed the same way: a commit (and replay, snapshot load and bulk
//! load) hands the tuples it stamped as [`TupleDelta`]s, under the commit
//! mutex, so the statistics follow every *stamped* commit, like the label
//! counts of module `counts`. [`crate::Store::rebuild_statistics`] (module
//! `rebuild`) recomputes them from a snapshot, which also drops the values
//! deleted since the sketches last started (HyperLogLog cannot forget).
//!
//! Storage knows nothing about Cypher: the statistics speak of labels,
//! property keys and relationship types by name (module `view`); how a
//! planner turns them into selectivities is the planner's business.

pub(crate) mod characteristic;
mod profile_table;
mod rebuild;
pub(crate) mod sketches;
mod view;

pub use sketches::DistinctEstimate;
pub use view::{CharacteristicSet, MemberStatistics, RelTypeStatistics, StatMember};

use crate::predicates::{PRED_EXISTS, PRED_LABEL};
use crate::relation::{RelKind, Staged};
use crate::typed_value::TypedValue;
use characteristic::{Batch, CharacteristicSets, Member};
use parking_lot::Mutex;
use sketches::Sketches;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One tuple a commit inserted (`delta` 1) or deleted (-1).
#[derive(Clone, Copy, Debug)]
pub(crate) struct TupleDelta {
    pub(crate) kind: RelKind,
    pub(crate) s: u64,
    pub(crate) p: u32,
    pub(crate) o: TypedValue,
    pub(crate) delta: i64,
}

/// Everything the statistics hold.
#[derive(Clone, Debug, Default)]
pub(crate) struct Statistics {
    pub(crate) sets: CharacteristicSets,
    pub(crate) sketches: Sketches,
    /// What the sketches hold that is gone: see [`Staleness`].
    pub(crate) staleness: Staleness,
}

/// How far the sketches have drifted from the data: they count every value
/// (and every edge endpoint) ever added, and cannot forget one that was
/// deleted or overwritten. Characteristic sets and counts are exact and
/// never drift.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Staleness {
    /// Sketched tuples (property values, edges) still present.
    pub live: u64,
    /// Sketched tuples deleted since the statistics were (re)built: each
    /// still counted by a sketch.
    pub forgotten: u64,
}

impl Staleness {
    /// Deleted tuples a rebuild waits for at least, however small the
    /// graph: below this many, the drift cannot mislead a plan much.
    pub const MIN_FORGOTTEN: u64 = 1000;

    /// True when at least `percent` % of the sketched tuples (live ones,
    /// at least [`Staleness::MIN_FORGOTTEN`]) were deleted since the last
    /// build: the trigger of a background rebuild (`percent` 0: never).
    pub fn is_outdated(&self, percent: u32) -> bool {
        percent > 0
            && self.forgotten >= Self::MIN_FORGOTTEN
            && u128::from(self.forgotten) * 100 >= u128::from(percent) * u128::from(self.live)
    }

    fn count(&mut self, delta: i64) {
        if delta > 0 {
            self.live += delta as u64;
        } else {
            let gone = delta.unsigned_abs();
            self.live = self.live.saturating_sub(gone);
            self.forgotten += gone;
        }
    }
}

impl Statistics {
    /// Bytes the statistics take (memory accounting; O(1) but for one
    /// step per property key and relationship type).
    pub(crate) fn bytes(&self) -> usize {
        self.sets.bytes() + self.sketches.bytes()
    }

    /// Applies one batch of tuple changes (one commit, or a chunk of one),
    /// prefetching the profile slot of the vertex a few deltas ahead (a
    /// vertex new to the statistics is a random miss there; a bulk load
    /// brings a million of them).
    pub(crate) fn apply(&mut self, deltas: &[TupleDelta]) {
        self.apply_from(deltas.len(), |n| deltas[n]);
    }

    /// [`Statistics::apply`] over the deltas `delta(0..len)`, made on the
    /// fly (a bulk load's tuples need no staged copy as deltas).
    fn apply_from(&mut self, len: usize, delta: impl Fn(usize) -> TupleDelta) {
        let mut batch = Batch::default();
        for n in 0..len {
            if n + PROFILE_AHEAD < len {
                self.sets.prefetch(delta(n + PROFILE_AHEAD).s);
            }
            self.apply_one(delta(n), &mut batch);
        }
        self.sets.finish(batch);
    }

    fn apply_one(&mut self, d: TupleDelta, batch: &mut Batch) {
        match d.kind {
            RelKind::Vp => match d.p {
                PRED_EXISTS => self.sets.exists(d.s, d.delta, batch),
                PRED_LABEL => self
                    .sets
                    .bump(d.s, Member::Label(d.o.payload), d.delta, batch),
                key => {
                    self.sets.bump(d.s, Member::Key(key), d.delta, batch);
                    self.staleness.count(d.delta);
                    if d.delta > 0 {
                        self.sketches.node_value(key, d.o);
                    }
                }
            },
            RelKind::E => {
                self.sets.bump(d.s, Member::OutType(d.p), d.delta, batch);
                self.staleness.count(d.delta);
                self.sketches.edge(d.p, d.s, d.o.payload, d.delta);
            }
            RelKind::Ep => {
                self.staleness.count(d.delta);
                if d.delta > 0 {
                    self.sketches.rel_value(d.p, d.o);
                }
            }
        }
    }
}

/// Deltas ahead [`Statistics::apply`] prefetches (a vertex has a
/// handful of deltas: this is a few vertices ahead).
const PROFILE_AHEAD: usize = 16;

/// The live statistics, and the journal of commits made while a rebuild
/// scans its snapshot.
#[derive(Default)]
pub(crate) struct StatsCell {
    state: Mutex<StatsState>,
    /// Serialises rebuilds.
    rebuilding: Mutex<()>,
    /// [`Statistics::bytes`] of the current statistics as of their last
    /// change: read without the lock, which commits take.
    bytes: AtomicUsize,
}

#[derive(Default)]
struct StatsState {
    current: Statistics,
    /// `Some` while a rebuild runs: every batch applied since its snapshot
    /// timestamp, replayed onto the rebuilt statistics before they replace
    /// the current ones.
    journal: Option<Vec<TupleDelta>>,
}

impl StatsCell {
    /// Applies a batch. Callers hold the store's commit mutex, so batches
    /// arrive in commit order.
    pub(crate) fn apply(&self, deltas: Vec<TupleDelta>) {
        if deltas.is_empty() {
            return;
        }
        let mut state = self.state.lock();
        if let Some(journal) = &mut state.journal {
            journal.extend_from_slice(&deltas);
        }
        state.current.apply(&deltas);
        self.publish_bytes(&state.current);
    }

    /// Records the size of `current` (the caller holds the lock).
    fn publish_bytes(&self, current: &Statistics) {
        self.bytes.store(current.bytes(), Ordering::Relaxed);
    }

    /// The size of the statistics as of their last change, without the
    /// lock (a metrics scrape never waits for a commit, nor a commit for
    /// it).
    pub(crate) fn bytes(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }

    /// Applies the insertion of `tuples` (`(S, P, O)` of `kind`: a bulk
    /// load's batch) as one batch, without staging them as deltas.
    pub(crate) fn apply_inserted(&self, kind: RelKind, tuples: &[Staged]) {
        if tuples.is_empty() {
            return;
        }
        let delta = |n: usize| {
            let t = tuples[n];
            TupleDelta {
                kind,
                s: t.s,
                p: t.p,
                o: t.o(),
                delta: 1,
            }
        };
        let mut state = self.state.lock();
        if let Some(journal) = &mut state.journal {
            journal.extend((0..tuples.len()).map(delta));
        }
        state.current.apply_from(tuples.len(), delta);
        self.publish_bytes(&state.current);
    }

    /// Runs `f` on the current statistics.
    pub(crate) fn read<T>(&self, f: impl FnOnce(&Statistics) -> T) -> T {
        f(&self.state.lock().current)
    }
}
