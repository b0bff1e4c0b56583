//! Predicate tables: the P column of the SPOI relations as dense `u32` ids.
//!
//! Two tables exist: property keys (shared by REL_VP and REL_EP, with two
//! reserved ids below) and relationship types (REL_E). Ids are assigned on
//! first use and are *not* persistent: the log carries names, so replay
//! re-interns them. Entries are never removed.

use std::hash::BuildHasher;
use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};
use std::sync::OnceLock;

/// REL_VP predicate of the "this vertex exists" tuple (O is empty). It makes
/// a node without labels or properties exist, with a versioned lifetime.
pub(crate) const PRED_EXISTS: u32 = 0;
/// REL_VP predicate of label tuples (O = literal gui of the label name).
pub(crate) const PRED_LABEL: u32 = 1;

/// Names to ids, read without a lock: an open-addressing table of entry
/// numbers + 1 (0: empty) whose names are compared through [`Names`].
/// Looked up once per property access in a query, so the hash is
/// foldhash (randomly seeded per table: names come from queries). The
/// writer fills slots in place (release stores after the name is set) and,
/// past three quarters full, builds a table twice the size and swaps it in;
/// replaced tables are kept until the predicate table is dropped (they
/// double, so together they are smaller than the current one), so a reader
/// still probing one reads valid memory and at worst misses a name added
/// meanwhile, as if it had looked a moment earlier.
struct Ids {
    slots: Box<[AtomicU32]>,
}

impl Ids {
    fn with_slots(n: usize) -> Box<Ids> {
        Box::new(Ids {
            slots: (0..n).map(|_| AtomicU32::new(0)).collect(),
        })
    }

    /// The probe sequence of `hash` (linear probing).
    fn probe(&self, hash: u64) -> impl Iterator<Item = &AtomicU32> {
        let mask = self.slots.len() - 1;
        let start = hash as usize & mask;
        (0..self.slots.len()).map(move |i| &self.slots[(start + i) & mask])
    }
}

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
    hasher: foldhash::fast::RandomState,
    ids: AtomicPtr<Ids>,
    /// Tables replaced by a larger one, freed with this table. Boxed:
    /// readers may still hold one, so it must not move.
    #[allow(clippy::vec_box)]
    retired: parking_lot::Mutex<Vec<Box<Ids>>>,
    /// Serialises writers; the number of names interned.
    writer: parking_lot::Mutex<usize>,
    names: Names,
}

/// Slots of a new table (a power of two).
const FIRST_SLOTS: usize = 64;

impl PredicateTable {
    /// `first_id` leaves room for reserved ids below it.
    pub(crate) fn new(first_id: u32) -> Self {
        PredicateTable {
            first_id,
            hasher: foldhash::fast::RandomState::default(),
            ids: AtomicPtr::new(Box::into_raw(Ids::with_slots(FIRST_SLOTS))),
            retired: parking_lot::Mutex::new(Vec::new()),
            writer: parking_lot::Mutex::new(0),
            names: Names {
                segments: std::array::from_fn(|_| OnceLock::new()),
            },
        }
    }

    /// Bytes of its id table and name segments, the names' own bytes
    /// left out (memory accounting: names are few and short).
    pub(crate) fn bytes(&self) -> usize {
        let names: usize = (0..SEGMENTS)
            .filter(|&k| self.names.segments[k].get().is_some())
            .map(|k| (FIRST << k) * size_of::<OnceLock<Box<str>>>())
            .sum();
        self.ids().slots.len() * size_of::<AtomicU32>() + names
    }

    fn ids(&self) -> &Ids {
        // SAFETY: always a live table: replaced ones are kept in `retired`
        // until `drop`.
        unsafe { &*self.ids.load(Ordering::Acquire) }
    }

    /// The entry number of `name` in `ids`, if there.
    fn find(&self, ids: &Ids, name: &str, hash: u64) -> Option<usize> {
        for slot in ids.probe(hash) {
            let entry = slot.load(Ordering::Acquire).checked_sub(1)? as usize;
            if self.names.get(entry) == Some(name) {
                return Some(entry);
            }
        }
        None
    }

