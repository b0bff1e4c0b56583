//! The count store: exact numbers of nodes (all, or carrying a label) and of
//! relationships (all, or of a type) *per snapshot*, so that
//! `MATCH (n:L) RETURN count(n)` is answered without a scan
//! ([`crate::Txn::count_nodes`], [`crate::Txn::count_rels`]) and the
//! planner's estimate ([`crate::Store::estimate_nodes`]) is O(1).
//!
//! Layout: `base` holds the counts as of `base_ts`; `recent` lists the
//! deltas of each later stamped commit, keyed by (increasing) commit
//! timestamp; `latest` is `base` plus every delta (the estimate). A snapshot
//! at read timestamp `T >= base_ts` counts `base` plus the deltas of commits
//! `<= T`. Deltas are folded into `base` once the GC watermark (module `gc`:
//! the oldest live read timestamp, or the published one when none is live)
//! reaches them, so `recent` only holds the commits some live snapshot may
//! still not see, and a count costs O(1) on a quiet store.
//!
//! Invariants:
//! - every update happens at stamping (commit, replay, snapshot load, bulk
//!   load) under the store's commit mutex, so commit timestamps arrive in
//!   increasing order (a snapshot load stamps several batches at one
//!   timestamp: those merge) and a commit's deltas are in place before it
//!   is published; rolled-back writes never count;
//! - folding uses a watermark computed under the snapshot registry's mutex,
//!   and every transaction reads at or above the watermark at the moment it
//!   registered, so no live or future snapshot reads below `base_ts`;
//! - a transaction adds its own uncommitted (or, after its commit, its own
//!   committed) writes itself (module `txn::counts`): they are not in the
//!   deltas its read timestamp selects.

use crate::predicates::{PRED_EXISTS, PRED_LABEL};
use crate::relation::RelKind;
use crate::store::Store;
use parking_lot::Mutex;
use std::collections::{HashMap, VecDeque};

/// What one count counts.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum CountKey {
    /// Every node (its existence tuple).
    Nodes,
    /// Nodes carrying the label with this literal gui.
    Label(u64),
    /// Every relationship (its REL_E tuple).
    Rels,
    /// Relationships of this type id.
    RelType(u32),
}

/// The counts a tuple contributes to while it is visible: an existence tuple
/// to [`CountKey::Nodes`], a label tuple to its label, an edge to
/// [`CountKey::Rels`] and its type; property tuples to nothing.
pub(crate) fn count_keys(kind: RelKind, p: u32, o_payload: u64) -> impl Iterator<Item = CountKey> {
    let keys = match (kind, p) {
        (RelKind::Vp, PRED_EXISTS) => [Some(CountKey::Nodes), None],
        (RelKind::Vp, PRED_LABEL) => [Some(CountKey::Label(o_payload)), None],
        (RelKind::E, type_id) => [Some(CountKey::Rels), Some(CountKey::RelType(type_id))],
        _ => [None, None],
    };
    keys.into_iter().flatten()
}

type Deltas = HashMap<CountKey, i64>;

#[derive(Default)]
pub(crate) struct Counts {
    inner: Mutex<CountsInner>,
}

#[derive(Default)]
struct CountsInner {
    /// The counts as of `base_ts`.
    base: Deltas,
    base_ts: u64,
    /// Deltas of the stamped commits after `base_ts`, oldest first.
    recent: VecDeque<(u64, Deltas)>,
    /// `base` plus every delta in `recent`.
    latest: Deltas,
}

impl Counts {
    /// Records the deltas of the commit stamped at `commit_ts`, then folds
    /// every commit at or below `watermark` into the base.
    pub(crate) fn apply(
        &self,
        commit_ts: u64,
        deltas: impl IntoIterator<Item = (CountKey, i64)>,
        watermark: u64,
    ) {
        let mut inner = self.inner.lock();
        let mut commit: Deltas = HashMap::new();
        for (key, delta) in deltas {
            *commit.entry(key).or_insert(0) += delta;
            *inner.latest.entry(key).or_insert(0) += delta;
        }
        commit.retain(|_, d| *d != 0);
        if !commit.is_empty() {
            match inner.recent.back_mut() {
                Some((ts, same)) if *ts == commit_ts => {
                    for (key, delta) in commit {
                        *same.entry(key).or_insert(0) += delta;
                    }
                }
                _ => inner.recent.push_back((commit_ts, commit)),
            }
        }
        inner.fold(watermark);
    }

