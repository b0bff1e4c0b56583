//! The list heads of an adjacency index whose keys are not dense (literal
//! guis in REL_VP's O column: labels and string values), by key.
//!
//! An open-addressing table with linear probing over one array of 16-byte
//! slots, each holding a key and its [`ListHead`]. Why not a general hash
//! table: the slot a key lives in or would go to is computable from the
//! key alone, so a bulk load prefetches it several tuples ahead
//! ([`HeadTable::prefetch`]) and the misses of a run of new string values
//! overlap instead of stalling each push in turn (a SwissTable reads its
//! control bytes, then the bucket, in another line).
//!
//! Keys come from stored strings, which clients choose: the home slot
//! comes from a hash seeded per table, so no fixed set of values collides
//! in every store.
//!
//! Readers probe without a lock while the one writer files keys (module
//! `pinned`): a slot is two atomic words, and a new key's word is stored
//! before its head, so a reader that sees a head sees its key. A key that
//! loses its list leaves a *tombstone* (its key, a head with no list) that
//! probes pass over: shifting later slots back, as a table with one user
//! would, could move a key past a reader's probe. The array never changes
//! size in place: the writer builds a larger one (dropping tombstones) and
//! swaps it in.
//!
//! Invariants: a slot's key never changes once its head is non-zero (a
//! tombstone is revived only by its own key); the slot count is 0 or a
//! power of two, and `used * 4 <= slots * 3` (`used`: live keys and
//! tombstones), so every probe meets an empty slot.

use crate::list_arena::ListHead;
use crate::pinned::{self, retire};
use crate::prefetch;
use crossbeam::epoch::{Atomic, Guard, Owned, Shared};
use std::hash::BuildHasher;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicU64, AtomicUsize};

/// Slots of the first allocation.
const MIN_SLOTS: usize = 16;

/// The head word of a tombstone: both flags of a list head, which no list
/// sets together, and no length.
const TOMBSTONE: u64 = ListHead::IMPOSSIBLE;

struct Slot {
    key: AtomicU64,
    /// [`ListHead::to_bits`]; 0 for an empty slot.
    head: AtomicU64,
}

struct Slots(Box<[Slot]>);

impl Slots {
    fn new(len: usize) -> Self {
        Slots(
            (0..len)
                .map(|_| Slot {
                    key: AtomicU64::new(0),
                    head: AtomicU64::new(0),
                })
                .collect(),
        )
    }
}

pub(crate) struct HeadTable {
    slots: Atomic<Slots>,
    /// Keys with a list (writer's count, read by estimates).
    len: AtomicUsize,
    /// Slots not empty: keys with a list and tombstones (writer only).
    used: AtomicUsize,
    state: foldhash::fast::RandomState,
}

impl Default for HeadTable {
    fn default() -> Self {
        HeadTable {
            slots: Atomic::null(),
            len: AtomicUsize::new(0),
            used: AtomicUsize::new(0),
            state: foldhash::fast::RandomState::default(),
        }
    }
}

/// Where a probe for a key ended.
enum Probe {
    /// The key's slot (with a list, or a tombstone).
    Found(usize, u64),
    /// The empty slot where it would go.
    Vacant(usize),
}

