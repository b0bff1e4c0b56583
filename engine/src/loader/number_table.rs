//! Vertex positions by numeric id, for the parse workers resolving a
//! load's relationship ends (`id_index.rs`).
//!
//! Why not a `HashMap<u64, usize>`: the lookups are random over a table
//! of megabytes, so each costs its cache misses, and a hashbrown map
//! keeps its control bytes apart from its entries (two misses per
//! lookup). Here a slot holds the id and its position together, probed
//! linearly in a table at most half full: a lookup mostly reads one
//! cache line. On SNB these lookups were close to half of the parse
//! workers' samples (benches/RESULTS.md).

/// An empty slot's key: no canonical decimal id is this large (they
/// have at most 19 digits, `id_index::canonical_number`).
const EMPTY: u64 = u64::MAX;

/// Slots in the smallest table.
const MIN_SLOTS: usize = 16;

/// Positions by id, ids below [`EMPTY`].
pub(super) struct NumberTable {
    slots: Vec<(u64, usize)>,
    len: usize,
}

impl Default for NumberTable {
    fn default() -> Self {
        NumberTable {
            slots: vec![(EMPTY, 0); MIN_SLOTS],
            len: 0,
        }
    }
}

impl NumberTable {
    /// The slot `id` starts its probe at: Fibonacci hashing (the
    /// multiply spreads ids that differ in any bits over the high bits
    /// the table's size takes).
    fn home(&self, id: u64) -> usize {
        let bits = self.slots.len().trailing_zeros();
        (id.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - bits)) as usize
    }

    /// The position of `id`, if recorded.
    /// Asks for the cache line of `id`'s home slot, where [`Self::get`]
    /// starts: a parse worker names it a few rows ahead, so the probes'
    /// misses overlap instead of stalling one after the other.
    pub(super) fn prefetch(&self, id: u64) {
        nereid_storage::prefetch_line(&self.slots[self.home(id)]);
    }

    pub(super) fn get(&self, id: u64) -> Option<usize> {
        let mask = self.slots.len() - 1;
        let mut at = self.home(id);
        loop {
            let (key, position) = self.slots[at];
            if key == id {
                return Some(position);
            }
            if key == EMPTY {
                return None;
            }
            at = (at + 1) & mask;
        }
    }

    /// Records `id` at `position`; false (nothing changed) when `id` is
    /// already recorded. `id` must be below [`EMPTY`].
    pub(super) fn insert(&mut self, id: u64, position: usize) -> bool {
        debug_assert!(id != EMPTY);
        if (self.len + 1) * 2 > self.slots.len() {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut at = self.home(id);
        loop {
            let slot = &mut self.slots[at];
            if slot.0 == id {
                return false;
            }
            if slot.0 == EMPTY {
                *slot = (id, position);
                self.len += 1;
                return true;
            }
            at = (at + 1) & mask;
        }
    }

    /// The ids recorded.
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// The recorded ids and their positions, in no order.
    pub(super) fn iter(&self) -> impl Iterator<Item = (u64, usize)> + '_ {
        self.slots.iter().copied().filter(|(id, _)| *id != EMPTY)
    }

    /// Makes room for `more` ids without regrowing: a load knows each
    /// node file's rows before it indexes them, and every doubling of a
    /// table of megabytes writes (faults in, zeroes) a fresh one.
    pub(super) fn reserve(&mut self, more: usize) {
        let slots = ((self.len + more) * 2).next_power_of_two();
        if slots > self.slots.len() {
            self.resize(slots);
        }
    }

    fn grow(&mut self) {
        self.resize(self.slots.len() * 2);
    }

    fn resize(&mut self, slots: usize) {
        let resized = vec![(EMPTY, 0); slots];
        let old = std::mem::replace(&mut self.slots, resized);
        self.len = 0;
        for (id, position) in old {
            if id != EMPTY {
                self.insert(id, position);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn answers_as_a_map_does() {
        let mut table = NumberTable::default();
        let mut map = HashMap::new();
        // Sparse, clustered and repeated ids, as SNB's and generated ones.
        let ids = (0..5000u64)
            .map(|i| i * 1_099_511_627_776 + (i % 7))
            .chain((0..3000).map(|i| i * 3))
            .chain([0, 9_999_999_999_999_999_999, 42, 42]);
        for (position, id) in ids.enumerate() {
            let fresh = !map.contains_key(&id);
            assert_eq!(table.insert(id, position), fresh, "id {id}");
            map.entry(id).or_insert(position);
        }
        for (&id, &position) in &map {
            assert_eq!(table.get(id), Some(position));
        }
        for absent in [1, 5, 7_000_000, 9_999_999_999_999_999_998] {
            assert_eq!(table.get(absent), map.get(&absent).copied());
        }
    }

    #[test]
    fn a_reserved_table_keeps_its_ids_and_does_not_regrow() {
        let mut table = NumberTable::default();
        for id in 0..10u64 {
            assert!(table.insert(id * 977, id as usize));
        }
        table.reserve(1000);
        let slots = table.slots.len();
        assert!(slots >= 2 * 1010, "{slots} slots");
        for id in 10..1010u64 {
            assert!(table.insert(id * 977, id as usize));
        }
        assert_eq!(table.slots.len(), slots);
        for id in 0..1010u64 {
            assert_eq!(table.get(id * 977), Some(id as usize));
        }
        assert!(!table.insert(977, 0));
        assert_eq!(table.get(978), None);
    }
}
