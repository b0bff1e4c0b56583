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

use super::defs::{IndexDef, IndexKind, IndexState};
use super::fulltext_postings::FulltextPostings;
use super::image::check_vector;
use super::image::Resolved;
use super::points::{Point, Points};
use super::vector_ann::VectorAnn;
use nereid_values::Value;
use parking_lot::{Mutex, RwLock};
use std::collections::BTreeSet;
use std::ops::Bound;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Candidates are copied out this many at a time, so a long scan holds the
/// lock only briefly and never while it reads the store.
const CHUNK: usize = 1024;

/// Bytes of an entry kept inline; the word they share holds the length.
const INLINE: usize = 23;

/// One entry: up to its first 23 bytes inline (big-endian, zero-padded),
/// then one byte saying how many of them there are (24 for an entry
/// longer than that), the rest boxed. The tree compares the inline words
/// first, so a search reads no key's heap bytes unless two entries share
/// 23 bytes (a long string's prefix), and an entry of up to 23 bytes (an
/// integer key's 11 and the entity's 8) has no box at all: copying a hit
/// out of the tree reads nothing but the node.
/// docs/adr/0105-index-point-lookups.md.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Entry {
    /// The inline bytes and the length byte as three big-endian words
    /// (not a `u128` and a `u64`, whose alignment would pad the entry).
    head: [u64; 3],
    rest: Box<[u8]>,
}

// The derived order is the order of the whole byte strings: the first 23
// bytes (a shorter entry zero-padded), then the length byte (a prefix
// before what extends it: lengths up to 23 sort below the 24 of a long
// entry), then the boxed bytes of two long entries.

impl Entry {
    fn new(bytes: &[u8]) -> Self {
        let mut head = [0u8; 24];
        let n = bytes.len().min(INLINE);
        head[..n].copy_from_slice(&bytes[..n]);
        head[INLINE] = bytes.len().min(INLINE + 1) as u8;
        let word = |at: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&head[at..at + 8]);
            u64::from_be_bytes(w)
        };
        Entry {
            head: [word(0), word(8), word(16)],
            rest: bytes[n..].into(),
        }
    }

    fn write_to(&self, out: &mut Vec<u8>) {
        let mut head = [0u8; 24];
        for (at, word) in self.head.iter().enumerate() {
            head[at * 8..at * 8 + 8].copy_from_slice(&word.to_be_bytes());
        }
        let inline = usize::from(head[INLINE]).min(INLINE);
        out.extend_from_slice(&head[..inline]);
        out.extend_from_slice(&self.rest);
    }
}

/// The set and, for a range index, its equality side table (module
/// `points`), changed together under one lock.
#[derive(Default)]
struct Entries {
    tree: BTreeSet<Entry>,
    points: Option<Points>,
    /// Bytes the tree's entries keep boxed (their `rest`), so the size
    /// is known without a walk.
    boxed: usize,
}

impl Entries {
    fn insert(&mut self, key: &[u8], entity: u64) {
        let entry = entry_of(key, entity);
        let boxed = entry.rest.len();
        if self.tree.insert(entry) {
            self.boxed += boxed;
            if let Some(points) = &mut self.points {
                points.added(key, entity);
            }
        }
    }

    /// Bytes the entries take: their boxed rests, the entries themselves
    /// and the tree's overhead (about one pointer and length per entry in
    /// nodes of up to eleven), and the side table.
    fn bytes(&self) -> usize {
        let points = self.points.as_ref().map_or(0, Points::approximate_bytes);
        self.boxed + self.tree.len() * (std::mem::size_of::<Entry>() + 8) + points
    }
}

