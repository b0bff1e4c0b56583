//! A dictionary's by-form index: the hash of a lexical form -> the number
//! of the record holding it (`crate::dictionary`).
//!
//! An open-addressing table with linear probing over one array of 8-byte
//! slots, each holding 32 bits of the form's hash (the *tag*) and the
//! record number + 1 (0 marks an empty slot). Why not a general hash table:
//! - a probe and an insert touch one cache line (the slot's), where a
//!   SwissTable touches its control bytes and then, in another line, the
//!   bucket; and because the line is computable from the hash alone, a
//!   bulk load prefetches it several forms ahead ([`FormTable::prefetch`]),
//!   so the misses of a run of new forms overlap instead of stalling each
//!   intern in turn;
//! - growing rehashes from the stored tags, without reading any form
//!   again (a table keyed by record numbers alone must re-hash every form,
//!   one random miss into the arena each);
//! - a tag mismatch rules a slot out without reading its record; equal
//!   tags (1 in 2^32 for different forms of one neighbourhood, less the
//!   bits the home slot already fixes) cost one record read to settle.
//!
//! The price is memory: 8 bytes per slot at a load of at most 3/4 (10.7
//! to 21 bytes per form, against ~5.7 to 11.4 for a SwissTable of `u32`).
//!
//! Invariants: every record appears in exactly one slot; a slot's home is
//! `tag & (slots - 1)` and no empty slot lies between a slot's home and the
//! slot (records are never removed, so probing stops at the first empty
//! slot); the slot count is 0 or a power of two, and `len * 4 <= slots * 3`.

use crate::prefetch;

/// Slots of the first allocation.
const MIN_SLOTS: usize = 16;

pub(crate) struct FormTable {
    /// `tag << 32 | (record + 1)`, or 0.
    slots: Box<[u64]>,
    len: usize,
}

/// The stored bits of a form's hash; their low bits pick the home slot.
#[inline]
fn tag(hash: u64) -> u32 {
    (hash >> 32) as u32
}

impl FormTable {
    pub(crate) fn new() -> Self {
        FormTable {
            slots: Box::new([]),
            len: 0,
        }
    }

    /// Bytes of its slots (memory accounting).
    pub(crate) fn bytes(&self) -> usize {
        self.slots.len() * size_of::<u64>()
    }

    #[inline]
    fn mask(&self) -> usize {
        self.slots.len().wrapping_sub(1)
    }

    /// The record filed under `hash` for which `is(record)` holds.
    #[inline]
    pub(crate) fn find(&self, hash: u64, mut is: impl FnMut(u32) -> bool) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let (tag, mask) = (tag(hash), self.mask());
        let mut i = tag as usize & mask;
        loop {
            let slot = self.slots[i];
            if slot == 0 {
                return None;
            }
            let record = (slot as u32).wrapping_sub(1);
            if (slot >> 32) as u32 == tag && is(record) {
                return Some(record);
            }
            i = (i + 1) & mask;
        }
    }

    /// Files `record` under `hash`; the caller checked that its form is not
    /// filed yet. `record` is below `u32::MAX`.
    pub(crate) fn insert(&mut self, hash: u64, record: u32) {
        debug_assert!(record < u32::MAX);
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            self.grow_to((self.slots.len() * 2).max(MIN_SLOTS));
        }
        place(
            &mut self.slots,
            u64::from(tag(hash)) << 32 | u64::from(record + 1),
        );
        self.len += 1;
    }

    /// Makes room for `additional` more records without growing.
    pub(crate) fn reserve(&mut self, additional: usize) {
        let needed = self.len.saturating_add(additional);
        if needed.saturating_mul(4) > self.slots.len() * 3 {
            let slots = (needed.saturating_mul(4) / 3 + 1).next_power_of_two();
            self.grow_to(slots.max(MIN_SLOTS));
        }
    }

    /// Prefetches the line a probe for `hash` reads first.
    #[inline]
    pub(crate) fn prefetch(&self, hash: u64) {
        if let Some(slot) = self.slots.get(tag(hash) as usize & self.mask()) {
            prefetch::line(slot);
        }
    }

    /// Moves every slot into a table of `slots` slots (a power of two).
    fn grow_to(&mut self, slots: usize) {
        let mut grown = vec![0u64; slots].into_boxed_slice();
        for &slot in self.slots.iter().filter(|&&slot| slot != 0) {
            place(&mut grown, slot);
        }
        self.slots = grown;
    }
}

/// Writes `slot` into the first empty slot from its home on.
#[inline]
fn place(slots: &mut [u64], slot: u64) {
    let mask = slots.len() - 1;
    let mut i = (slot >> 32) as usize & mask;
    while slots[i] != 0 {
        i = (i + 1) & mask;
    }
    slots[i] = slot;
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The table finds exactly what was filed, whatever the hashes
        /// (few distinct hashes force long probe runs and equal tags).
        #[test]
        fn finds_exactly_the_filed_records(
            hashes in proptest::collection::vec(
                prop_oneof![0u64..8, any::<u64>(), (0u64..4).prop_map(|h| h << 32)],
                0..600,
            ),
            reserve in 0usize..1000,
        ) {
            let mut table = FormTable::new();
            table.reserve(reserve);
            // Record r holds "form" r; its hash is hashes[r].
            for (r, &hash) in hashes.iter().enumerate() {
                prop_assert_eq!(table.find(hash, |x| x as usize == r), None);
                table.insert(hash, r as u32);
            }
            prop_assert!(table.len * 4 <= table.slots.len() * 3);
            for (r, &hash) in hashes.iter().enumerate() {
                prop_assert_eq!(table.find(hash, |x| x as usize == r), Some(r as u32));
                table.prefetch(hash);
            }
            prop_assert_eq!(table.find(12345, |_| true).is_some(),
                hashes.iter().any(|&h| tag(h) == tag(12345)));
        }
    }

    #[test]
    fn an_empty_table_finds_nothing() {
        let table = FormTable::new();
        assert_eq!(table.find(7, |_| true), None);
        table.prefetch(7);
    }
}
