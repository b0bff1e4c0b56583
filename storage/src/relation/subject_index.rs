//! A partition's S index, with an implicit form for subjects that arrive
//! in order.
//!
//! REL_EP's subjects are the statement ids of edges, and edge properties
//! are appended in the order their edges were numbered (a bulk load writes
//! them edge by edge; a transaction creates an edge with its properties).
//! While every append keeps S ascending in slot order, the tuples of a key
//! are one run of slots found by binary search, and the index costs 8
//! bytes per zone (the S of its first slot) instead of a list head per key
//! (8 bytes per edge). The first append out of order, or the reuse of a
//! freed slot, turns the index into an explicit [`AdjacencyIndex`] built
//! from the zones (once; O(tuples)).
//!
//! Invariants of the sorted form:
//! - `S(slot)` is non-decreasing over slots `0..len`, freed slots included
//!   (a freed slot keeps the S it had; slots are never rewritten in this
//!   form, since reusing one converts the index first);
//! - `firsts[z]` is `S(z * ZONE_TUPLES)` for every zone holding a slot;
//! - a run may hold freed slots: callers skip them, as they skip tuples
//!   that are not visible.

use super::zone::{split, ZONE_TUPLES};
use super::zones::ZoneStore;
use crate::adjacency::{AdjacencyIndex, KeyKind};
use crate::list_arena::Positions;
use std::ops::Range;

pub(super) enum SubjectIndex {
    Sorted(SortedRuns),
    Listed(AdjacencyIndex),
}

#[derive(Default)]
pub(super) struct SortedRuns {
    firsts: Vec<u64>,
    last: Option<u64>,
    /// Distinct subjects appended (freed ones still count).
    keys: usize,
}

impl SubjectIndex {
    /// The implicit form for keys that come in order (statement ids), the
    /// explicit one otherwise, its lists keeping a prefix sorted by (P, O)
    /// when `sorted`.
    pub(super) fn new(kind: KeyKind, sorted: bool) -> Self {
        match kind {
            KeyKind::Statement => SubjectIndex::Sorted(SortedRuns::default()),
            kind if sorted => SubjectIndex::Listed(AdjacencyIndex::new_ordered(kind)),
            kind => SubjectIndex::Listed(AdjacencyIndex::new(kind)),
        }
    }

    /// Indexes the tuple just written at `index` with subject `s`, in a
    /// new slot (`appended`) or a reused one; `zones` are the partition's
    /// after the write (its writer holds the lock).
    pub(super) fn push(&mut self, s: u64, index: u32, appended: bool, zones: &ZoneStore) {
        match self {
            SubjectIndex::Sorted(runs) => {
                if appended && runs.last.is_none_or(|last| s >= last) {
                    if (index as usize).is_multiple_of(ZONE_TUPLES) {
                        runs.firsts.push(s);
                    }
                    if runs.last != Some(s) {
                        runs.keys += 1;
                    }
                    runs.last = Some(s);
                } else {
                    // The new tuple is already in its slot: the rebuild
                    // lists it with the others.
                    *self = SubjectIndex::Listed(listed(zones));
                }
            }
            SubjectIndex::Listed(listed) if listed.is_ordered() => {
                listed.push_ordered(s, index, |position| order_key(zones, position));
            }
            SubjectIndex::Listed(listed) => listed.push(s, index),
        }
    }

    /// Forgets `index` under `s` (garbage collection). The sorted form
    /// keeps the freed slot in its run.
    pub(super) fn remove(&mut self, s: u64, index: u32) {
        if let SubjectIndex::Listed(listed) = self {
            listed.remove(s, index);
        }
    }

