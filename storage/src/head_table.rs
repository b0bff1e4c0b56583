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
//! Invariants: a slot is occupied exactly when its head is not empty (a
//! head left empty is removed at once); no empty slot lies between an
//! occupied slot's home and the slot (removal shifts later slots back
//! instead of leaving tombstones); the slot count is 0 or a power of two,
//! and `len * 4 <= slots * 3`.

use crate::list_arena::ListHead;
use crate::prefetch;
use std::hash::BuildHasher;

/// Slots of the first allocation.
const MIN_SLOTS: usize = 16;

#[derive(Copy, Clone)]
struct Slot {
    key: u64,
    head: ListHead,
}

const EMPTY: Slot = Slot {
    key: 0,
    head: ListHead::EMPTY,
};

impl Slot {
    #[inline]
    fn is_empty(&self) -> bool {
        self.head.len() == 0
    }
}

pub(crate) struct HeadTable {
    slots: Box<[Slot]>,
    len: usize,
    state: foldhash::fast::RandomState,
}

impl Default for HeadTable {
    fn default() -> Self {
        HeadTable {
            slots: Box::new([]),
            len: 0,
            state: foldhash::fast::RandomState::default(),
        }
    }
}

impl HeadTable {
    #[inline]
    fn home(&self, key: u64) -> usize {
        self.state.hash_one(key) as usize & self.slots.len().wrapping_sub(1)
    }

    /// The slot holding `key`, or the empty slot where it would go.
    #[inline]
    fn find(&self, key: u64) -> Result<usize, usize> {
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            let slot = &self.slots[i];
            if slot.is_empty() {
                return Err(i);
            }
            if slot.key == key {
                return Ok(i);
            }
            i = (i + 1) & mask;
        }
    }

    /// The head of `key`, when it has a non-empty list.
    #[inline]
    pub(crate) fn get(&self, key: u64) -> Option<&ListHead> {
        if self.slots.is_empty() {
            return None;
        }
        self.find(key).ok().map(|i| &self.slots[i].head)
    }

    /// Starts loading the line of `key`'s home slot (where a lookup or an
    /// insert of it starts probing).
    #[inline]
    pub(crate) fn prefetch(&self, key: u64) {
        if !self.slots.is_empty() {
            prefetch::line(&self.slots[self.home(key)]);
        }
    }

    /// Runs `f` on `key`'s head (an empty one when the key is new) and
    /// keeps the result: the key is filed when `f` leaves the head
    /// non-empty and removed when it leaves it empty.
    pub(crate) fn update<T>(&mut self, key: u64, f: impl FnOnce(&mut ListHead) -> T) -> T {
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
        match self.find(key) {
            Ok(i) => self.update_at(i, f),
            Err(i) => {
                let mut head = ListHead::EMPTY;
                let out = f(&mut head);
                if head.len() != 0 {
                    self.slots[i] = Slot { key, head };
                    self.len += 1;
                }
                out
            }
        }
    }

    /// Runs `f` on `key`'s head if the key is filed (removing it when `f`
    /// leaves the head empty); `None` otherwise.
    pub(crate) fn update_existing<T>(
        &mut self,
        key: u64,
        f: impl FnOnce(&mut ListHead) -> T,
    ) -> Option<T> {
        if self.slots.is_empty() {
            return None;
        }
        let i = self.find(key).ok()?;
        Some(self.update_at(i, f))
    }

    /// Runs `f` on the head filed in slot `i`, removing it when `f` leaves
    /// it empty.
    fn update_at<T>(&mut self, i: usize, f: impl FnOnce(&mut ListHead) -> T) -> T {
        let out = f(&mut self.slots[i].head);
        if self.slots[i].is_empty() {
            self.remove_at(i);
        }
        out
    }

    /// Every filed head (for compaction of the lists' arena, which moves
    /// runs but never empties a head).
    pub(crate) fn heads_mut(&mut self) -> impl Iterator<Item = &mut ListHead> {
        self.slots
            .iter_mut()
            .filter(|slot| !slot.is_empty())
            .map(|slot| &mut slot.head)
    }

    /// Empties slot `i` and moves back the slots of its probe run that may
    /// sit closer to their home (backward-shift deletion).
    fn remove_at(&mut self, mut i: usize) {
        let mask = self.slots.len() - 1;
        self.slots[i] = EMPTY;
        self.len -= 1;
        let mut j = i;
        loop {
            j = (j + 1) & mask;
            if self.slots[j].is_empty() {
                return;
            }
            let home = self.home(self.slots[j].key);
            // The slot at `j` may move to `i` unless its home lies
            // cyclically in `(i, j]`.
            let stays = if i <= j {
                i < home && home <= j
            } else {
                i < home || home <= j
            };
            if !stays {
                self.slots[i] = self.slots[j];
                self.slots[j] = EMPTY;
                i = j;
            }
        }
    }

    fn grow(&mut self) {
        self.rehash((self.slots.len() * 2).max(MIN_SLOTS));
    }

    /// Refiles every head into a new array of `size` slots (a power of
    /// two holding them within the load bound).
    fn rehash(&mut self, size: usize) {
        let old = std::mem::replace(&mut self.slots, vec![EMPTY; size].into_boxed_slice());
        for slot in old.iter().filter(|slot| !slot.is_empty()) {
            if let Err(i) = self.find(slot.key) {
                self.slots[i] = *slot;
            }
        }
    }

    /// Gives back slack after a bulk load: halves the array while the
    /// filed heads still fit it within the load bound.
    pub(crate) fn shrink(&mut self) {
        let mut size = self.slots.len();
        while size > MIN_SLOTS && self.len * 4 <= (size / 2) * 3 {
            size /= 2;
        }
        if size < self.slots.len() {
            self.rehash(size);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::list_arena::ListArena;
    use proptest::prelude::*;
    use std::collections::HashMap;

    proptest! {
        /// Pushes and removals through the table agree with a map of
        /// vectors, keys drawn from a small range so that probe runs form,
        /// wrap around and get shifted back.
        #[test]
        fn the_table_agrees_with_a_map(ops in proptest::collection::vec(
            (any::<bool>(), 0u64..48, 0u32..6),
            0..400,
        )) {
            let mut table = HeadTable::default();
            let mut arena = ListArena::default();
            let mut model: HashMap<u64, Vec<u32>> = HashMap::new();
            for (push, key, position) in ops {
                if push {
                    table.update(key, |head| arena.push(head, position));
                    model.entry(key).or_default().push(position);
                } else {
                    table.update_existing(key, |head| arena.remove(head, position));
                    if let Some(list) = model.get_mut(&key) {
                        if let Some(at) = list.iter().position(|&p| p == position) {
                            list.remove(at);
                        }
                        if list.is_empty() {
                            model.remove(&key);
                        }
                    }
                }
                prop_assert_eq!(table.len, model.len());
                prop_assert!(table.len * 4 <= table.slots.len() * 3);
                for key in 0..48 {
                    let listed: Vec<u32> = table
                        .get(key)
                        .map(|head| arena.get(head).collect())
                        .unwrap_or_default();
                    let expected = model.get(&key).cloned().unwrap_or_default();
                    prop_assert_eq!(listed, expected);
                }
            }
            table.shrink();
            for (key, list) in &model {
                let listed: Vec<u32> = table.get(*key).map(|h| arena.get(h).collect()).unwrap();
                prop_assert_eq!(&listed, list);
            }
        }
    }
}