    pub(crate) fn intern(&self, name: &str) -> u32 {
        if let Some(id) = self.lookup(name) {
            return id;
        }
        let mut count = self.writer.lock();
        let hash = self.hasher.hash_one(name);
        if let Some(entry) = self.find(self.ids(), name, hash) {
            return self.first_id + entry as u32;
        }
        let entry = *count;
        // The name is readable by id (and by the probe) before its slot is.
        self.names.set(entry, name);
        if (entry + 1) * 4 > self.ids().slots.len() * 3 {
            self.grow(entry);
        }
        self.place(self.ids(), hash, entry);
        *count += 1;
        self.first_id + entry as u32
    }

    /// Stores `entry` in the first empty slot of its probe sequence
    /// (writer only; the table has room).
    fn place(&self, ids: &Ids, hash: u64, entry: usize) {
        if let Some(slot) = ids.probe(hash).find(|s| s.load(Ordering::Relaxed) == 0) {
            slot.store(entry as u32 + 1, Ordering::Release);
        }
    }

    /// Swaps in a table twice the size holding entries `0..entries`
    /// (writer only), retiring the old one.
    fn grow(&self, entries: usize) {
        let bigger = Ids::with_slots(self.ids().slots.len() * 2);
        for entry in 0..entries {
            if let Some(name) = self.names.get(entry) {
                self.place(&bigger, self.hasher.hash_one(name), entry);
            }
        }
        let old = self.ids.swap(Box::into_raw(bigger), Ordering::AcqRel);
        // SAFETY: `old` came from `Box::into_raw` and is no longer current;
        // readers may still hold it, so it is kept until `drop`.
        self.retired.lock().push(unsafe { Box::from_raw(old) });
    }

    /// The id of `name`, without taking a lock.
    pub(crate) fn lookup(&self, name: &str) -> Option<u32> {
        let entry = self.find(self.ids(), name, self.hasher.hash_one(name))?;
        Some(self.first_id + entry as u32)
    }

    /// Every name published so far with its id, in id order, without
    /// taking a lock (names are dense from the first id on and readable
    /// before they count as interned).
    pub(crate) fn names(&self) -> impl Iterator<Item = (u32, &str)> {
        (0..).map_while(|entry| Some((self.first_id + entry as u32, self.names.get(entry)?)))
    }

    /// The name of `id`, without taking a lock.
    pub(crate) fn name(&self, id: u32) -> Option<&str> {
        let index = id.checked_sub(self.first_id)? as usize;
        self.names.get(index)
    }
}

impl Drop for PredicateTable {
    fn drop(&mut self) {
        // SAFETY: the current table came from `Box::into_raw` and nothing
        // else frees it.
        drop(unsafe { Box::from_raw(*self.ids.get_mut()) });
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
        assert_eq!(t.names().collect::<Vec<_>>(), [(2, "name"), (3, "age")]);
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

    #[test]
    fn readers_find_every_interned_name_while_the_table_grows() {
        let t = PredicateTable::new(2);
        let interned: Vec<AtomicU32> = (0..5_000).map(|_| AtomicU32::new(u32::MAX)).collect();
        std::thread::scope(|s| {
            s.spawn(|| {
                for (i, slot) in interned.iter().enumerate() {
                    slot.store(t.intern(&format!("k{i}")), Ordering::Release);
                }
            });
            s.spawn(|| {
                for _ in 0..5 {
                    for (i, slot) in interned.iter().enumerate().step_by(3) {
                        let id = slot.load(Ordering::Acquire);
                        if id != u32::MAX {
                            assert_eq!(t.lookup(&format!("k{i}")), Some(id));
                            assert_eq!(t.name(id), Some(format!("k{i}").as_str()));
                        }
                    }
                }
            });
        });
        assert_eq!(t.intern("k4999"), 2 + 4999);
        assert_eq!(t.lookup("nope"), None);
    }
}