    /// Takes back the deltas of the stamped, never published commit
    /// `commit_ts` (its log record failed: see `txn::revoke`). It is still
    /// in `recent`, since no snapshot reaches it.
    pub(crate) fn retract(&self, commit_ts: u64) {
        let mut inner = self.inner.lock();
        let Some(at) = inner.recent.iter().position(|(ts, _)| *ts == commit_ts) else {
            return;
        };
        let Some((_, deltas)) = inner.recent.remove(at) else {
            return;
        };
        for (key, delta) in deltas {
            *inner.latest.entry(key).or_insert(0) -= delta;
        }
    }

    /// The newest commit above `ts` whose deltas are held, if any.
    pub(crate) fn newest_after(&self, ts: u64) -> Option<u64> {
        let inner = self.inner.lock();
        inner.recent.back().map(|(t, _)| *t).filter(|t| *t > ts)
    }

    /// The count of `key` in the latest stamped snapshot (may include
    /// commits not yet published): the planner's estimate.
    pub(crate) fn latest(&self, key: CountKey) -> u64 {
        let inner = self.inner.lock();
        inner.latest.get(&key).copied().unwrap_or(0).max(0) as u64
    }

    /// The exact count of `key` in the committed snapshot at `read_ts`
    /// (which must be at or above the watermark the caller registered
    /// under; see the module invariants).
    pub(crate) fn at(&self, key: CountKey, read_ts: u64) -> i64 {
        let inner = self.inner.lock();
        debug_assert!(read_ts >= inner.base_ts, "snapshot below the count base");
        let base = inner.base.get(&key).copied().unwrap_or(0);
        let recent: i64 = inner
            .recent
            .iter()
            .take_while(|(ts, _)| *ts <= read_ts)
            .filter_map(|(_, deltas)| deltas.get(&key))
            .sum();
        base + recent
    }
}

impl Store {
    /// Records the count deltas of the commit stamped at `commit_ts` (the
    /// caller holds the commit mutex), folding what no snapshot needs.
    pub(crate) fn apply_counts(
        &self,
        commit_ts: u64,
        deltas: impl IntoIterator<Item = (CountKey, i64)>,
    ) {
        let watermark = self.snapshots.watermark(|| self.visible_ts());
        self.counts.apply(commit_ts, deltas, watermark);
    }
}

impl CountsInner {
    fn fold(&mut self, watermark: u64) {
        while self.recent.front().is_some_and(|(ts, _)| *ts <= watermark) {
            let Some((ts, deltas)) = self.recent.pop_front() else {
                break;
            };
            for (key, delta) in deltas {
                let entry = self.base.entry(key).or_insert(0);
                *entry += delta;
                if *entry == 0 {
                    self.base.remove(&key);
                }
            }
            self.base_ts = ts;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use CountKey::{Label, Nodes};

    #[test]
    fn deltas_accumulate_per_label() {
        let counts = Counts::default();
        counts.apply(1, [(Nodes, 3), (Label(7), 2), (Label(8), 1)], 0);
        counts.apply(2, [(Nodes, -1), (Label(7), -1)], 0);
        assert_eq!(counts.latest(Nodes), 2);
        assert_eq!(counts.latest(Label(7)), 1);
        assert_eq!(counts.latest(Label(8)), 1);
        assert_eq!(counts.latest(Label(9)), 0);
    }

    #[test]
    fn each_snapshot_sees_the_commits_at_or_below_it() {
        let counts = Counts::default();
        counts.apply(1, [(Nodes, 5)], 0);
        counts.apply(2, [(Nodes, -2)], 0);
        counts.apply(3, [(Nodes, 10)], 0);
        assert_eq!(counts.at(Nodes, 0), 0);
        assert_eq!(counts.at(Nodes, 1), 5);
        assert_eq!(counts.at(Nodes, 2), 3);
        assert_eq!(counts.at(Nodes, 3), 13);
        assert_eq!(counts.at(Nodes, 99), 13);
    }

    #[test]
    fn folding_keeps_what_snapshots_above_the_watermark_read() {
        let counts = Counts::default();
        counts.apply(1, [(Nodes, 5)], 0);
        counts.apply(2, [(Nodes, 1)], 0);
        // The oldest live snapshot now reads at 2: commits 1 and 2 fold.
        counts.apply(3, [(Nodes, 1)], 2);
        assert_eq!(counts.inner.lock().recent.len(), 1);
        assert_eq!(counts.at(Nodes, 2), 6);
        assert_eq!(counts.at(Nodes, 3), 7);
    }

    #[test]
    fn batches_stamped_at_one_timestamp_merge() {
        let counts = Counts::default();
        counts.apply(4, [(Label(1), 2)], 0);
        counts.apply(4, [(Label(1), 3)], 0);
        assert_eq!(counts.inner.lock().recent.len(), 1);
        assert_eq!(counts.at(Label(1), 4), 5);
        assert_eq!(counts.at(Label(1), 3), 0);
    }
}