impl HeadTable {
    #[inline]
    fn slots<'g>(&self, guard: &'g Guard) -> &'g [Slot] {
        // SAFETY: a loaded array stays allocated while `guard` is pinned.
        unsafe { self.slots.load(Acquire, guard).as_ref() }.map_or(&[], |s| &s.0[..])
    }

    #[inline]
    fn home(&self, key: u64, slots: usize) -> usize {
        self.state.hash_one(key) as usize & slots.wrapping_sub(1)
    }

    #[inline]
    fn probe(&self, slots: &[Slot], key: u64) -> Probe {
        let mask = slots.len() - 1;
        let mut i = self.home(key, slots.len());
        loop {
            let slot = &slots[i];
            let head = slot.head.load(Acquire);
            if head == 0 {
                return Probe::Vacant(i);
            }
            if slot.key.load(Relaxed) == key {
                return Probe::Found(i, head);
            }
            i = (i + 1) & mask;
        }
    }

    /// The head of `key`, when it has a non-empty list.
    #[inline]
    pub(crate) fn get(&self, key: u64, guard: &Guard) -> Option<ListHead> {
        let slots = self.slots(guard);
        if slots.is_empty() {
            return None;
        }
        match self.probe(slots, key) {
            Probe::Found(_, head) if head != TOMBSTONE => Some(ListHead::from_bits(head)),
            _ => None,
        }
    }

    /// Starts loading the line of `key`'s home slot (where a lookup or an
    /// insert of it starts probing).
    #[inline]
    pub(crate) fn prefetch(&self, key: u64, guard: &Guard) {
        let slots = self.slots(guard);
        if !slots.is_empty() {
            prefetch::line(&slots[self.home(key, slots.len())]);
        }
    }

    /// Runs `f` on `key`'s head (an empty one when the key is new) and
    /// files the result (writer only): a new key is filed when `f` leaves
    /// its head non-empty, a filed key becomes a tombstone when `f` leaves
    /// it empty.
    pub(crate) fn update<T>(&self, key: u64, f: impl FnOnce(&mut ListHead) -> T) -> T {
        if (self.used.load(Relaxed) + 1) * 4 > self.slots(pinned::assumed()).len() * 3 {
            self.rebuild(self.len.load(Relaxed) + 1);
        }
        let slots = self.slots(pinned::assumed());
        match self.probe(slots, key) {
            Probe::Found(i, head) => self.update_at(&slots[i], head, f),
            Probe::Vacant(i) => {
                let mut head = ListHead::EMPTY;
                let out = f(&mut head);
                if head.len() != 0 {
                    slots[i].key.store(key, Relaxed);
                    slots[i].head.store(head.to_bits(), Release);
                    pinned::add(&self.len, 1);
                    pinned::add(&self.used, 1);
                }
                out
            }
        }
    }

    /// Runs `f` on `key`'s head if the key has a list (writer only; a
    /// head `f` leaves empty becomes a tombstone); `None` otherwise.
    pub(crate) fn update_existing<T>(
        &self,
        key: u64,
        f: impl FnOnce(&mut ListHead) -> T,
    ) -> Option<T> {
        let slots = self.slots(pinned::assumed());
        if slots.is_empty() {
            return None;
        }
        match self.probe(slots, key) {
            Probe::Found(i, head) if head != TOMBSTONE => Some(self.update_at(&slots[i], head, f)),
            _ => None,
        }
    }

    fn update_at<T>(&self, slot: &Slot, bits: u64, f: impl FnOnce(&mut ListHead) -> T) -> T {
        let was_live = bits != TOMBSTONE;
        let mut head = if was_live {
            ListHead::from_bits(bits)
        } else {
            ListHead::EMPTY
        };
        let out = f(&mut head);
        let live = head.len() != 0;
        slot.head
            .store(if live { head.to_bits() } else { TOMBSTONE }, Release);
        if live != was_live {
            pinned::add(&self.len, if live { 1 } else { -1 });
        }
        out
    }

    /// Every key with a list and its head (writer only).
    pub(crate) fn for_each(&self, mut f: impl FnMut(u64, ListHead)) {
        for slot in self.slots(pinned::assumed()) {
            let head = slot.head.load(Acquire);
            if head != 0 && head != TOMBSTONE {
                f(slot.key.load(Relaxed), ListHead::from_bits(head));
            }
        }
    }

    /// A table holding `self`'s keys with the heads `map` gives them
    /// (compaction of the lists' arena), sized for them.
    pub(crate) fn rebuilt(&self, map: impl FnMut(ListHead) -> ListHead) -> HeadTable {
        let len = self.len.load(Relaxed);
        let slots = if len == 0 {
            Atomic::null()
        } else {
            Atomic::new(self.refiled(Self::tight_size_for(len), map))
        };
        HeadTable {
            slots,
            len: AtomicUsize::new(len),
            used: AtomicUsize::new(len),
            state: self.state.clone(),
        }
    }

    /// The smallest power of two holding `len` keys within the load bound
    /// (a table after a bulk load, which may stay as it is).
    fn tight_size_for(len: usize) -> usize {
        (len * 4).div_ceil(3).next_power_of_two().max(MIN_SLOTS)
    }

    /// A power of two holding `len` keys at most half full.
    fn size_for(len: usize) -> usize {
        (len * 2).next_power_of_two().max(MIN_SLOTS)
    }

    /// A new array of `size` slots holding every key with a list, its head
    /// mapped by `map` (tombstones dropped).
    fn refiled(&self, size: usize, mut map: impl FnMut(ListHead) -> ListHead) -> Slots {
        let slots = Slots::new(size);
        self.for_each(|key, head| {
            if let Probe::Vacant(i) = self.probe(&slots.0, key) {
                slots.0[i].key.store(key, Relaxed);
                slots.0[i].head.store(map(head).to_bits(), Relaxed);
            }
        });
        slots
    }

    /// Refiles every key into a new array with room for `len` and swaps it
    /// in; the old array goes to the collector.
    fn rebuild(&self, len: usize) {
        let slots = self.refiled(Self::size_for(len), |head| head);
        let old = self
            .slots
            .swap(Owned::new(slots), AcqRel, pinned::assumed());
        self.used.store(self.len.load(Relaxed), Relaxed);
        // SAFETY: the old array is unreachable now and was boxed.
        unsafe { retire(old) };
    }

    /// Bytes of its slot array (memory accounting).
    pub(crate) fn bytes(&self) -> usize {
        size_of_val(self.slots(pinned::assumed()))
    }

    /// Keys with a list.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.len.load(Relaxed)
    }
}

