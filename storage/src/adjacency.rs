//! Adjacency indexes of one partition: key -> positions of its tuples.
//!
//! Keys that are dense by construction are direct-access arrays (no hashing,
//! no per-key map entry; allocated in pages where keys exist, module
//! `paged`):
//! - vertex guis of the partition: `tag | counter | hash16` with the low
//!   `part_bits` of the hash fixed by the partition, so
//!   `counter << (16 - part_bits) | hash >> part_bits` numbers them densely
//!   (counters are dense per hash bucket, see `crate::dictionary`);
//! - statement ids of the partition's own grid cell (REL_EP's S): their
//!   partition-local number.
//!
//! Other keys (literal guis in REL_VP's O column) use a [`HeadTable`], an
//! open-addressing table whose slots can be prefetched. The dense
//! slot drops the tag and the partition bits, so distinct ids can share a
//! slot (a malformed id from a query, a gui of another partition): callers
//! filter the listed tuples by their exact key, which they read anyway.
//!
//! A key costs one 8-byte [`ListHead`]; its positions live inline (one
//! position) or in the index's arena (module `list_arena`), where lists
//! grow geometrically and keep insertion order, or, in an *ordered* index
//! (edges by source), a prefix sorted by the tuples' (P, O) and a tail in
//! insertion order.

use crate::atomic_pages::AtomicPages;
use crate::head_table::HeadTable;
use crate::ids::COUNTER_BITS;
use crate::list_arena::{ListArena, ListHead, Positions};
use crate::pinned::{self, retire};
use crossbeam::epoch::{Atomic, Owned};
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicU32, AtomicUsize};
use std::sync::OnceLock;

/// How an index numbers its keys.
#[derive(Copy, Clone, Debug)]
pub(crate) enum KeyKind {
    /// Vertex guis whose partition is the low `part_bits` of their hash.
    Vertex { part_bits: u32 },
    /// Statement ids: their partition-local number.
    Statement,
    /// Anything else.
    Hashed,
}

/// An index's heads and the arena their lists live in: replaced whole by
/// a compaction (the heads then point into the new arena).
struct Heads {
    /// 256 heads (2 KiB) per page, as [`ListHead::to_bits`].
    dense: AtomicPages<u64, 256>,
    hashed: HeadTable,
    lists: ListArena,
}

/// Readers use an index without a lock beside its one writer (module
/// `pinned`): every head is an atomic word, stored after the list it
/// points to is complete.
pub(crate) struct AdjacencyIndex {
    kind: KeyKind,
    heads: Atomic<Heads>,
    /// Keys with a non-empty list (the writer's count).
    keys: AtomicUsize,
}

const LOCAL_MASK: u64 = (1 << crate::ids::LOCAL_BITS) - 1;
const COUNTER_MASK: u64 = (1 << COUNTER_BITS) - 1;

impl AdjacencyIndex {
    pub(crate) fn new(kind: KeyKind) -> Self {
        Self::with_lists(kind, ListArena::default())
    }

    /// An index whose lists keep a sorted prefix; it must be filled with
    /// [`AdjacencyIndex::push_ordered`].
    pub(crate) fn new_ordered(kind: KeyKind) -> Self {
        Self::with_lists(kind, ListArena::ordered())
    }

    fn with_lists(kind: KeyKind, lists: ListArena) -> Self {
        AdjacencyIndex {
            kind,
            heads: Atomic::new(Heads {
                dense: AtomicPages::new(0),
                hashed: HeadTable::default(),
                lists,
            }),
            keys: AtomicUsize::new(0),
        }
    }

    /// The current heads (the caller is pinned: module `pinned`).
    #[inline]
    fn heads(&self) -> &Heads {
        // SAFETY: never null; a replaced `Heads` is freed only after every
        // thread pinned at its retirement has unpinned, and the caller is
        // pinned for as long as it borrows `self`.
        unsafe { self.heads.load(Acquire, pinned::assumed()).deref() }
    }

    pub(crate) fn is_ordered(&self) -> bool {
        self.heads().lists.is_ordered()
    }

    fn slot(&self, key: u64) -> Option<usize> {
        match self.kind {
            KeyKind::Vertex { part_bits } => {
                let counter = (key >> 16) & COUNTER_MASK;
                let hash = key & 0xffff;
                Some(((counter << (16 - part_bits)) | (hash >> part_bits)) as usize)
            }
            KeyKind::Statement => Some((key & LOCAL_MASK) as usize),
            KeyKind::Hashed => None,
        }
    }

