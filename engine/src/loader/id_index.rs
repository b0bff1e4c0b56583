//! The positions of a CSV load's vertices by id space and id, for the
//! parse workers resolving relationship ends (docs/adr/0131-load-id-index.md).
//!
//! Why not a map of spelled keys: each end looked up that way was first
//! spelled (`(Person)933`, a copy), hashed whole and compared against a
//! key that lives in its node row (a second cache miss); on SNB that was
//! the largest cost of parsing the relationship files. Here an end finds
//! its id space among the load's few by comparing names, then its id:
//! an id in canonical decimal (SNB's, most generated ids) as a number in
//! a table of plain integers (`number_table.rs`), any other id by its text. A (space, id) pair
//! maps to one vertex key and back (`user_id.rs`), so this index answers
//! exactly what the map of keys did.

use std::collections::HashMap;

use nereid_loader_formats::canonical_decimal;

use super::bulk::{Fast, LoadKeys};
use super::number_table::NumberTable;

/// The load's vertices of one id space.
#[derive(Default)]
struct SpaceIds<'a> {
    numbers: NumberTable,
    texts: HashMap<&'a str, usize, Fast>,
}

/// Vertex positions by (id space, id), borrowing the node rows' keys.
#[derive(Default)]
pub(super) struct IdIndex<'a> {
    /// Each space by its key prefix (`(name)`; `` or `()` for the global
    /// space, see `user_id.rs`). Loads name a handful: a scan suffices.
    spaces: Vec<(&'a str, SpaceIds<'a>)>,
}

/// `id` as a number when it is one in canonical decimal (no sign, no
/// leading zero, fits 64 bits): such ids and their numbers correspond one
/// to one, so a lookup by number finds exactly the vertex of that text.
fn canonical_number(id: &str) -> Option<u64> {
    canonical_decimal(id.as_bytes())
}

/// Whether `prefix` is the key prefix `user_key` gives `id` of `space`.
fn prefix_is(prefix: &str, space: Option<&str>, id: &str) -> bool {
    match space {
        None if id.starts_with('(') => prefix == "()",
        None => prefix.is_empty(),
        Some(space) => {
            prefix.len() == space.len() + 2
                && prefix.starts_with('(')
                && prefix.ends_with(')')
                && &prefix[1..prefix.len() - 1] == space
        }
    }
}

impl<'a> IdIndex<'a> {
    /// The ids of the space whose keys start with `prefix`, added if new.
    fn space_mut(&mut self, prefix: &'a str) -> &mut SpaceIds<'a> {
        match self.spaces.iter().position(|(p, _)| *p == prefix) {
            Some(i) => &mut self.spaces[i].1,
            None => {
                self.spaces.push((prefix, SpaceIds::default()));
                &mut self.spaces.last_mut().expect("just pushed").1
            }
        }
    }

    /// Makes room for `more` ids like `id` (a file's first) in the space
    /// of `prefix`, so indexing a file whose rows are counted does not
    /// regrow its table. A hint: only numeric ids have a table to size,
    /// and a file that mixes spaces or forms reserved more than it uses.
    pub(super) fn reserve_like(&mut self, prefix: &'a str, id: &str, more: usize) {
        if canonical_number(id).is_some() {
            self.space_mut(prefix).numbers.reserve(more);
        }
    }

    /// Records the vertex at `at` whose key is `prefix` + `id`; false
    /// (nothing changed) when the load already has that key.
    pub(super) fn insert(&mut self, prefix: &'a str, id: &'a str, at: usize) -> bool {
        let space = self.space_mut(prefix);
        match canonical_number(id) {
            Some(n) => space.numbers.insert(n, at),
            None => space.texts.try_insert_or_keep(id, at),
        }
    }
}

impl IdIndex<'_> {
    fn space(&self, space: Option<&str>, id: &str) -> Option<&SpaceIds<'_>> {
        self.spaces
            .iter()
            .find(|(prefix, _)| prefix_is(prefix, space, id))
            .map(|(_, ids)| ids)
    }
}

impl LoadKeys for IdIndex<'_> {
    fn position(&self, space: Option<&str>, id: &str, _scratch: &mut String) -> Option<usize> {
        let ids = self.space(space, id)?;
        match canonical_number(id) {
            Some(n) => ids.numbers.get(n),
            None => ids.texts.get(id).copied(),
        }
    }

    fn prefetch(&self, space: Option<&str>, id: &str) {
        if let Some(n) = canonical_number(id) {
            self.prefetch_number(space, n);
        }
    }

    /// A number's spelling never opens with `(`, so its space is found as
    /// that of any such id (the empty one stands for them all).
    fn position_of_number(&self, space: Option<&str>, n: u64) -> Option<usize> {
        self.space(space, "")?.numbers.get(n)
    }

    fn prefetch_number(&self, space: Option<&str>, n: u64) {
        if let Some(ids) = self.space(space, "") {
            ids.numbers.prefetch(n);
        }
    }
}

/// `HashMap::insert` that keeps the first value (a repeated id is refused).
trait InsertOrKeep<K> {
    fn try_insert_or_keep(&mut self, key: K, at: usize) -> bool;
}

impl<K: std::hash::Hash + Eq> InsertOrKeep<K> for HashMap<K, usize, Fast> {
    fn try_insert_or_keep(&mut self, key: K, at: usize) -> bool {
        match self.entry(key) {
            std::collections::hash_map::Entry::Occupied(_) => false,
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(at);
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::user_id::user_key;
    use super::*;

    /// Every (space, id) pair finds the vertex whose spelled key is its
    /// own, and no other: the index answers as the map of keys did.
    #[test]
    fn finds_what_the_spelled_keys_find() {
        let pairs: Vec<(Option<&str>, &str)> = vec![
            (None, "1"),
            (None, "01"),
            (None, "a"),
            (None, "(P)1"),
            (Some("P"), "1"),
            (Some("P"), "01"),
            (Some("P"), "x"),
            (Some("Q"), "1"),
            (Some(""), "1"),
            (Some("P"), "(Q)1"),
        ];
        let keys: Vec<String> = pairs
            .iter()
            .map(|(space, id)| user_key(*space, id).unwrap())
            .collect();
        let mut index = IdIndex::default();
        for (at, ((_, id), key)) in pairs.iter().zip(&keys).enumerate() {
            let prefix = &key[..key.len() - id.len()];
            assert!(index.insert(prefix, &key[prefix.len()..], at));
            assert!(!index.insert(prefix, &key[prefix.len()..], at + 100));
        }
        let mut scratch = String::new();
        for (at, (space, id)) in pairs.iter().enumerate() {
            assert_eq!(index.position(*space, id, &mut scratch), Some(at));
            if let Some(n) = canonical_number(id) {
                assert_eq!(index.position_of_number(*space, n), Some(at), "{id}");
            }
        }
        for (space, id) in [
            (None, "2"),
            (Some("P"), "2"),
            (Some("R"), "1"),
            (None, "(R)1"),
        ] {
            assert_eq!(index.position(space, id, &mut scratch), None);
        }
        for (space, n) in [(None, 2), (Some("P"), 2), (Some("R"), 1), (Some(""), 2)] {
            assert_eq!(index.position_of_number(space, n), None);
        }
    }
}