pub(crate) struct PropertyIndex {
    pub(crate) id: u64,
    pub(crate) def: IndexDef,
    pub(crate) owning_constraint: Option<String>,
    pub(crate) state: Mutex<IndexState>,
    entries: RwLock<Entries>,
    pub(crate) reads: AtomicU64,
    /// When it was last read (Unix milliseconds; 0: never), as Neo4j's
    /// `lastRead`: the time the reading transaction first read an index.
    pub(crate) last_read: AtomicU64,
    /// When this process began counting its reads (Unix milliseconds):
    /// Neo4j's `trackedSince`.
    pub(crate) tracked_since: u64,
    /// Entries of class `WIDE` ever added: ranges over dates are then not
    /// served (such dates sort apart from the others).
    pub(crate) wide: AtomicU64,
    /// A vector index's approximate graph (module `vector_ann`).
    pub(crate) ann: Option<VectorAnn>,
    /// A full-text index's postings (module `fulltext_postings`).
    pub(crate) text: Option<FulltextPostings>,
    /// [`Entries::bytes`] as of the last change, read without the lock
    /// (a metrics scrape must not wait for writers).
    bytes: AtomicUsize,
    /// Its label and keys as the store names them, once all are known
    /// (`image::Resolved::of`).
    pub(crate) resolved: OnceLock<Resolved>,
}

impl PropertyIndex {
    pub(crate) fn new(id: u64, def: IndexDef, owning_constraint: Option<String>) -> Self {
        PropertyIndex {
            id,
            owning_constraint,
            state: Mutex::new(IndexState::Populating { percent: 0.0 }),
            entries: RwLock::new(Entries {
                tree: BTreeSet::new(),
                points: (def.kind == IndexKind::Range).then(Points::default),
                boxed: 0,
            }),
            bytes: AtomicUsize::new(0),
            reads: AtomicU64::new(0),
            last_read: AtomicU64::new(0),
            tracked_since: unix_millis(),
            wide: AtomicU64::new(0),
            ann: VectorAnn::for_kind(def.kind),
            text: match def.kind {
                IndexKind::Fulltext { analyzer, .. } => {
                    Some(FulltextPostings::new(analyzer, &def.keys))
                }
                _ => None,
            },
            resolved: OnceLock::new(),
            def,
        }
    }

