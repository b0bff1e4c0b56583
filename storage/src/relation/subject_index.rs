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
//! from the zones (once; O(tuples)), *before* that tuple is written.
//!
//! Readers use both forms without a lock (module `pinned`). The explicit
//! form is published once; a reader that searched the sorted form checks
//! for it afterwards, behind an acquire fence, and searches it instead if
//! it appeared: a write that broke the order (which a search may have
//! read) comes after the switch and after a release fence (`Partition::push`),
//! so a reader that read it sees the switch.
//!
//! Invariants of the sorted form (while the explicit one is unset):
//! - `S(slot)` is non-decreasing over slots `0..len`, freed slots included
//!   (a freed slot keeps the S it had; slots are never rewritten in this
//!   form, since reusing one converts the index first);
//! - `firsts[z]` is `S(z * ZONE_TUPLES)` for every zone below `count`,
//!   stored before `count` covers it, and `last` is the largest S;
//! - a run may hold freed slots: callers skip them, as they skip tuples
//!   that are not visible.

use super::zone::{split, Zone, ZONE_TUPLES};
use super::zones::Zones;
use crate::adjacency::{AdjacencyIndex, KeyKind};
use crate::atomic_pages::AtomicPages;
use crate::list_arena::{lower_bound, Positions};
use crate::pinned;
use std::ops::Range;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::atomic::{fence, AtomicU64, AtomicUsize};
use std::sync::OnceLock;

pub(super) struct SubjectIndex {
    /// The implicit form, while `listed` is unset.
    sorted: SortedRuns,
    listed: OnceLock<AdjacencyIndex>,
}

struct SortedRuns {
    firsts: AtomicPages<u64, 512>,
    /// Zones with a first subject.
    count: AtomicUsize,
    last: AtomicU64,
    /// Distinct subjects appended (freed ones still count).
    keys: AtomicUsize,
}

/// A partition's zones as the S index reads them: the slot count and a
/// zone by number (the writer's plain copy, or a reader's `ZonesNow`).
pub(super) trait ZoneAccess {
    fn len(&self) -> u32;
    fn zone(&self, z: usize) -> &Zone;
}

impl SubjectIndex {
    /// The implicit form for keys that come in order (statement ids), the
    /// explicit one otherwise, its lists keeping a prefix sorted by (P, O)
    /// when `sorted`.
    pub(super) fn new(kind: KeyKind, sorted: bool) -> Self {
        let index = SubjectIndex {
            sorted: SortedRuns {
                firsts: AtomicPages::new(0),
                count: AtomicUsize::new(0),
                last: AtomicU64::new(0),
                keys: AtomicUsize::new(0),
            },
            listed: OnceLock::new(),
        };
        match kind {
            KeyKind::Statement => {}
            kind if sorted => {
                let _ = index.listed.set(AdjacencyIndex::new_ordered(kind));
            }
            kind => {
                let _ = index.listed.set(AdjacencyIndex::new(kind));
            }
        }
        index
    }

    /// Bytes of whichever form it keeps (memory accounting).
    pub(super) fn bytes(&self) -> usize {
        self.sorted.firsts.bytes() + self.listed.get().map_or(0, AdjacencyIndex::bytes)
    }

    /// Called before a tuple with subject `s` is written into a new slot
    /// (`appended`) or a reused one (writer only): switches to the
    /// explicit form, built from `zones`, when the sorted form cannot take
    /// it.
    pub(super) fn prepare(&self, s: u64, appended: bool, zones: &impl ZoneAccess) {
        if self.listed.get().is_some() {
            return;
        }
        let runs = &self.sorted;
        let count = runs.count.load(Relaxed);
        if !(appended && (count == 0 || s >= runs.last.load(Relaxed))) {
            let _ = self.listed.set(listed(zones));
        }
    }

    /// Indexes the tuple just written at `index` with subject `s` (writer
    /// only, after [`SubjectIndex::prepare`]); `zones` are the partition's
    /// after the write.
    pub(super) fn push(&self, s: u64, index: u32, zones: &impl ZoneAccess) {
        match self.listed.get() {
            Some(listed) if listed.is_ordered() => {
                listed.push_ordered(s, index, |position| order_key(zones, position));
            }
            Some(listed) => listed.push(s, index),
            None => {
                let runs = &self.sorted;
                let count = runs.count.load(Relaxed);
                if count == 0 || runs.last.load(Relaxed) != s {
                    pinned::add(&runs.keys, 1);
                }
                runs.last.store(s, Release);
                if (index as usize).is_multiple_of(ZONE_TUPLES) {
                    runs.firsts.set(index as usize / ZONE_TUPLES, s);
                    runs.count.store(count + 1, Release);
                }
            }
        }
    }

    /// Forgets the `(subject, index)` pairs of `gone` (garbage collection;
    /// writer only). The sorted form keeps freed slots in its runs.
    pub(super) fn remove_all(&self, gone: &mut [(u64, u32)]) {
        if let Some(listed) = self.listed.get() {
            listed.remove_all(gone);
        }
    }