    /// The positions listed for `s` (callers check the exact key, and skip
    /// freed slots when [`SubjectIndex::lists_freed_slots`]).
    pub(super) fn get<'a>(&'a self, s: u64, zones: &ZoneStore) -> Positions<'a> {
        match self {
            SubjectIndex::Sorted(runs) => Positions::Run(runs.run(s, zones)),
            SubjectIndex::Listed(listed) => listed.get(s),
        }
    }

    /// [`SubjectIndex::get`] as a prefix sorted by (P, O) and an unsorted
    /// tail (the sorted form's runs count as all tail: they are ordered by
    /// slot).
    pub(super) fn get_sorted<'a>(
        &'a self,
        s: u64,
        zones: &ZoneStore,
    ) -> (Positions<'a>, Positions<'a>) {
        match self {
            SubjectIndex::Sorted(runs) => (Positions::NONE, Positions::Run(runs.run(s, zones))),
            SubjectIndex::Listed(listed) => listed.get_sorted(s),
        }
    }

    /// Prefetches what [`SubjectIndex::get`] reads first for `s` (the
    /// sorted form's zone firsts are few and stay cached).
    #[inline]
    pub(super) fn prefetch(&self, s: u64) {
        if let SubjectIndex::Listed(listed) = self {
            listed.prefetch(s);
        }
    }

    /// True when [`SubjectIndex::get`] may list freed slots (the sorted
    /// form), which callers must then skip.
    #[inline]
    pub(super) fn lists_freed_slots(&self) -> bool {
        matches!(self, SubjectIndex::Sorted(_))
    }

    /// Number of distinct subjects (the sorted form also counts subjects
    /// whose tuples were all collected since).
    pub(super) fn keys(&self) -> usize {
        match self {
            SubjectIndex::Sorted(runs) => runs.keys,
            SubjectIndex::Listed(listed) => listed.keys(),
        }
    }

    pub(super) fn shrink(&mut self) {
        match self {
            SubjectIndex::Sorted(runs) => runs.firsts.shrink_to_fit(),
            SubjectIndex::Listed(listed) => listed.shrink(),
        }
    }

    #[cfg(test)]
    pub(super) fn is_sorted_form(&self) -> bool {
        matches!(self, SubjectIndex::Sorted(_))
    }
}

impl SortedRuns {
    /// The slots whose S is `s`: a binary search over the zones' first
    /// subjects, then over one zone's S column, then forward while equal.
    /// (The caller holds the partition's lock.)
    fn run(&self, s: u64, zones: &ZoneStore) -> Range<u32> {
        let len = zones.len();
        let (Some(&first), Some(last)) = (self.firsts.first(), self.last) else {
            return 0..0;
        };
        if s < first || s > last {
            return 0..0;
        }
        let subject = |index: u32| {
            let (z, slot) = split(index);
            zones.get(z).subject(slot)
        };
        // Zones before `z` start below `s`; the run starts in zone `z - 1`
        // or at the start of zone `z`.
        let z = self.firsts.partition_point(|&f| f < s);
        let mut lo = (z.saturating_sub(1) * ZONE_TUPLES) as u32;
        let mut hi = ((z * ZONE_TUPLES) as u32).min(len);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if subject(mid) < s {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        let mut end = lo;
        while end < len && subject(end) == s {
            end += 1;
        }
        lo..end
    }
}

/// The order of an ordered S list: the tuple's (P, O payload). O is one
/// type throughout the relations that keep it (vertex guis of edges).
pub(super) fn order_key(zones: &ZoneStore, position: u32) -> (u32, u64) {
    let (z, slot) = split(position);
    let zone = zones.get(z);
    (zone.predicate(slot), zone.object(slot))
}

/// The explicit index of the partition's live slots, in slot order.
fn listed(zones: &ZoneStore) -> AdjacencyIndex {
    let mut index = AdjacencyIndex::new(KeyKind::Statement);
    for i in 0..zones.len() {
        let (z, slot) = split(i);
        let zone = zones.get(z);
        if !zone.is_freed(slot) {
            index.push(zone.subject(slot), i);
        }
    }
    index.shrink();
    index
}
