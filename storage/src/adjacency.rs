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

use crate::head_table::HeadTable;
use crate::ids::COUNTER_BITS;
use crate::list_arena::{ListArena, ListHead, Positions};
use crate::paged::PagedVec;

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

pub(crate) struct AdjacencyIndex {
    kind: KeyKind,
    /// 256 heads (2 KiB) per page.
    dense: PagedVec<ListHead, 256>,
    hashed: HeadTable,
    lists: ListArena,
    keys: usize,
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
            dense: PagedVec::new(ListHead::EMPTY),
            hashed: HeadTable::default(),
            lists,
            keys: 0,
        }
    }

    pub(crate) fn is_ordered(&self) -> bool {
        self.lists.is_ordered()
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

    pub(crate) fn push(&mut self, key: u64, position: u32) {
        debug_assert!(!self.is_ordered(), "an ordered index takes push_ordered");
        self.push_with(key, |lists, head| lists.push(head, position));
    }

    /// Appends `position` to `key`'s list in an ordered index; `order`
    /// gives a position's sort key (the same for every push), read for
    /// the new position and the list's last one, and for the tail's when
    /// it is merged into the sorted prefix.
    pub(crate) fn push_ordered<K: Ord>(
        &mut self,
        key: u64,
        position: u32,
        order: impl Fn(u32) -> K,
    ) {
        self.push_with(key, |lists, head| {
            let in_order = lists
                .last(head)
                .is_none_or(|last| order(last) <= order(position));
            lists.push_in_order(head, position, in_order);
            lists.merge_long_tail(head, &order);
        });
    }

    fn push_with(&mut self, key: u64, push: impl FnOnce(&mut ListArena, &mut ListHead)) {
        let slot = self.slot(key);
        let (lists, keys) = (&mut self.lists, &mut self.keys);
        let add = |head: &mut ListHead| {
            if head.len() == 0 {
                *keys += 1;
            }
            push(lists, head);
        };
        match slot {
            Some(slot) => add(self.dense.entry(slot)),
            None => self.hashed.update(key, add),
        }
        if self.lists.wants_compaction() {
            let heads = self.dense.values_mut().chain(self.hashed.heads_mut());
            self.lists.compact(heads);
        }
    }

    /// Removes `position` from `key`'s list (garbage collection).
    pub(crate) fn remove(&mut self, key: u64, position: u32) {
        let slot = self.slot(key);
        let (lists, keys) = (&mut self.lists, &mut self.keys);
        let mut take = |head: &mut ListHead| {
            if lists.remove(head, position) && head.len() == 0 {
                *keys -= 1;
            }
        };
        match slot {
            Some(slot) => {
                if let Some(head) = self.dense.get_mut(slot) {
                    take(head);
                }
            }
            None => {
                self.hashed.update_existing(key, take);
            }
        }
    }

    /// Positions listed under `key`'s slot (callers check the exact key).
    pub(crate) fn get(&self, key: u64) -> Positions<'_> {
        self.head(key)
            .map_or(Positions::NONE, |head| self.lists.get(head))
    }

    fn head(&self, key: u64) -> Option<&ListHead> {
        match self.slot(key) {
            Some(slot) => self.dense.get(slot),
            None => self.hashed.get(key),
        }
    }

    /// [`AdjacencyIndex::get`] as the sorted prefix and the unsorted tail
    /// (all tail in an unordered index).
    pub(crate) fn get_sorted(&self, key: u64) -> (Positions<'_>, Positions<'_>) {
        self.head(key)
            .map_or((Positions::NONE, Positions::NONE), |head| {
                self.lists.get_sorted(head)
            })
    }

    /// Prefetches the head [`AdjacencyIndex::get`] reads for `key` (for a
    /// hashed key, the line its probe starts at).
    #[inline]
    pub(crate) fn prefetch(&self, key: u64) {
        match self.slot(key) {
            Some(slot) => self.dense.prefetch(slot),
            None => self.hashed.prefetch(key),
        }
    }

    /// Number of keys with a non-empty list.
    pub(crate) fn keys(&self) -> usize {
        self.keys
    }

    /// Gives back slack after a bulk load: compacts the arena tight and
    /// trims the head array when either carries more than a quarter spare.
    pub(crate) fn shrink(&mut self) {
        if self.lists.has_slack() {
            let heads = self.dense.values_mut().chain(self.hashed.heads_mut());
            self.lists.compact(heads);
        }
        self.dense.shrink();
        self.hashed.shrink();
    }
}