    /// The positions listed for `s` (callers check the exact key, and skip
    /// freed slots when [`SubjectIndex::lists_freed_slots`] said so before).
    pub(super) fn get<'a>(&'a self, s: u64, zones: &Zones) -> Positions<'a> {
        if let Some(listed) = self.listed.get() {
            return listed.get(s);
        }
        let run = self.sorted.run(s, &zones.now(pinned::assumed()));
        fence(Acquire);
        match self.listed.get() {
            Some(listed) => listed.get(s),
            None => Positions::Run(run),
        }
    }

    /// [`SubjectIndex::get`] as a prefix sorted by (P, O) and an unsorted
    /// tail (the sorted form's runs count as all tail: they are ordered by
    /// slot; an unordered index's lists are all tail too).
    pub(super) fn get_sorted<'a>(
        &'a self,
        s: u64,
        zones: &Zones,
    ) -> (Positions<'a>, Positions<'a>) {
        if let Some(listed) = self.listed.get() {
            return Self::split(listed, s);
        }
        let run = self.sorted.run(s, &zones.now(pinned::assumed()));
        fence(Acquire);
        match self.listed.get() {
            Some(listed) => Self::split(listed, s),
            None => (Positions::NONE, Positions::Run(run)),
        }
    }

    fn split(listed: &AdjacencyIndex, s: u64) -> (Positions<'_>, Positions<'_>) {
        if listed.is_ordered() {
            listed.get_sorted(s)
        } else {
            (Positions::NONE, listed.get(s))
        }
    }

    /// Prefetches what [`SubjectIndex::get`] reads first for `s` (the
    /// sorted form's zone firsts are few and stay cached).
    #[inline]
    pub(super) fn prefetch(&self, s: u64) {
        if let Some(listed) = self.listed.get() {
            listed.prefetch(s);
        }
    }

    /// True when [`SubjectIndex::get`] may list freed slots (the sorted
    /// form), which callers must then skip. Asked before `get`: once false
    /// it stays false.
    #[inline]
    pub(super) fn lists_freed_slots(&self) -> bool {
        self.listed.get().is_none()
    }

    /// Number of distinct subjects (the sorted form also counts subjects
    /// whose tuples were all collected since).
    pub(super) fn keys(&self) -> usize {
        match self.listed.get() {
            Some(listed) => listed.keys(),
            None => self.sorted.keys.load(Relaxed),
        }
    }

    /// Gives back the explicit form's slack (writer only).
    pub(super) fn shrink(&self) {
        if let Some(listed) = self.listed.get() {
            listed.shrink();
        }
    }

    #[cfg(test)]
    pub(super) fn is_sorted_form(&self) -> bool {
        self.listed.get().is_none()
    }
}

impl SortedRuns {
    /// The slots whose S is `s`: a binary search over the zones' first
    /// subjects, then over one zone's S column, then forward while equal.
    fn run(&self, s: u64, zones: &impl ZoneAccess) -> Range<u32> {
        let guard = pinned::assumed();
        let count = self.count.load(Acquire);
        if count == 0 {
            return 0..0;
        }
        let last = self.last.load(Acquire);
        let len = zones.len();
        let first = |z: usize| self.firsts.get(z, guard).unwrap_or(u64::MAX);
        if s < first(0) || s > last {
            return 0..0;
        }
        let subject = |index: u32| {
            let (z, slot) = split(index);
            zones.zone(z).subject(slot)
        };
        // Zones before `z` start below `s`; the run starts in zone `z - 1`
        // or at the start of zone `z`.
        let z = lower_bound(0..count, |z| first(z) < s);
        let from = z.saturating_sub(1) * ZONE_TUPLES;
        let to = (z * ZONE_TUPLES).min(len as usize);
        let lo = lower_bound(from..to, |index| subject(index as u32) < s) as u32;
        let mut end = lo;
        while end < len && subject(end) == s {
            end += 1;
        }
        lo..end
    }
}

/// The order of an ordered S list: the tuple's (P, O payload). O is one
/// type throughout the relations that keep it (vertex guis of edges).
pub(super) fn order_key(zones: &impl ZoneAccess, position: u32) -> (u32, u64) {
    let (z, slot) = split(position);
    let zone = zones.zone(z);
    (zone.predicate(slot), zone.object(slot))
}

/// The explicit index of the partition's live slots, in slot order.
fn listed(zones: &impl ZoneAccess) -> AdjacencyIndex {
    let index = AdjacencyIndex::new(KeyKind::Statement);
    for i in 0..zones.len() {
        let (z, slot) = split(i);
        let zone = zones.zone(z);
        if !zone.is_freed(slot) {
            index.push(zone.subject(slot), i);
        }
    }
    index.shrink();
    index
}