    /// Appends `position` to `key`'s list (writer only).
    pub(crate) fn push(&self, key: u64, position: u32) {
        debug_assert!(!self.is_ordered(), "an ordered index takes push_ordered");
        self.push_with(key, |lists, head| lists.push(head, position));
    }

    /// Appends `position` to `key`'s list in an ordered index (writer
    /// only); `order` gives a position's sort key (the same for every
    /// push), read for the new position and the list's last one, and for
    /// the tail's when it is merged into the sorted prefix.
    pub(crate) fn push_ordered<K: Ord>(&self, key: u64, position: u32, order: impl Fn(u32) -> K) {
        self.push_with(key, |lists, head| {
            let in_order = lists
                .last(head)
                .is_none_or(|last| order(last) <= order(position));
            lists.push_in_order(head, position, in_order);
            lists.merge_long_tail(head, &order);
        });
    }

    fn push_with(&self, key: u64, push: impl FnOnce(&ListArena, &mut ListHead)) {
        let heads = self.heads();
        let add = |head: &mut ListHead| {
            if head.len() == 0 {
                pinned::add(&self.keys, 1);
            }
            push(&heads.lists, head);
        };
        match self.slot(key) {
            Some(slot) => {
                let mut head = heads.dense.get(slot, pinned::assumed()).unwrap_or(0);
                let mut list = ListHead::from_bits(head);
                add(&mut list);
                head = list.to_bits();
                heads.dense.set(slot, head);
            }
            None => heads.hashed.update(key, add),
        }
        if heads.lists.wants_compaction() {
            self.compact();
        }
    }

    /// Removes the `(key, position)` pairs of `gone` (garbage collection;
    /// writer only): each key's list is rewritten once, whatever the
    /// number of its positions removed (a rewrite copies the list). Sorts
    /// `gone`.
    pub(crate) fn remove_all(&self, gone: &mut [(u64, u32)]) {
        gone.sort_unstable();
        let heads = self.heads();
        let mut positions = Vec::new();
        for group in gone.chunk_by(|a, b| a.0 == b.0) {
            let key = group[0].0;
            positions.clear();
            positions.extend(group.iter().map(|&(_, p)| p));
            let take = |head: &mut ListHead| {
                *head = heads.lists.without(*head, &positions);
                if head.len() == 0 {
                    pinned::add(&self.keys, -1);
                }
            };
            match self.slot(key) {
                Some(slot) => {
                    let bits = heads.dense.get(slot, pinned::assumed()).unwrap_or(0);
                    let mut head = ListHead::from_bits(bits);
                    if head.len() != 0 {
                        take(&mut head);
                        heads.dense.set(slot, head.to_bits());
                    }
                }
                None => {
                    heads.hashed.update_existing(key, take);
                }
            }
        }
        if heads.lists.wants_compaction() {
            self.compact();
        }
    }

    /// Copies every list, tight, into a fresh arena with fresh heads and
    /// swaps them in (writer only); the old ones go to the collector.
    fn compact(&self) {
        let old = self.heads();
        let lists = old.lists.for_compaction();
        let dense = AtomicPages::new(0);
        old.dense.for_each(|slot, bits| {
            if bits != 0 {
                let head = old.lists.copy_into(ListHead::from_bits(bits), &lists);
                dense.set(slot, head.to_bits());
            }
        });
        let hashed = old.hashed.rebuilt(|head| old.lists.copy_into(head, &lists));
        let fresh = Owned::new(Heads {
            dense,
            hashed,
            lists,
        });
        let old = self.heads.swap(fresh, AcqRel, pinned::assumed());
        // SAFETY: unreachable now (readers that loaded it are pinned);
        // boxed by `Owned`.
        unsafe { retire(old) };
    }

    /// The head of `key`'s slot, if any.
    #[inline]
    fn head(&self, heads: &Heads, key: u64) -> Option<ListHead> {
        match self.slot(key) {
            Some(slot) => heads
                .dense
                .get(slot, pinned::assumed())
                .map(ListHead::from_bits),
            None => heads.hashed.get(key, pinned::assumed()),
        }
    }

