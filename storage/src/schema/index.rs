//! One property index: an ordered set of `key ++ entity id` byte strings
//! (module `key`), behind a reader-writer lock.
//!
//! The set is a *superset* of what any snapshot may read through it:
//! writers add the entry of every value they give an indexed entity
//! before they commit, and nobody removes an entry while a snapshot or an
//! uncommitted transaction could still hold that value (module `stale`).
//! Readers decide each candidate against their own snapshot (module
//! `seek`), so the set itself needs no versions.
//! Why a `BTreeSet` of boxed byte strings: docs/adr/0086-ordered-property-indexes.md.

use super::defs::{IndexDef, IndexState};
use parking_lot::{Mutex, RwLock};
use std::collections::BTreeSet;
use std::ops::Bound;
use std::sync::atomic::{AtomicU64, Ordering};

/// Candidates are copied out this many at a time, so a long scan holds the
/// lock only briefly and never while it reads the store.
const CHUNK: usize = 1024;

pub(crate) struct PropertyIndex {
    pub(crate) id: u64,
    pub(crate) def: IndexDef,
    pub(crate) owning_constraint: Option<String>,
    pub(crate) state: Mutex<IndexState>,
    entries: RwLock<BTreeSet<Box<[u8]>>>,
    pub(crate) reads: AtomicU64,
    /// Entries of class `WIDE` ever added: ranges over dates are then not
    /// served (such dates sort apart from the others).
    pub(crate) wide: AtomicU64,
}

impl PropertyIndex {
    pub(crate) fn new(id: u64, def: IndexDef, owning_constraint: Option<String>) -> Self {
        PropertyIndex {
            id,
            def,
            owning_constraint,
            state: Mutex::new(IndexState::Populating { percent: 0.0 }),
            entries: RwLock::new(BTreeSet::new()),
            reads: AtomicU64::new(0),
            wide: AtomicU64::new(0),
        }
    }

    pub(crate) fn is_online(&self) -> bool {
        *self.state.lock() == IndexState::Online
    }

    /// `wide`: one of the key's values is a `WideLocal` date.
    pub(crate) fn insert(&self, key: &[u8], entity: u64, wide: bool) {
        if wide {
            self.wide.fetch_add(1, Ordering::Relaxed);
        }
        let entry = entry_of(key, entity);
        let mut entries = self.entries.write();
        entries.insert(entry);
    }

    /// Adds many `(key, entity, wide)` under one lock acquisition
    /// (population).
    pub(crate) fn insert_all(&self, batch: Vec<(Vec<u8>, u64, bool)>) {
        let wide = batch.iter().filter(|(_, _, wide)| *wide).count();
        self.wide.fetch_add(wide as u64, Ordering::Relaxed);
        let mut entries = self.entries.write();
        for (key, entity, _) in batch {
            entries.insert(entry_of(&key, entity));
        }
    }

    /// Removes `key ++ entity` if `keep` (asked under the write lock, so
    /// no writer adds the entry between the question and the removal)
    /// says it may go.
    pub(crate) fn remove_unless(&self, key: &[u8], entity: u64, keep: impl FnOnce() -> bool) {
        let entry = entry_of(key, entity);
        let mut entries = self.entries.write();
        if entries.contains(&entry) && !keep() {
            entries.remove(&entry);
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.read().len()
    }

    /// Visits `(key, entity)` of every entry between the bounds (on whole
    /// entries), in key order or reversed, until `visit` returns `false`.
    pub(crate) fn scan(
        &self,
        lower: Bound<Vec<u8>>,
        upper: Bound<Vec<u8>>,
        descending: bool,
        mut visit: impl FnMut(&[u8], u64) -> bool,
    ) {
        let (mut lower, mut upper) = (lower, upper);
        loop {
            if empty_range(&lower, &upper) {
                return;
            }
            let chunk: Vec<Box<[u8]>> = {
                let entries = self.entries.read();
                let range = entries.range::<[u8], _>((as_ref(&lower), as_ref(&upper)));
                if descending {
                    range.rev().take(CHUNK).cloned().collect()
                } else {
                    range.take(CHUNK).cloned().collect()
                }
            };
            let full = chunk.len() == CHUNK;
            for entry in &chunk {
                let (key, entity) = split(entry);
                if !visit(key, entity) {
                    return;
                }
            }
            match (full, chunk.last()) {
                (true, Some(last)) if descending => upper = Bound::Excluded(last.to_vec()),
                (true, Some(last)) => lower = Bound::Excluded(last.to_vec()),
                _ => return,
            }
        }
    }

    /// Bytes the entries take: their lengths, the boxes' headers and the
    /// tree's own overhead (about one pointer and length per entry in
    /// nodes of up to eleven). An estimate for `SHOW INDEXES` and benches.
    pub(crate) fn approximate_bytes(&self) -> usize {
        let entries = self.entries.read();
        let payload: usize = entries.iter().map(|e| e.len()).sum();
        payload + entries.len() * (16 + 8)
    }
}

/// Whether no byte string lies between the bounds (a range a `BTreeSet`
/// refuses: start above end, or equal and not both included).
fn empty_range(lower: &Bound<Vec<u8>>, upper: &Bound<Vec<u8>>) -> bool {
    match (lower, upper) {
        (Bound::Included(l), Bound::Included(u)) => l > u,
        (Bound::Included(l) | Bound::Excluded(l), Bound::Included(u) | Bound::Excluded(u)) => {
            l >= u
        }
        _ => false,
    }
}

fn as_ref(bound: &Bound<Vec<u8>>) -> Bound<&[u8]> {
    match bound {
        Bound::Included(b) => Bound::Included(b.as_slice()),
        Bound::Excluded(b) => Bound::Excluded(b.as_slice()),
        Bound::Unbounded => Bound::Unbounded,
    }
}

fn entry_of(key: &[u8], entity: u64) -> Box<[u8]> {
    let mut entry = Vec::with_capacity(key.len() + 8);
    entry.extend_from_slice(key);
    entry.extend_from_slice(&entity.to_be_bytes());
    entry.into_boxed_slice()
}

fn split(entry: &[u8]) -> (&[u8], u64) {
    let (key, id) = entry.split_at(entry.len() - 8);
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(id);
    (key, u64::from_be_bytes(bytes))
}
