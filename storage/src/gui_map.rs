//! A map from guis to non-zero `u32`s in a direct-access array: a
//! dictionary's gui -> entry number (`crate::dictionary`) and the
//! statistics' vertex -> profile id (`crate::stats`).
//!
//! A gui is `tag | counter | hash16` and counters are dense per hash bucket
//! (`crate::dictionary`), so `counter << 16 | hash` numbers one tag's guis
//! densely from 0 — the same observation the adjacency indexes use per
//! partition (`crate::adjacency`); here the number keeps all 16 hash bits.
//! The array is cut into pages allocated on first write, so a small map
//! pays a few pages and a large one about `(max counter + 1) * 65536 * 4`
//! bytes: with `n` guis the counters reach a little above `n / 65536`, i.e.
//! ~8-10 bytes per gui at 1M, what a hash table costs too, but a lookup is
//! one cache miss (no control bytes, no hashing, no rehash as it grows).
//!
//! Guis outside that layout (another tag, reserved bits set, or a counter too
//! large to number densely without a huge page table) go to a hash map, so
//! every u64 is handled exactly; only the memory cost differs.
//!
//! Invariant: a gui without a value reads 0 (`get`), and `len` counts the
//! guis with a non-zero value.

use crate::ids::split_gui;
use crate::paged::PagedVec;
use foldhash::fast::FixedState;
use std::collections::HashMap;

/// Slots per page: 4096 ids, 16 KiB.
pub(crate) const PAGE_SLOTS: usize = 1 << 12;
/// Counters at or above this go to the hash map: it bounds the page table to
/// `DENSE_COUNTERS * 65536 / PAGE_SLOTS` entries (512 KiB of pointers)
/// whatever gui arrives, while 2^28 vertices still number densely.
const DENSE_COUNTERS: u32 = 1 << 12;

/// The dense number of a gui of `tag` (`counter << 16 | hash`), when it
/// has one: the layout every direct-access map over guis shares (this one
/// and the dictionary's lock-free slots).
#[inline]
pub(crate) fn dense_number(tag: u8, gui: u64) -> Option<usize> {
    match split_gui(gui) {
        Some((t, counter, hash)) if t == tag && counter < DENSE_COUNTERS => {
            Some(((counter as usize) << 16) | hash as usize)
        }
        _ => None,
    }
}

/// Gui of one tag -> `u32` (0: none).
#[derive(Clone, Debug)]
pub(crate) struct GuiMap {
    /// The tag whose guis number densely.
    tag: u8,
    pages: PagedVec<u32, PAGE_SLOTS>,
    overflow: HashMap<u64, u32, FixedState>,
    len: usize,
}

impl GuiMap {
    pub(crate) fn new(tag: u8) -> Self {
        GuiMap {
            tag,
            pages: PagedVec::new(0),
            overflow: HashMap::default(),
            len: 0,
        }
    }

    /// The dense number of `gui`, when it has one.
    #[inline]
    fn dense_slot(&self, gui: u64) -> Option<usize> {
        dense_number(self.tag, gui)
    }

    /// The value of `gui`, 0 when it has none.
    #[inline]
    pub(crate) fn get(&self, gui: u64) -> u32 {
        match self.dense_slot(gui) {
            Some(slot) => self.pages.get(slot).copied().unwrap_or(0),
            None => self.overflow.get(&gui).copied().unwrap_or(0),
        }
    }

    /// Starts loading the slot of `gui` into the cache (a later `get` or
    /// `set` of it then need not wait for memory).
    pub(crate) fn prefetch(&self, gui: u64) {
        if let Some(slot) = self.dense_slot(gui) {
            self.pages.prefetch(slot);
        }
    }

    /// Sets the value of `gui` (0 removes it).
    pub(crate) fn set(&mut self, gui: u64, id: u32) {
        let old = match self.dense_slot(gui) {
            // Clearing a slot whose page was never written allocates nothing.
            Some(slot) if id == 0 => match self.pages.get_mut(slot) {
                Some(entry) => std::mem::replace(entry, 0),
                None => return,
            },
            Some(slot) => std::mem::replace(self.pages.entry(slot), id),
            None if id == 0 => self.overflow.remove(&gui).unwrap_or(0),
            None => self.overflow.insert(gui, id).unwrap_or(0),
        };
        match (old != 0, id != 0) {
            (false, true) => self.len += 1,
            (true, false) => self.len -= 1,
            _ => {}
        }
    }

    /// Bytes of its pages and overflow map (memory accounting, O(1)).
    pub(crate) fn bytes(&self) -> usize {
        self.pages.bytes() + self.overflow.capacity() * size_of::<(u64, u32)>()
    }

    /// Number of guis with a value.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{make_gui, TAG_LIT, TAG_VERT};

    #[test]
    fn dense_and_overflow_guis_round_trip() {
        let mut ids = GuiMap::new(TAG_VERT);
        let dense = make_gui(TAG_VERT, 3, 0xbeef);
        let same_hash = make_gui(TAG_VERT, 4, 0xbeef);
        let big_counter = make_gui(TAG_VERT, DENSE_COUNTERS, 0xbeef);
        let other_tag = make_gui(TAG_LIT, 3, 0xbeef);
        let reserved_bits = dense | (1 << 50);
        for (n, gui) in [dense, same_hash, big_counter, other_tag, reserved_bits]
            .into_iter()
            .enumerate()
        {
            ids.set(gui, n as u32 + 1);
        }
        assert_eq!(ids.len(), 5);
        assert_eq!(ids.get(dense), 1);
        assert_eq!(ids.get(same_hash), 2);
        assert_eq!(ids.get(big_counter), 3);
        assert_eq!(ids.get(other_tag), 4);
        assert_eq!(ids.get(reserved_bits), 5);
        assert_eq!(ids.overflow.len(), 3);

        ids.set(dense, 0);
        ids.set(other_tag, 0);
        ids.set(other_tag, 0);
        assert_eq!(ids.len(), 3);
        assert_eq!(ids.get(dense), 0);
        assert_eq!(ids.get(other_tag), 0);
        assert_eq!(ids.get(same_hash), 2);
    }

    #[test]
    fn clearing_an_unknown_vertex_allocates_nothing() {
        let mut ids = GuiMap::new(TAG_VERT);
        ids.set(make_gui(TAG_VERT, 100, 1), 0);
        assert_eq!(ids.pages.allocated_pages(), 0);
        assert_eq!(ids.len(), 0);
        assert_eq!(ids.get(make_gui(TAG_VERT, 100, 1)), 0);
    }

    #[test]
    fn every_counter_and_hash_gets_its_own_slot() {
        let ids = GuiMap::new(TAG_VERT);
        let mut seen = std::collections::HashSet::new();
        for counter in [0, 1, 2, DENSE_COUNTERS - 1] {
            for hash in [0u16, 1, 0x7fff, 0xffff] {
                assert!(seen.insert(ids.dense_slot(make_gui(TAG_VERT, counter, hash))));
            }
        }
    }
}