impl Drop for HeadTable {
    fn drop(&mut self) {
        let guard = pinned::assumed();
        let slots = self.slots.swap(Shared::null(), Relaxed, guard);
        if !slots.is_null() {
            // SAFETY: `&mut self`: no reader is left; boxed by `Owned`.
            drop(unsafe { slots.into_owned() });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::list_arena::ListArena;
    use crossbeam::epoch;
    use proptest::prelude::*;
    use std::collections::HashMap;

    proptest! {
        /// Pushes and removals through the table agree with a map of
        /// vectors, keys drawn from a small range so that probe runs form,
        /// wrap around, fill with tombstones and get rebuilt.
        #[test]
        fn the_table_agrees_with_a_map(ops in proptest::collection::vec(
            (any::<bool>(), 0u64..48, 0u32..6),
            0..400,
        )) {
            let table = HeadTable::default();
            let arena = ListArena::default();
            let mut model: HashMap<u64, Vec<u32>> = HashMap::new();
            for (push, key, position) in ops {
                if push {
                    if model.get(&key).is_some_and(|list| list.contains(&position)) {
                        continue;
                    }
                    table.update(key, |head| arena.push(head, position));
                    model.entry(key).or_default().push(position);
                } else {
                    table.update_existing(key, |head| *head = arena.without(*head, &[position]));
                    if let Some(list) = model.get_mut(&key) {
                        list.retain(|&p| p != position);
                        if list.is_empty() {
                            model.remove(&key);
                        }
                    }
                }
                let guard = epoch::pin();
                prop_assert_eq!(table.len(), model.len());
                prop_assert!(table.used.load(Relaxed) * 4 <= table.slots(&guard).len() * 3);
                for key in 0..48 {
                    let listed: Vec<u32> = table
                        .get(key, &guard)
                        .map(|head| arena.get(&head, &guard).collect())
                        .unwrap_or_default();
                    let expected = model.get(&key).cloned().unwrap_or_default();
                    prop_assert_eq!(listed, expected);
                }
            }
            let rebuilt = table.rebuilt(|head| head);
            let guard = epoch::pin();
            for key in 0..48 {
                let listed: Vec<u32> = rebuilt.get(key, &guard).map(|h| arena.get(&h, &guard).collect()).unwrap_or_default();
                prop_assert_eq!(listed, model.get(&key).cloned().unwrap_or_default());
            }
        }
    }
}