    /// Hands `values` (one per key), just given to `entity`, which the
    /// index holds, to what the index keeps beside its entries: a vector
    /// index's graph, a full-text index's postings.
    pub(crate) fn values_written(&self, entity: u64, values: &[Value]) {
        if let Some(ann) = &self.ann {
            if let Ok(vector) = check_vector(self.def.kind, &values[0]) {
                ann.insert(entity, vector.as_slice());
            }
        }
        if let Some(text) = &self.text {
            text.insert(entity, values);
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
        let mut entries = self.entries.write();
        entries.insert(key, entity);
        self.bytes.store(entries.bytes(), Ordering::Relaxed);
    }

    /// Adds many `(key, entity, wide)` under one lock acquisition
    /// (population).
    pub(crate) fn insert_all(&self, batch: Vec<(Vec<u8>, u64, bool)>) {
        let wide = batch.iter().filter(|(_, _, wide)| *wide).count();
        self.wide.fetch_add(wide as u64, Ordering::Relaxed);
        // Built apart (a sorted batch is laid out in one pass), then merged
        // in one pass under the lock.
        let mut built: BTreeSet<Entry> = batch
            .iter()
            .map(|(key, entity, _)| entry_of(key, *entity))
            .collect();
        let mut entries = self.entries.write();
        let Entries {
            tree,
            points,
            boxed,
        } = &mut *entries;
        // Long entries (a boxed rest) are rare: each is looked up, so that
        // one a writer added meanwhile is not counted twice.
        *boxed += built
            .iter()
            .filter(|e| !e.rest.is_empty() && !tree.contains(e))
            .map(|e| e.rest.len())
            .sum::<usize>();
        if let Some(points) = points {
            // Writers may have added entries while the batch was read.
            let mut seen = None;
            for (key, entity, _) in &batch {
                if seen == Some((key, entity)) {
                    continue;
                }
                seen = Some((key, entity));
                if !tree.contains(&entry_of(key, *entity)) {
                    points.added(key, *entity);
                }
            }
        }
        tree.append(&mut built);
        self.bytes.store(entries.bytes(), Ordering::Relaxed);
    }

    /// What the equality side table says of `equality_key` (`Shared` for
    /// an index without one).
    pub(crate) fn point(&self, equality_key: &[u8]) -> Point {
        match &self.entries.read().points {
            Some(points) => points.get(equality_key),
            None => Point::Shared,
        }
    }

    /// Removes `key ++ entity` if `keep` (asked under the write lock, so
    /// no writer adds the entry between the question and the removal)
    /// says it may go.
    pub(crate) fn remove_unless(&self, key: &[u8], entity: u64, keep: impl FnOnce() -> bool) {
        let entry = entry_of(key, entity);
        let mut entries = self.entries.write();
        if entries.tree.contains(&entry) && !keep() {
            entries.tree.remove(&entry);
            entries.boxed -= entry.rest.len();
            if let Some(points) = &mut entries.points {
                points.removed(key, entity);
            }
            self.bytes.store(entries.bytes(), Ordering::Relaxed);
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.read().tree.len()
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
        // A point seek finds one or two entries: a small first chunk.
        let mut chunk_len = 16;
        let mut keys: Vec<u8> = Vec::new();
        let mut ends: Vec<usize> = Vec::new();
        loop {
            if empty_range(&lower, &upper) {
                return;
            }
            keys.clear();
            ends.clear();
            {
                // The tree is searched for the near bound only and the far
                // one tested per entry: a range of both searches every node
                // on the way down twice.
                let (low, high) = (as_entry(&lower), as_entry(&upper));
                let entries = &self.entries.read().tree;
                let mut copy = |entry: &Entry| {
                    entry.write_to(&mut keys);
                    ends.push(keys.len());
                };
                if descending {
                    entries
                        .range((Bound::Unbounded, high))
                        .rev()
                        .take_while(|e| above(e, &low))
                        .take(chunk_len)
                        .for_each(&mut copy);
                } else {
                    entries
                        .range((low, Bound::Unbounded))
                        .take_while(|e| below(e, &high))
                        .take(chunk_len)
                        .for_each(&mut copy);
                }
            }
            let mut start = 0;
            for &end in &ends {
                let (key, entity) = split(&keys[start..end]);
                if !visit(key, entity) {
                    return;
                }
                start = end;
            }
            if ends.len() < chunk_len {
                return;
            }
            let from = if ends.len() >= 2 {
                ends[ends.len() - 2]
            } else {
                0
            };
            let last = keys[from..].to_vec();
            if descending {
                upper = Bound::Excluded(last);
            } else {
                lower = Bound::Excluded(last);
            }
            chunk_len = CHUNK;
        }
    }

    /// Bytes the index takes ([`Entries::bytes`], and a vector index's
    /// graph or a full-text index's postings): an estimate for metrics and benches, read without a lock.
    pub(crate) fn approximate_bytes(&self) -> usize {
        let ann = self.ann.as_ref().map_or(0, VectorAnn::approximate_bytes);
        let text = self
            .text
            .as_ref()
            .map_or(0, FulltextPostings::approximate_bytes);
        self.bytes.load(Ordering::Relaxed) + ann + text
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

/// Whether `entry` lies below the upper bound `high`.
fn below(entry: &Entry, high: &Bound<Entry>) -> bool {
    match high {
        Bound::Included(h) => entry <= h,
        Bound::Excluded(h) => entry < h,
        Bound::Unbounded => true,
    }
}

/// Whether `entry` lies above the lower bound `low`.
fn above(entry: &Entry, low: &Bound<Entry>) -> bool {
    match low {
        Bound::Included(l) => entry >= l,
        Bound::Excluded(l) => entry > l,
        Bound::Unbounded => true,
    }
}

fn as_entry(bound: &Bound<Vec<u8>>) -> Bound<Entry> {
    match bound {
        Bound::Included(b) => Bound::Included(Entry::new(b)),
        Bound::Excluded(b) => Bound::Excluded(Entry::new(b)),
        Bound::Unbounded => Bound::Unbounded,
    }
}

fn entry_of(key: &[u8], entity: u64) -> Entry {
    let mut entry = Vec::with_capacity(key.len() + 8);
    entry.extend_from_slice(key);
    entry.extend_from_slice(&entity.to_be_bytes());
    Entry::new(&entry)
}

fn split(entry: &[u8]) -> (&[u8], u64) {
    let (key, id) = entry.split_at(entry.len() - 8);
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(id);
    (key, u64::from_be_bytes(bytes))
}

/// Now, in milliseconds since the Unix epoch.
pub(crate) fn unix_millis() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