    /// Positions listed under `key`'s slot (callers check the exact key).
    #[inline]
    pub(crate) fn get(&self, key: u64) -> Positions<'_> {
        let heads = self.heads();
        self.head(heads, key).map_or(Positions::NONE, |head| {
            heads.lists.get(&head, pinned::assumed())
        })
    }

    /// [`AdjacencyIndex::get`] as the sorted prefix and the unsorted tail
    /// (all tail in an unordered index).
    pub(crate) fn get_sorted(&self, key: u64) -> (Positions<'_>, Positions<'_>) {
        let heads = self.heads();
        self.head(heads, key)
            .map_or((Positions::NONE, Positions::NONE), |head| {
                heads.lists.get_sorted(&head, pinned::assumed())
            })
    }

    /// Prefetches the head [`AdjacencyIndex::get`] reads for `key` (for a
    /// hashed key, the line its probe starts at).
    #[inline]
    pub(crate) fn prefetch(&self, key: u64) {
        let heads = self.heads();
        match self.slot(key) {
            Some(slot) => heads.dense.prefetch(slot, pinned::assumed()),
            None => heads.hashed.prefetch(key, pinned::assumed()),
        }
    }

    /// Bytes of its heads and list arena (memory accounting, from their
    /// capacities).
    pub(crate) fn bytes(&self) -> usize {
        let heads = self.heads();
        heads.dense.bytes() + heads.hashed.bytes() + heads.lists.bytes()
    }

    /// Number of keys with a non-empty list.
    pub(crate) fn keys(&self) -> usize {
        self.keys.load(Relaxed)
    }

    /// Gives back slack after a bulk load (writer only): compacts the
    /// arena tight (and the heads with it) when it carries more than a
    /// quarter spare.
    pub(crate) fn shrink(&self) {
        if self.heads().lists.has_slack() {
            self.compact();
        }
    }
}

impl Drop for AdjacencyIndex {
    fn drop(&mut self) {
        let guard = pinned::assumed();
        let heads = self
            .heads
            .swap(crossbeam::epoch::Shared::null(), Relaxed, guard);
        // SAFETY: `&mut self`: no reader is left; boxed by `Owned`.
        drop(unsafe { heads.into_owned() });
    }
}

/// Statement id -> position, as a direct-access array by local number
/// (`u32::MAX` = absent): partition-local numbers are dense. While every
/// tuple sits at the position equal to its local number (no slot reused,
/// no local skipped: the common case) the array is not kept at all. The
/// answer is a candidate: the partition checks the tuple there has the SID
/// and is not freed.
///
/// Readers use it beside the writer: the implicit form is an atomic
/// length; the array, once needed, is built from it and published once
/// (a reader that still saw the implicit form answers for locals below
/// the length, all of which it still describes).
#[derive(Default)]
pub(crate) struct StatementIndex {
    /// Position == local number for every local below this (while
    /// `mapped` is unset).
    identity: AtomicU32,
    mapped: OnceLock<AtomicPages<u32, 1024>>,
}

impl StatementIndex {
    /// Files `sid` at `position` (writer only).
    pub(crate) fn insert(&self, sid: u64, position: u32) {
        let local = (sid & LOCAL_MASK) as u32;
        match self.mapped.get() {
            Some(mapped) => mapped.set(local as usize, position),
            None => {
                let len = self.identity.load(Relaxed);
                if local == position && local == len {
                    self.identity.store(len + 1, Release);
                    return;
                }
                let mapped = AtomicPages::new(u32::MAX);
                for l in 0..len {
                    mapped.set(l as usize, l);
                }
                mapped.set(local as usize, position);
                let _ = self.mapped.set(mapped);
            }
        }
    }

    /// Forgets `sid` if it still points at `position` (writer only;
    /// identity entries need nothing: the freed slot fails the
    /// partition's check).
    pub(crate) fn remove(&self, sid: u64, position: u32) {
        if let Some(mapped) = self.mapped.get() {
            let local = (sid & LOCAL_MASK) as usize;
            if mapped.get(local, pinned::assumed()) == Some(position) {
                mapped.set(local, u32::MAX);
            }
        }
    }

    pub(crate) fn get(&self, sid: u64) -> Option<u32> {
        let local = sid & LOCAL_MASK;
        match self.mapped.get() {
            None => (local < u64::from(self.identity.load(Acquire))).then_some(local as u32),
            Some(mapped) => mapped
                .get(local as usize, pinned::assumed())
                .filter(|&p| p != u32::MAX),
        }
    }

    /// Bytes of the array, none while implicit (memory accounting).
    pub(crate) fn bytes(&self) -> usize {
        self.mapped.get().map_or(0, AtomicPages::bytes)
    }

