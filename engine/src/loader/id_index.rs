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
//!
//! Why one index per node file, joined: indexing ~340 K ids on the
//! loader's thread between the node and the relationship files left the
//! other cores idle (docs/adr/0204-node-files-indexed-apart-then-joined.md).
//! Each file is indexed on its own by a worker, its positions counted
//! from its first row; joining the files' indexes in file order adopts a
//! space only one file has as it is (its positions offset by the rows
//! before it) and inserts a later file's ids into a space an earlier one
//! began, so the first of repeated ids is kept, in file order, as before.

use std::collections::HashMap;

use nereid_loader_formats::canonical_decimal;

use super::bulk::{Fast, LoadKeys};
use super::number_table::NumberTable;

/// The load's vertices of one id space.
#[derive(Default)]
struct SpaceIds<'a> {
    numbers: NumberTable,
    texts: HashMap<&'a str, usize, Fast>,
    /// Added to every position recorded here: the rows before the file
    /// that began the space.
    base: usize,
}

impl<'a> SpaceIds<'a> {
    /// Adds the ids of `later` (a space of a later file), the ones this
    /// space already has refused: their positions are pushed to `refused`.
    fn absorb(&mut self, later: SpaceIds<'a>, refused: &mut Vec<usize>) {
        let shift = later.base - self.base;
        self.numbers.reserve(later.numbers.len());
        for (n, at) in later.numbers.iter() {
            if !self.numbers.insert(n, shift + at) {
                refused.push(later.base + at);
            }
        }
        for (id, at) in later.texts {
            if !self.texts.try_insert_or_keep(id, shift + at) {
                refused.push(later.base + at);
            }
        }
    }
}

/// Vertex positions by (id space, id), borrowing the node rows' keys.
#[derive(Default)]
pub(super) struct IdIndex<'a> {
    /// Each space by its key prefix (`(name)`; `` or `()` for the global
    /// space, see `user_id.rs`). Loads name a handful: a scan suffices.
    spaces: Vec<(&'a str, SpaceIds<'a>)>,
    /// The rows indexed (kept or refused).
    rows: usize,
    /// The positions of the rows refused (their id came earlier), in
    /// ascending order once joined: a vertex's position counts only the
    /// kept rows before it.
    refused: Vec<usize>,
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

    /// Records the next row, whose key is `prefix` + `id`; false (the
    /// row is refused) when an earlier row has that key.
    pub(super) fn push(&mut self, prefix: &'a str, id: &'a str) -> bool {
        let at = self.rows;
        self.rows += 1;
        let space = self.space_mut(prefix);
        let fresh = match canonical_number(id) {
            Some(n) => space.numbers.insert(n, at),
            None => space.texts.try_insert_or_keep(id, at),
        };
        if !fresh {
            self.refused.push(at);
        }
        fresh
    }

    /// The index of the rows of `parts` (each a file's index, positions
    /// from its first row) one after the other, in order.
    pub(super) fn join(parts: impl IntoIterator<Item = IdIndex<'a>>) -> IdIndex<'a> {
        let mut joined = IdIndex::default();
        for part in parts {
            let base = joined.rows;
            joined.rows += part.rows;
            joined
                .refused
                .extend(part.refused.iter().map(|at| base + at));
            for (prefix, mut ids) in part.spaces {
                ids.base += base;
                match joined.spaces.iter().position(|(p, _)| *p == prefix) {
                    Some(i) => joined.spaces[i].1.absorb(ids, &mut joined.refused),
                    None => joined.spaces.push((prefix, ids)),
                }
            }
        }
        joined.refused.sort_unstable();
        joined
    }

    /// The positions of the refused rows, ascending (once joined).
    pub(super) fn refused(&self) -> &[usize] {
        &self.refused
    }
}

impl IdIndex<'_> {
    fn space(&self, space: Option<&str>, id: &str) -> Option<&SpaceIds<'_>> {
        self.spaces
            .iter()
            .find(|(prefix, _)| prefix_is(prefix, space, id))
            .map(|(_, ids)| ids)
    }

    /// The position among the kept rows of the row `at` of `ids`.
    fn kept(&self, ids: &SpaceIds<'_>, at: usize) -> usize {
        let row = ids.base + at;
        match self.refused.is_empty() {
            true => row,
            false => row - self.refused.partition_point(|&r| r < row),
        }
    }
}