/// Statement id -> position, as a direct-access array by local number
/// (`u32::MAX` = absent): partition-local numbers are dense. While every
/// tuple sits at the position equal to its local number (no slot reused,
/// no local skipped: the common case) the array is not kept at all. The
/// answer is a candidate: the partition checks the tuple there has the SID
/// and is not freed.
pub(crate) enum StatementIndex {
    /// Position == local number for every local below `len`.
    Identity {
        len: u32,
    },
    Mapped(Vec<u32>),
}

impl Default for StatementIndex {
    fn default() -> Self {
        StatementIndex::Identity { len: 0 }
    }
}

impl StatementIndex {
    pub(crate) fn insert(&mut self, sid: u64, position: u32) {
        let local = (sid & LOCAL_MASK) as u32;
        match self {
            StatementIndex::Identity { len } if local == position && local == *len => {
                *len += 1;
            }
            StatementIndex::Identity { len } => {
                let mut positions: Vec<u32> = (0..*len).collect();
                Self::set(&mut positions, local, position);
                *self = StatementIndex::Mapped(positions);
            }
            StatementIndex::Mapped(positions) => Self::set(positions, local, position),
        }
    }

    fn set(positions: &mut Vec<u32>, local: u32, position: u32) {
        let local = local as usize;
        if local >= positions.len() {
            positions.resize(local + 1, u32::MAX);
        }
        positions[local] = position;
    }

    /// Forgets `sid` if it still points at `position` (identity entries
    /// need nothing: the freed slot fails the partition's check).
    pub(crate) fn remove(&mut self, sid: u64, position: u32) {
        if let StatementIndex::Mapped(positions) = self {
            if let Some(slot) = positions.get_mut((sid & LOCAL_MASK) as usize) {
                if *slot == position {
                    *slot = u32::MAX;
                }
            }
        }
    }

    pub(crate) fn get(&self, sid: u64) -> Option<u32> {
        let local = sid & LOCAL_MASK;
        match self {
            StatementIndex::Identity { len } => (local < u64::from(*len)).then_some(local as u32),
            StatementIndex::Mapped(positions) => positions
                .get(local as usize)
                .copied()
                .filter(|&p| p != u32::MAX),
        }
    }

    pub(crate) fn reserve(&mut self, additional: usize) {
        if let StatementIndex::Mapped(positions) = self {
            positions.reserve(additional);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{make_gui, make_sid, TAG_E, TAG_VERT};

    #[test]
    fn vertex_keys_of_one_partition_get_distinct_dense_slots() {
        let mut index = AdjacencyIndex::new(KeyKind::Vertex { part_bits: 2 });
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
        let mut index = StatementIndex::default();
        for local in 0..5 {
            index.insert(make_sid(TAG_E, 0, local), local);
        }
        assert!(matches!(index, StatementIndex::Identity { len: 5 }));
        assert_eq!(index.get(make_sid(TAG_E, 0, 4)), Some(4));
        assert_eq!(index.get(make_sid(TAG_E, 0, 5)), None);
        index.remove(make_sid(TAG_E, 0, 2), 2);
        // slot 2 reused by local 5: the map becomes explicit
        index.insert(make_sid(TAG_E, 0, 5), 2);
        assert!(matches!(index, StatementIndex::Mapped(_)));
        assert_eq!(index.get(make_sid(TAG_E, 0, 5)), Some(2));
        assert_eq!(index.get(make_sid(TAG_E, 0, 3)), Some(3));
        assert_eq!(index.get(make_sid(TAG_E, 0, 6)), None);
    }

    #[test]
    fn statement_index_is_exact_for_its_partition() {
        let mut index = StatementIndex::default();
        index.insert(make_sid(TAG_E, 3, 10), 0);
        assert_eq!(index.get(make_sid(TAG_E, 3, 10)), Some(0));
        assert_eq!(index.get(make_sid(TAG_E, 3, 11)), None);
        assert_eq!(index.get(make_sid(TAG_E, 3, 1 << 20)), None);
        let mut hashed = AdjacencyIndex::new(KeyKind::Hashed);
        hashed.push(42, 1);
        assert_eq!(hashed.get(42).collect::<Vec<_>>(), [1]);
        assert_eq!(hashed.get(43).len(), 0);
    }
}