    #[cfg(test)]
    fn is_implicit(&self) -> bool {
        self.mapped.get().is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{make_gui, make_sid, TAG_E, TAG_VERT};

    // Every test thread reads through `pinned::assumed`; nothing here is
    // retired while a test reads, so no pin is needed.

    #[test]
    fn vertex_keys_of_one_partition_get_distinct_dense_slots() {
        let index = AdjacencyIndex::new(KeyKind::Vertex { part_bits: 2 });
        let mut slots = std::collections::HashSet::new();
        for counter in 0..4 {
            for hash in (3u16..=0xffff).step_by(4) {
                let gui = make_gui(TAG_VERT, counter, hash);
                assert!(slots.insert(index.slot(gui).unwrap()));
            }
        }
        assert_eq!(slots.len(), 4 * 16384);
        assert!(slots.iter().all(|&s| s < 4 * 16384));
        let a = make_gui(TAG_VERT, 1, 7);
        index.push(a, 5);
        index.push(a, 9);
        assert_eq!(index.get(a).collect::<Vec<_>>(), [5, 9]);
        assert_eq!(index.keys(), 1);
        assert_eq!(index.get(make_gui(TAG_VERT, 2, 7)).len(), 0);
    }

    #[test]
    fn statement_index_stays_implicit_while_positions_equal_locals() {
        let index = StatementIndex::default();
        for local in 0..5 {
            index.insert(make_sid(TAG_E, 0, local), local);
        }
        assert!(index.is_implicit());
        assert_eq!(index.get(make_sid(TAG_E, 0, 4)), Some(4));
        assert_eq!(index.get(make_sid(TAG_E, 0, 5)), None);
        index.remove(make_sid(TAG_E, 0, 2), 2);
        // slot 2 reused by local 5: the map becomes explicit
        index.insert(make_sid(TAG_E, 0, 5), 2);
        assert!(!index.is_implicit());
        assert_eq!(index.get(make_sid(TAG_E, 0, 5)), Some(2));
        assert_eq!(index.get(make_sid(TAG_E, 0, 3)), Some(3));
        assert_eq!(index.get(make_sid(TAG_E, 0, 6)), None);
    }

    #[test]
    fn statement_index_is_exact_for_its_partition() {
        let index = StatementIndex::default();
        index.insert(make_sid(TAG_E, 3, 10), 0);
        assert_eq!(index.get(make_sid(TAG_E, 3, 10)), Some(0));
        assert_eq!(index.get(make_sid(TAG_E, 3, 11)), None);
        assert_eq!(index.get(make_sid(TAG_E, 3, 1 << 20)), None);
        let hashed = AdjacencyIndex::new(KeyKind::Hashed);
        hashed.push(42, 1);
        assert_eq!(hashed.get(42).collect::<Vec<_>>(), [1]);
        assert_eq!(hashed.get(43).len(), 0);
    }

    /// Readers on other threads, pinned, read every key's list while the
    /// writer appends, rewrites lists (removals), empties keys (the hashed
    /// table's tombstones and rebuilds) and compacts the arena: every list
    /// a reader sees must be one the writer published, whole: positions
    /// of its own key only, in push order, never more than the writer
    /// keeps.
    #[test]
    fn readers_see_whole_lists_beside_the_writer() {
        use crossbeam::epoch;
        use std::sync::atomic::{AtomicBool, Ordering::SeqCst};
        const KEYS: u64 = 37;
        const KEEP: usize = 20;
        for kind in [KeyKind::Hashed, KeyKind::Statement] {
            let index = AdjacencyIndex::new(kind);
            let done = AtomicBool::new(false);
            std::thread::scope(|scope| {
                for _ in 0..2 {
                    scope.spawn(|| {
                        while !done.load(SeqCst) {
                            let _guard = epoch::pin();
                            for key in 0..KEYS {
                                let list: Vec<u32> = index.get(key).collect();
                                assert!(list.len() <= KEEP + 1, "{kind:?} {key}: {list:?}");
                                assert!(list.iter().all(|&p| u64::from(p) % KEYS == key));
                                assert!(list.is_sorted_by(|a, b| a < b), "{list:?}");
                            }
                        }
                    });
                }
                let _guard = epoch::pin();
                let mut model: Vec<Vec<u32>> = vec![Vec::new(); KEYS as usize];
                for round in 0..3000u32 {
                    for key in 0..KEYS {
                        let p = round * KEYS as u32 + key as u32;
                        index.push(key, p);
                        model[key as usize].push(p);
                    }
                    let mut gone = Vec::new();
                    for (key, list) in model.iter_mut().enumerate() {
                        let keep = if (round + key as u32).is_multiple_of(50) {
                            0
                        } else {
                            KEEP
                        };
                        let cut = list.len().saturating_sub(keep);
                        gone.extend(list.drain(..cut).map(|p| (key as u64, p)));
                    }
                    index.remove_all(&mut gone);
                }
                done.store(true, SeqCst);
                for key in 0..KEYS {
                    assert_eq!(index.get(key).collect::<Vec<_>>(), model[key as usize]);
                }
            });
        }
    }
}