impl LoadKeys for IdIndex<'_> {
    fn position(&self, space: Option<&str>, id: &str, _scratch: &mut String) -> Option<usize> {
        let ids = self.space(space, id)?;
        let at = match canonical_number(id) {
            Some(n) => ids.numbers.get(n),
            None => ids.texts.get(id).copied(),
        }?;
        Some(self.kept(ids, at))
    }

    fn prefetch(&self, space: Option<&str>, id: &str) {
        if let Some(n) = canonical_number(id) {
            if let Some(slot) = self.number_slot(space) {
                self.prefetch_at(slot, n);
            }
        }
    }

    /// A number's spelling never opens with `(`, so its space is found as
    /// that of any such id (the empty one stands for them all).
    fn number_slot(&self, space: Option<&str>) -> Option<usize> {
        self.spaces
            .iter()
            .position(|(prefix, _)| prefix_is(prefix, space, ""))
    }

    fn position_at(&self, slot: usize, n: u64) -> Option<usize> {
        let ids = &self.spaces.get(slot)?.1;
        Some(self.kept(ids, ids.numbers.get(n)?))
    }

    fn prefetch_at(&self, slot: usize, n: u64) {
        if let Some((_, ids)) = self.spaces.get(slot) {
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

    /// Each pair's spelled key and where its id starts in it.
    fn keys_of<S: AsRef<str>>(pairs: &[(Option<&str>, S)]) -> Vec<(String, usize)> {
        let key = |(space, id): &(Option<&str>, S)| {
            let key = user_key(*space, id.as_ref()).unwrap();
            let from = key.len() - id.as_ref().len();
            (key, from)
        };
        pairs.iter().map(key).collect()
    }

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
        let keys = keys_of(&pairs);
        // Each pair's row is followed by a refused repeat of it: the kept
        // positions count the pairs.
        let mut index = IdIndex::default();
        for (key, from) in &keys {
            let (prefix, id) = key.split_at(*from);
            assert!(index.push(prefix, id));
            assert!(!index.push(prefix, id));
        }
        assert_eq!(
            index.refused(),
            (0..pairs.len()).map(|i| 2 * i + 1).collect::<Vec<_>>()
        );
        let mut scratch = String::new();
        for (at, (space, id)) in pairs.iter().enumerate() {
            assert_eq!(index.position(*space, id, &mut scratch), Some(at));
            if let Some(n) = canonical_number(id) {
                assert_eq!(index.position_of_number(*space, n), Some(at), "{id}");
                let slot = index.number_slot(*space).unwrap();
                assert_eq!(index.position_at(slot, n), Some(at), "{id}");
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

    /// Files indexed apart and joined answer as one index of all their
    /// rows in order: the same rows refused, the same kept positions.
    /// Random rows over a few spaces (the global one with both its
    /// prefixes), numeric and text ids, cut into files at random.
    #[test]
    fn joined_files_answer_as_one_index() {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move |below: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % below
        };
        let spaces = [None, Some("P"), Some("Q"), Some("")];
        for _ in 0..200 {
            let rows = next(60) as usize;
            let pairs: Vec<(Option<&str>, String)> = (0..rows)
                .map(|_| {
                    let id = match next(4) {
                        0 => format!("t{}", next(8)),
                        1 => format!("(x{}", next(3)),
                        _ => next(12).to_string(),
                    };
                    (spaces[next(4) as usize], id)
                })
                .collect();
            let keys = keys_of(&pairs);
            let mut whole = IdIndex::default();
            for (key, from) in &keys {
                let (prefix, id) = key.split_at(*from);
                whole.push(prefix, id);
            }
            let mut parts = Vec::new();
            let mut from = 0;
            while from < rows {
                let to = (from + next(20) as usize).min(rows);
                let mut part = IdIndex::default();
                for (key, at) in &keys[from..to] {
                    let (prefix, id) = key.split_at(*at);
                    part.push(prefix, id);
                }
                parts.push(part);
                from = to;
            }
            let joined = IdIndex::join(parts);
            assert_eq!(joined.refused(), whole.refused());
            let mut scratch = String::new();
            for (space, id) in pairs.iter().chain(&[(Some("R"), "1".to_string())]) {
                let found = joined.position(*space, id, &mut scratch);
                let expected = whole.position(*space, id, &mut scratch);
                assert_eq!(found, expected, "{space:?} {id}");
                if let Some(n) = canonical_number(id) {
                    assert_eq!(joined.position_of_number(*space, n), expected);
                }
            }
        }
    }
}
