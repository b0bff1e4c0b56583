//! Predicate tables: the P column of the SPOI relations as dense `u32` ids.
//!
//! Two tables exist: property keys (shared by REL_VP and REL_EP, with two
//! reserved ids below) and relationship types (REL_E). Ids are assigned on
//! first use and are *not* persistent: the log carries names, so replay
//! re-interns them. Entries are never removed.

use crate::read_mostly::ReadMostly;
use std::collections::HashMap;
use std::sync::OnceLock;

/// REL_VP predicate of the "this vertex exists" tuple (O is empty). It makes
/// a node without labels or properties exist, with a versioned lifetime.
pub(crate) const PRED_EXISTS: u32 = 0;
/// REL_VP predicate of label tuples (O = literal gui of the label name).
pub(crate) const PRED_LABEL: u32 = 1;

/// Names to ids. Looked up once per property access in a query, so the
/// hash is foldhash (randomly seeded per table: names come from queries)
/// rather than SipHash.
type Ids = HashMap<Box<str>, u32, foldhash::fast::RandomState>;

/// Entries in the first segment of [`Names`]; segment `k` holds
/// `FIRST << k`, so 27 segments cover every `u32` id.
const FIRST: usize = 64;
const SEGMENTS: usize = 27;

/// Ids (minus `first_id`) to names, append-only and readable without a
/// lock or any atomic read-modify-write: a name is set once in its
/// `OnceLock` and never changed or removed, so a reader needs only an
/// acquire load per level. (Point reads name every property they return;
/// a lock or a reference count per name there is an atomic
/// read-modify-write, which on x86 waits for every outstanding cache miss
/// and so serialises the read's misses.)
struct Names {
    segments: [OnceLock<Segment>; SEGMENTS],
}

/// `FIRST << k` names, each set at most once.
type Segment = Box<[OnceLock<Box<str>>]>;

impl Names {
    /// (segment, offset) of index `i`.
    fn place(i: usize) -> (usize, usize) {
        let k = (i / FIRST + 1).ilog2() as usize;
        (k, i - FIRST * ((1 << k) - 1))
    }

    fn get(&self, i: usize) -> Option<&str> {
        let (k, offset) = Names::place(i);
        let segment = self.segments.get(k)?.get()?;
        segment.get(offset)?.get().map(|name| &**name)
    }

    /// Sets entry `i` (callers serialise writers and never set one twice).
    fn set(&self, i: usize, name: &str) {
        let (k, offset) = Names::place(i);
        let segment =
            self.segments[k].get_or_init(|| (0..FIRST << k).map(|_| OnceLock::new()).collect());
        let _ = segment[offset].set(name.into());
    }
}

/// A name <-> id table.
pub(crate) struct PredicateTable {
    first_id: u32,
    ids: ReadMostly<Ids>,
    names: Names,
}

impl PredicateTable {
    /// `first_id` leaves room for reserved ids below it.
    pub(crate) fn new(first_id: u32) -> Self {
        PredicateTable {
            first_id,
            ids: ReadMostly::new(HashMap::default()),
            names: Names {
                segments: std::array::from_fn(|_| OnceLock::new()),
            },
        }
    }

    pub(crate) fn intern(&self, name: &str) -> u32 {
        if let Some(&id) = self.ids.read().get(name) {
            return id;
        }
        let mut ids = self.ids.write();
        if let Some(&id) = ids.get(name) {
            return id;
        }
        let index = ids.len();
        let id = self.first_id + index as u32;
        // The name is readable by id before the id is handed out.
        self.names.set(index, name);
        ids.insert(name.into(), id);
        id
    }

    pub(crate) fn lookup(&self, name: &str) -> Option<u32> {
        self.ids.read().get(name).copied()
    }

    /// The name of `id`, without taking a lock.
    pub(crate) fn name(&self, id: u32) -> Option<&str> {
        let index = id.checked_sub(self.first_id)? as usize;
        self.names.get(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_dense_after_the_reserved_ones() {
        let t = PredicateTable::new(2);
        assert_eq!(t.intern("name"), 2);
        assert_eq!(t.intern("age"), 3);
        assert_eq!(t.intern("name"), 2);
        assert_eq!(t.lookup("age"), Some(3));
        assert_eq!(t.lookup("x"), None);
        assert_eq!(t.name(3), Some("age"));
        assert_eq!(t.name(PRED_LABEL), None);
    }

    #[test]
    fn names_span_segments() {
        let t = PredicateTable::new(2);
        let ids: Vec<u32> = (0..1000).map(|i| t.intern(&format!("k{i}"))).collect();
        for (i, id) in ids.iter().enumerate() {
            assert_eq!(t.name(*id), Some(format!("k{i}").as_str()));
        }
        assert_eq!(t.name(1002), None);
        assert_eq!(Names::place(0), (0, 0));
        assert_eq!(Names::place(63), (0, 63));
        assert_eq!(Names::place(64), (1, 0));
        assert_eq!(Names::place(191), (1, 127));
        assert_eq!(Names::place(192), (2, 0));
        assert_eq!(Names::place(u32::MAX as usize).0, SEGMENTS - 1);
    }
}
