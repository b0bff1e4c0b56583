//! A key's S list narrowed to the wanted types before any tuple is read.
//!
//! A typed expand asks for a few of a node's relationships: a person's
//! `WORK_AT` (one or two) or `KNOWS` (a handful) beside tens of `LIKES`
//! and `HAS_INTEREST`. Listing the whole S list and testing each tuple's P
//! (or its zone's one P) costs a pass over every position of the node. In
//! an ordered S index (edges by source, module `list_arena`) the list's
//! prefix is sorted by (P, O), so the wanted types are one stretch of it,
//! found by two binary searches; only the unsorted tail of later appends
//! is still listed whole. A probe's P comes from its zone's one P when the
//! zone has one (a bulk-loaded cell is ordered by P, so most zones do),
//! else from the tuple: no tuple column is read for most probes.

use super::{type_allows, Partition};
use crate::list_arena::Positions;
use crate::relation::zone::{split, Tuple};
use crate::relation::zones::{ZonesNow, MIXED_TYPES};

/// Shorter sorted prefixes are listed whole: a scan of a few positions
/// costs less than two binary searches.
const NARROW_FROM: usize = 16;

impl Partition {
    /// Tuples whose S is `s` and P one of `types` (sorted, not empty), in
    /// list order: [`Partition::by_subject`] without listing the other
    /// types of a sorted prefix. Visibility is the caller's to check.
    pub(crate) fn by_subject_of_types<'a>(
        &'a self,
        s: u64,
        types: &'a [u32],
    ) -> impl Iterator<Item = (u32, Tuple<'a>)> + 'a {
        // Asked before the lookup (`SubjectIndex::lists_freed_slots`).
        let exact = self.subject_is();
        let (prefix, tail) = self.by_s.get_sorted(s, &self.zones);
        // After the lookup: the slot count then covers every listed
        // position (a tuple's slot is counted before it is indexed).
        let zones = self.zones_now();
        let narrowed = narrow_to_types(prefix, Some(types), zones);
        self.of_types(narrowed.chain(tail), types)
            .filter(move |(_, t)| exact(s, t))
    }

    /// Tuples whose O is the gui `o` and P one of `types`: the O list is
    /// not sorted, but a position in a zone of one other P throughout is
    /// passed over without reading its tuple.
    pub(crate) fn by_object_of_types<'a>(
        &'a self,
        o: u64,
        types: &'a [u32],
    ) -> impl Iterator<Item = (u32, Tuple<'a>)> + 'a {
        self.of_types(self.by_o.get(o), types)
            .filter(move |(_, t)| t.o.indexed_gui() == Some(o))
    }

    /// The listed tuples whose P is one of `types`, zones of one other P
    /// passed over unread.
    fn of_types<'a>(
        &'a self,
        list: impl Iterator<Item = u32> + 'a,
        types: &'a [u32],
    ) -> impl Iterator<Item = (u32, Tuple<'a>)> + 'a {
        let zones = self.zones_now();
        list.filter(move |&i| i < zones.len() && type_allows(zones.types(split(i).0), Some(types)))
            .filter_map(move |i| self.tuple_in(zones, i).map(|t| (i, t)))
            .filter(move |(_, t)| types.contains(&t.p))
    }
}

/// The stretch of a sorted prefix that may hold a tuple whose P is one of
/// `types` (from the first P at or above the least type to the last at or
/// below the greatest); the whole prefix for `None` or a short prefix.
/// Types between the least and the greatest that are not wanted stay in
/// the stretch: callers test each tuple's P as they did before.
pub(super) fn narrow_to_types<'a>(
    prefix: Positions<'a>,
    types: Option<&[u32]>,
    zones: ZonesNow<'_>,
) -> Positions<'a> {
    let Some(types) = types else {
        return prefix;
    };
    let (Some(&least), Some(&greatest)) = (types.iter().min(), types.iter().max()) else {
        return prefix;
    };
    if prefix.len() < NARROW_FROM {
        return prefix;
    }
    let predicate = |index: u32| {
        if index >= zones.len() {
            // Not reached when the zones were read after the list.
            return u32::MAX;
        }
        let (z, slot) = split(index);
        match zones.types(z) {
            MIXED_TYPES => zones.zone(z).predicate(slot),
            one => one,
        }
    };
    let from = prefix.seek(|i| predicate(i) < least);
    let past = from.clone().seek(|i| predicate(i) <= greatest);
    let keep = from.len() - past.len();
    from.split_at(keep).0
}

