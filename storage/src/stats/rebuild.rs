//! Rebuilding the statistics from a snapshot while writers continue.
//!
//! Under the commit mutex the rebuild picks `T` = the last stamped commit,
//! pins the published snapshot (which is at or below `T`, so garbage
//! collection keeps every version `T` can read) and turns on the journal.
//! It then scans REL_VP, REL_E and REL_EP at `T`, one partition at a time
//! (each partition read without a lock while its visible tuples are copied),
//! into fresh statistics. Finally, under the statistics lock, it applies the
//! journal (exactly the commits after `T`, which all stamped with the
//! journal on) and swaps the fresh statistics in. The result equals
//! statistics built from an empty store by every commit up to now, except
//! that the sketches forget values no longer present.

use super::{Statistics, TupleDelta};
use crate::mvcc::View;
use crate::relation::RelKind;
use crate::store::Store;

/// Unregisters the pinned snapshot however the rebuild ends.
struct Pinned<'s> {
    store: &'s Store,
    ts: u64,
}

impl Drop for Pinned<'_> {
    fn drop(&mut self) {
        self.store.snapshots.unregister(self.ts);
    }
}

impl Store {
    /// Recomputes the optimizer statistics (characteristic sets, sketches,
    /// relationship counts) from the current state; commits may run
    /// meanwhile. Costs one scan of every relation; meant for a background
    /// thread or an explicit request (incremental maintenance keeps them
    /// current otherwise, except for the sketches' memory of deleted values).
    pub fn rebuild_statistics(&self) {
        let _one_at_a_time = self.stats.rebuilding.lock();
        let (at, _pinned) = {
            let last = self.commit_lock.lock();
            let pinned = Pinned {
                store: self,
                ts: self.snapshots.register(|| self.visible_ts()),
            };
            self.stats.state.lock().journal = Some(Vec::new());
            (*last, pinned)
        };
        let view = View::committed(at);
        let mut fresh = Statistics::default();
        // REL_VP partition `p` and REL_E grid row `p` hold the same
        // subjects: applied as one batch, the set moves of a vertex met in
        // several runs (its REL_VP tuples, then each cell's edges) cancel
        // but for the last, so every vertex joins its set once.
        let p = self.vp.partitions();
        for part in 0..p {
            let mut deltas = self.visible_tuples(RelKind::Vp, part, view);
            for cell in part * p..(part + 1) * p {
                deltas.extend(self.visible_tuples(RelKind::E, cell, view));
            }
            fresh.apply(&deltas);
        }
        for cell in 0..self.ep.partitions() {
            fresh.apply(&self.visible_tuples(RelKind::Ep, cell, view));
        }
        let mut state = self.stats.state.lock();
        if let Some(journal) = state.journal.take() {
            fresh.apply(&journal);
        }
        state.current = fresh;
        self.stats.publish_bytes(&state.current);
    }

    /// The tuples of one partition visible in `view`, copied.
    fn visible_tuples(&self, kind: RelKind, part: usize, view: View) -> Vec<TupleDelta> {
        match self.relation(kind).read(part) {
            Some(partition) => partition
                .scan()
                .filter(|(_, t)| t.visible(&view))
                .map(|(_, t)| TupleDelta {
                    kind,
                    s: t.s,
                    p: t.p,
                    o: t.o,
                    delta: 1,
                })
                .collect(),
            None => Vec::new(),
        }
    }
}