#[cfg(test)]
mod tests {
    use crate::ids::{make_gui, TAG_E, TAG_VERT};
    use crate::relation::tests::EDGE_KEYS;
    use crate::relation::zone::{Tuple, ZONE_TUPLES};
    use crate::relation::{Partition, Relation};
    use crate::typed_value::TypedValue;

    const TYPE_SETS: [&[u32]; 5] = [&[0], &[2], &[1, 3], &[0, 4], &[5]];

    fn vertex(n: u32) -> u64 {
        make_gui(TAG_VERT, 0, (n * 2) as u16)
    }

    /// The positions of the found tuples whose P is one of `types`, sorted.
    fn positions_of<'a>(found: impl Iterator<Item = (u32, Tuple<'a>)>, types: &[u32]) -> Vec<u32> {
        let mut positions: Vec<u32> = found
            .filter(|(_, t)| types.contains(&t.p))
            .map(|(i, _)| i)
            .collect();
        positions.sort_unstable();
        positions
    }

    /// The typed reads list exactly the tuples of the wanted types that
    /// the whole lists hold: by S and by O key by key, and by S batched (the batched probe may
    /// add other types, which its callers test; none are lost).
    fn assert_typed_reads_match_whole_lists(part: &Partition, keys: &[u64]) {
        for types in TYPE_SETS {
            let mut expected: Vec<(u64, u32)> = Vec::new();
            for &key in keys {
                let whole = positions_of(part.by_subject(key), types);
                let typed = positions_of(part.by_subject_of_types(key, types), types);
                assert_eq!(typed, whole, "key {key} types {types:?}");
                expected.extend(whole.iter().map(|&i| (key, i)));
                let whole_in = positions_of(part.by_object(key), types);
                let typed_in = positions_of(part.by_object_of_types(key, types), types);
                assert_eq!(typed_in, whole_in, "object {key} types {types:?}");
            }
            let mut batched: Vec<(u64, u32)> = Vec::new();
            let positions: std::collections::HashMap<u64, u32> = keys
                .iter()
                .flat_map(|&k| part.by_subject(k))
                .map(|(i, t)| (t.i, i))
                .collect();
            part.by_subjects(keys, Some(types), |key, t: Tuple<'_>| {
                if types.contains(&t.p) {
                    batched.push((key, positions[&t.i]));
                }
                true
            });
            batched.sort_unstable();
            expected.sort_unstable();
            assert_eq!(batched, expected, "types {types:?}");
        }
    }

    #[test]
    fn typed_reads_of_bulk_ordered_zones_list_the_wanted_types() {
        // Whole zones of one type each (as a bulk load orders a cell by
        // P), then appends of every type (mixed zones, unsorted tails).
        let rel = Relation::new(TAG_E, 2, EDGE_KEYS);
        for p in 0..5u32 {
            for slot in 0..ZONE_TUPLES as u32 {
                let o = TypedValue::vertex(vertex(slot % 13));
                rel.insert(0, vertex(slot % 20), p, o, None, 1).unwrap();
            }
        }
        for n in 0..600u32 {
            let o = TypedValue::vertex(vertex(n % 11));
            rel.insert(0, vertex(n % 23), n % 6, o, None, 1).unwrap();
        }
        let part = rel.read(0).unwrap();
        let keys: Vec<u64> = (0..25).map(vertex).collect();
        assert_typed_reads_match_whole_lists(&part, &keys);
    }

    proptest::proptest! {
        /// Through appends of random types and deletions collected by GC
        /// (freed slots reused), narrowed reads lose no tuple of a wanted
        /// type.
        #[test]
        fn typed_reads_list_the_wanted_types_of_random_lists(
            ops in proptest::collection::vec((0u8..10, 0u32..4, 0u32..6, 0u32..50), 1..400)
        ) {
            let rel = Relation::new(TAG_E, 2, EDGE_KEYS);
            let mut live: Vec<u32> = Vec::new();
            let mut ts = 1;
            for (op, s, p, o) in ops {
                if op < 9 || live.is_empty() {
                    let (index, _) = rel
                        .insert(0, vertex(s), p, TypedValue::vertex(vertex(o)), None, 1)
                        .unwrap();
                    live.push(index);
                } else {
                    let index = live.swap_remove(o as usize % live.len());
                    ts += 2;
                    rel.read(0).unwrap().tuple(index).unwrap().set_end(ts);
                    rel.collect(ts);
                }
            }
            let part = rel.read(0).unwrap();
            let keys: Vec<u64> = (0..5).map(vertex).collect();
            assert_typed_reads_match_whole_lists(&part, &keys);
        }
    }
}
