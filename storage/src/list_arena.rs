//! Adjacency lists packed into one arena per index.
//!
//! A `Vec<Vec<u32>>` costs 24 bytes per key plus a heap block per list;
//! here a key costs one 8-byte [`ListHead`]: a list of one position is
//! stored inline in the head, and so is a list of *consecutive* positions
//! (`start, start + 1, ...`: a vertex's properties written together, the
//! edges of a source in a bulk-loaded cell, which is clustered by source),
//! so the commonest lists cost no arena entries and a probe no second
//! cache miss. Other lists are runs in a shared `Vec<u32>`.
//! A run's capacity is the next power of two of its block (header and
//! positions), or exactly its block for a *tight* run (one bit in the head;
//! compaction leaves runs tight), so a full run moves to the arena's end
//! with twice the room and appends stay amortised O(1). Runs left behind
//! are holes; when the arena exceeds three times its live entries it is
//! compacted (every run copied tight, in head order, into a fresh arena),
//! amortised O(1) per push too.
//!
//! An *ordered* arena (the S index of edges) also keeps each list's
//! **sorted prefix**: the caller supplies an order on positions (the
//! tuples' (P, O)), and a list is a prefix sorted by it followed by an
//! unsorted tail of later appends. Lookups of one (P, O) binary search the
//! prefix and scan the tail. Each run then starts with one header word,
//! the prefix length; inline and consecutive lists have no header and are
//! sorted throughout, so an append that would break their order moves the
//! list into the arena (a bulk-loaded cell, ordered by (P, S, O), keeps its
//! lists consecutive and sorted at no cost). When the tail outgrows the
//! square root of the list's length it is sorted and merged into the
//! prefix (binary searches into the prefix, then one pass moving
//! positions): per append, amortised O(log n) order reads and O(sqrt n)
//! word moves, while a lookup scans at most sqrt(n) tail entries. (An
//! eighth of the list instead left a hub of 30,000 edges per cell scanning
//! up to 3,750 on every lookup: 6.4 us vs 0.67 us per lookup, bench
//! `storage/expand_into_hub`.)
//!
//! Invariants:
//! - a consecutive head (flag set, `len >= 2`) owns no arena entries and
//!   lists `start .. start + len`; the first push that breaks the sequence
//!   (or, in an ordered arena, the order), or a removal from its middle,
//!   moves it into the arena;
//! - a head with `len >= 2` and no consecutive flag owns
//!   `entries[start .. start + header + cap]` where `cap` is at least the
//!   head's derived capacity (after removals the real capacity may exceed
//!   the derived one, never the reverse), and no two heads own overlapping
//!   runs;
//! - in an ordered arena, a run's header `h <= len` and its first `h`
//!   positions are sorted by the caller's order;
//! - `live` is the sum of `len` over arena heads (`len >= 2`, not
//!   consecutive), `runs` their number;
//! - lists keep insertion order (removal shifts, never swaps) except where
//!   an ordered arena merges a tail into its prefix.
//! - The arena holds at most ~3x the live entries plus a constant; callers
//!   cap a partition at 2^28 tuples, so `u32` run offsets cannot overflow.

/// One key's list: empty (`len == 0`), one inline position (`len == 1`,
/// `start` is the position), consecutive positions from `start` (the
/// [`CONSECUTIVE`] bit of `len`), or a run in the arena (`len >= 2`). The
/// top bit of `len` marks a *tight* run (capacity == length, as compaction
/// leaves it); otherwise the block's capacity is the next power of two.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct ListHead {
    start: u32,
    len: u32,
}

const TIGHT: u32 = 1 << 31;
const CONSECUTIVE: u32 = 1 << 30;
const FLAGS: u32 = TIGHT | CONSECUTIVE;

impl ListHead {
    pub(crate) const EMPTY: ListHead = ListHead { start: 0, len: 0 };

    pub(crate) fn len(&self) -> usize {
        (self.len & !FLAGS) as usize
    }

    fn is_consecutive(&self) -> bool {
        self.len & CONSECUTIVE != 0
    }

    /// True when the list lives in the arena.
    fn in_arena(&self) -> bool {
        self.len() >= 2 && !self.is_consecutive()
    }

    fn consecutive(start: u32, len: usize) -> ListHead {
        match len {
            0 => ListHead::EMPTY,
            1 => ListHead { start, len: 1 },
            _ => ListHead {
                start,
                len: len as u32 | CONSECUTIVE,
            },
        }
    }

    /// The positions this run may hold with a `header`-word header (never
    /// more than its block's real room).
    fn capacity(&self, header: usize) -> usize {
        let len = self.len();
        if self.len & TIGHT != 0 {
            len
        } else {
            (len + header).next_power_of_two() - header
        }
    }

    /// The run's positions, after its `header`.
    fn run(&self, header: usize) -> std::ops::Range<usize> {
        let start = self.start as usize + header;
        start..start + self.len()
    }

    /// The run's header and positions.
    fn block(&self, header: usize) -> std::ops::Range<usize> {
        self.start as usize..self.start as usize + header + self.len()
    }

    fn set_len(&mut self, len: usize) {
        self.len = (self.len & TIGHT) | len as u32;
    }
}

/// Holes are tolerated up to this many entries before compaction is
/// considered at all (small indexes never compact).
const MIN_COMPACTION: usize = 4096;

/// An ordered list's tail is merged into its prefix once it is longer than
/// this and than the square root of the list's length.
const MIN_TAIL: usize = 16;

/// The positions a list holds, without copying them: a slice of the
/// arena, or a range for inline and consecutive lists.
#[derive(Clone, Debug)]
pub(crate) enum Positions<'a> {
    List(std::slice::Iter<'a, u32>),
    Run(std::ops::Range<u32>),
}

impl Iterator for Positions<'_> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        match self {
            Positions::List(list) => list.next().copied(),
            Positions::Run(run) => run.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Positions::List(list) => list.size_hint(),
            Positions::Run(run) => run.size_hint(),
        }
    }
}

impl ExactSizeIterator for Positions<'_> {}

impl<'a> Positions<'a> {
    pub(crate) const NONE: Positions<'static> = Positions::Run(0..0);

    /// Prefetches the start of an arena list (a range needs nothing).
    #[inline]
    pub(crate) fn prefetch(&self) {
        if let Positions::List(list) = self {
            crate::prefetch::line(list.as_slice().as_ptr());
        }
    }

    /// The positions from the first one `before` is false for, found by
    /// binary search: `before` must hold for a prefix of the list and for
    /// nothing after it (a lower bound in a sorted prefix).
    pub(crate) fn seek(self, mut before: impl FnMut(u32) -> bool) -> Positions<'a> {
        match self {
            Positions::List(list) => {
                let list = list.as_slice();
                let at = list.partition_point(|&p| before(p));
                Positions::List(list[at..].iter())
            }
            Positions::Run(run) => {
                let (mut lo, mut hi) = (run.start, run.end);
                while lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    if before(mid) {
                        lo = mid + 1;
                    } else {
                        hi = mid;
                    }
                }
                Positions::Run(lo..run.end)
            }
        }
    }

    /// The first `n` positions and the rest.
    fn split_at(self, n: usize) -> (Positions<'a>, Positions<'a>) {
        match self {
            Positions::List(list) => {
                let (head, tail) = list.as_slice().split_at(n);
                (Positions::List(head.iter()), Positions::List(tail.iter()))
            }
            Positions::Run(run) => {
                let mid = run.start + n as u32;
                (Positions::Run(run.start..mid), Positions::Run(mid..run.end))
            }
        }
    }
}

#[derive(Default)]
pub(crate) struct ListArena {
    entries: Vec<u32>,
    live: usize,
    runs: usize,
    /// 1 in an ordered arena (each run starts with its sorted-prefix
    /// length), else 0.
    header: usize,
}

impl ListArena {
    /// An arena that keeps each list's sorted prefix (module docs).
    pub(crate) fn ordered() -> Self {
        ListArena {
            header: 1,
            ..ListArena::default()
        }
    }

    pub(crate) fn is_ordered(&self) -> bool {
        self.header == 1
    }

    /// Appends `position` (an unordered arena).
    pub(crate) fn push(&mut self, head: &mut ListHead, position: u32) {
        self.push_in_order(head, position, true);
    }

    /// Appends `position`; `in_order` says whether it sorts at or after
    /// the list's last position (ignored by an unordered arena).
    pub(crate) fn push_in_order(&mut self, head: &mut ListHead, position: u32, in_order: bool) {
        let in_order = in_order || self.header == 0;
        let len = head.len();
        if len >= 1 && !head.in_arena() {
            if in_order && head.start.checked_add(len as u32) == Some(position) {
                *head = ListHead::consecutive(head.start, len + 1);
                return;
            }
            // An inline or consecutive list whose sequence (or order)
            // breaks moves into the arena, sorted up to the new position.
            let start = self.entries.len();
            if self.header == 1 {
                self.entries.push((len + usize::from(in_order)) as u32);
            }
            self.entries.extend(head.start..head.start + len as u32);
            self.entries.push(position);
            *head = self.run_from(start);
            self.live += len + 1;
            self.runs += 1;
            return;
        }
        match len {
            0 => {
                head.start = position;
                head.len = 1;
                return;
            }
            len if len < head.capacity(self.header) => {
                self.entries[head.run(self.header).end] = position;
                head.set_len(len + 1);
            }
            _ => {
                let start = self.entries.len();
                self.entries.extend_from_within(head.block(self.header));
                self.entries.push(position);
                *head = self.run_from(start);
            }
        }
        self.live += 1;
        if self.header == 1 && in_order {
            let prefix = &mut self.entries[head.start as usize];
            if *prefix as usize == len {
                *prefix += 1;
            }
        }
    }

    /// The entries appended from `start` on (header included), as a run
    /// with power-of-two room (the arena is padded to it); callers account
    /// `live` and `runs`.
    fn run_from(&mut self, start: usize) -> ListHead {
        let block = self.entries.len() - start;
        self.entries.resize(start + block.next_power_of_two(), 0);
        ListHead {
            start: start as u32,
            len: (block - self.header) as u32,
        }
    }

    /// Removes the first occurrence of `position`; true when it was there.
    pub(crate) fn remove(&mut self, head: &mut ListHead, position: u32) -> bool {
        if head.is_consecutive() {
            let (start, len) = (head.start, head.len());
            let end = start + len as u32;
            if !(start..end).contains(&position) {
                return false;
            }
            if position == start {
                *head = ListHead::consecutive(start + 1, len - 1);
            } else if position == end - 1 {
                *head = ListHead::consecutive(start, len - 1);
            } else {
                // A hole in the middle: the rest moves into the arena.
                let at = self.entries.len();
                if self.header == 1 {
                    self.entries.push(len as u32 - 1);
                }
                self.entries.extend((start..end).filter(|&p| p != position));
                *head = self.run_from(at);
                self.live += len - 1;
                self.runs += 1;
            }
            return true;
        }
        match head.len() {
            0 => false,
            1 => {
                let found = head.start == position;
                if found {
                    *head = ListHead::EMPTY;
                }
                found
            }
            len => {
                let run = head.run(self.header);
                let Some(at) = self.entries[run.clone()]
                    .iter()
                    .position(|&p| p == position)
                else {
                    return false;
                };
                self.entries
                    .copy_within(run.start + at + 1..run.end, run.start + at);
                head.set_len(len - 1);
                self.live -= 1;
                if self.header == 1 && at < self.entries[head.start as usize] as usize {
                    self.entries[head.start as usize] -= 1;
                }
                if len - 1 == 1 {
                    *head = ListHead {
                        start: self.entries[run.start],
                        len: 1,
                    };
                    self.live -= 1;
                    self.runs -= 1;
                }
                true
            }
        }
    }

    pub(crate) fn get(&self, head: &ListHead) -> Positions<'_> {
        if head.in_arena() {
            Positions::List(self.entries[head.run(self.header)].iter())
        } else {
            Positions::Run(head.start..head.start + head.len() as u32)
        }
    }

    /// The list's last position.
    pub(crate) fn last(&self, head: &ListHead) -> Option<u32> {
        match head.len() {
            0 => None,
            _ if head.in_arena() => Some(self.entries[head.run(self.header).end - 1]),
            len => Some(head.start + len as u32 - 1),
        }
    }

    /// The list as its sorted prefix and its unsorted tail (an unordered
    /// arena's lists are all tail).
    pub(crate) fn get_sorted(&self, head: &ListHead) -> (Positions<'_>, Positions<'_>) {
        let prefix = match self.header {
            0 => 0,
            _ if head.in_arena() => self.entries[head.start as usize] as usize,
            _ => head.len(),
        };
        self.get(head).split_at(prefix)
    }

    /// Merges the list's tail into its sorted prefix when the tail has
    /// grown past [`MIN_TAIL`] and the square root of the list's length; `order` gives a
    /// position's sort key (the same order every push of this list used).
    pub(crate) fn merge_long_tail<K: Ord>(&mut self, head: &ListHead, order: impl Fn(u32) -> K) {
        if self.header == 0 || !head.in_arena() {
            return;
        }
        let len = head.len();
        let run = head.run(self.header);
        let prefix = self.entries[head.start as usize] as usize;
        let tail = len - prefix;
        if tail <= MIN_TAIL || tail <= len.isqrt() {
            return;
        }
        let list = &mut self.entries[run];
        let mut keyed: Vec<(K, u32)> = list[prefix..].iter().map(|&p| (order(p), p)).collect();
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        // Each tail position goes after the prefix positions that sort at
        // or before it (stable: equal keys keep prefix-first order).
        let mut merged = Vec::with_capacity(len);
        let mut from = 0;
        for (key, position) in keyed {
            let upto = from + list[from..prefix].partition_point(|&p| order(p) <= key);
            merged.extend_from_slice(&list[from..upto]);
            merged.push(position);
            from = upto;
        }
        merged.extend_from_slice(&list[from..prefix]);
        list.copy_from_slice(&merged);
        self.entries[head.start as usize] = len as u32;
    }

    fn payload(&self) -> usize {
        self.live + self.runs * self.header
    }

    pub(crate) fn wants_compaction(&self) -> bool {
        self.entries.len() > 3 * self.payload() + MIN_COMPACTION
    }

    /// Copies every run, tight, into a fresh arena of exactly the live
    /// entries (and headers); `heads` must be all the heads that use this
    /// arena.
    pub(crate) fn compact<'h>(&mut self, heads: impl Iterator<Item = &'h mut ListHead>) {
        let mut entries = Vec::with_capacity(self.payload());
        for head in heads.filter(|h| h.in_arena()) {
            let start = entries.len();
            entries.extend_from_slice(&self.entries[head.block(self.header)]);
            *head = ListHead {
                start: start as u32,
                len: head.len() as u32 | TIGHT,
            };
        }
        self.entries = entries;
    }

    /// True when holes and spare room exceed a quarter of the live
    /// entries: worth a compaction after a bulk load (a small load into a
    /// big tight arena leaves little slack, so it does not pay O(arena)).
    pub(crate) fn has_slack(&self) -> bool {
        let payload = self.payload();
        self.entries.capacity() > payload + payload / 4 + MIN_COMPACTION
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A made-up order on positions for the ordered arena's tests (not
    /// the positions' own order, so appends break it often).
    fn order(position: u32) -> u32 {
        position % 7
    }

    fn check_ordered(arena: &ListArena, head: &ListHead) -> Result<(), TestCaseError> {
        let (prefix, tail) = arena.get_sorted(head);
        prop_assert_eq!(prefix.len() + tail.len(), head.len());
        let keys: Vec<u32> = prefix.map(order).collect();
        prop_assert!(keys.is_sorted(), "prefix {:?} not sorted", keys);
        Ok(())
    }

    proptest! {
        /// Any sequence of pushes, removals and compactions over a few
        /// lists behaves like a `Vec<Vec<u32>>` that keeps insertion order;
        /// in an ordered arena, like one that keeps the same positions with
        /// a sorted prefix (merges reorder the tail into it).
        #[test]
        fn lists_behave_like_vectors(
            ordered in any::<bool>(),
            ops in proptest::collection::vec((0usize..6, 0u8..3, 0u32..40), 0..400),
        ) {
            let mut arena = if ordered { ListArena::ordered() } else { ListArena::default() };
            let mut heads = [ListHead::EMPTY; 6];
            let mut model: Vec<Vec<u32>> = vec![Vec::new(); 6];
            for (step, (key, op, position)) in ops.into_iter().enumerate() {
                if op > 0 {
                    // op 2 continues the list's sequence (the consecutive form).
                    let position = match (op, model[key].last()) {
                        (2, Some(&last)) => last + 1,
                        _ => position,
                    };
                    let in_order = arena.last(&heads[key]).is_none_or(|last| order(last) <= order(position));
                    arena.push_in_order(&mut heads[key], position, in_order);
                    arena.merge_long_tail(&heads[key], order);
                    model[key].push(position);
                } else {
                    let found = arena.remove(&mut heads[key], position);
                    let listed: Vec<u32> = arena.get(&heads[key]).collect();
                    let at = model[key].iter().position(|&p| p == position);
                    prop_assert_eq!(found, at.is_some());
                    if let Some(at) = at {
                        model[key].remove(at);
                    }
                    if ordered {
                        // The first occurrence in the list order went.
                        model[key].sort();
                        let mut sorted = listed.clone();
                        sorted.sort();
                        prop_assert_eq!(&sorted, &model[key]);
                        model[key] = listed;
                    }
                }
                if step % 37 == 0 {
                    arena.compact(heads.iter_mut());
                }
                for k in 0..6 {
                    let listed: Vec<u32> = arena.get(&heads[k]).collect();
                    if ordered {
                        check_ordered(&arena, &heads[k])?;
                        let (mut a, mut b) = (listed.clone(), model[k].clone());
                        a.sort();
                        b.sort();
                        prop_assert_eq!(a, b);
                        model[k] = listed;
                    } else {
                        prop_assert_eq!(listed, model[k].clone());
                    }
                    prop_assert_eq!(heads[k].len(), model[k].len());
                    prop_assert_eq!(arena.last(&heads[k]), model[k].last().copied());
                }
                let arena_heads = heads.iter().filter(|h| h.in_arena());
                prop_assert_eq!(arena.live, arena_heads.clone().map(ListHead::len).sum::<usize>());
                prop_assert_eq!(arena.runs, arena_heads.count());
            }
        }

        /// `seek` finds the lower bound in a list and in a range alike.
        #[test]
        fn seek_is_a_lower_bound(mut list in proptest::collection::vec(0u32..50, 0..40), bound in 0u32..55, start in 0u32..50) {
            list.sort();
            let found: Vec<u32> = Positions::List(list.iter()).seek(|p| p < bound).collect();
            prop_assert_eq!(found, list.iter().copied().filter(|&p| p >= bound).collect::<Vec<_>>());
            let found: Vec<u32> = Positions::Run(start..start + 20).seek(|p| p < bound).collect();
            prop_assert_eq!(found, (start.max(bound)..start + 20).collect::<Vec<_>>());
        }
    }

    #[test]
    fn an_ordered_list_keeps_its_prefix_and_merges_a_long_tail() {
        let mut arena = ListArena::ordered();
        let mut head = ListHead::EMPTY;
        let key = |p: u32| 100 - p;
        // Descending positions ascend in `key`: appended in order, but not
        // consecutive, so the list lives in the arena, sorted throughout.
        for p in [50, 40, 30] {
            let in_order = arena.last(&head).is_none_or(|last| key(last) <= key(p));
            arena.push_in_order(&mut head, p, in_order);
        }
        let (prefix, tail) = arena.get_sorted(&head);
        assert_eq!((prefix.len(), tail.len()), (3, 0));
        for p in 41..41 + MIN_TAIL as u32 + 1 {
            let in_order = arena.last(&head).is_none_or(|last| key(last) <= key(p));
            arena.push_in_order(&mut head, p, in_order);
            arena.merge_long_tail(&head, key);
        }
        let (prefix, tail) = arena.get_sorted(&head);
        assert_eq!((prefix.len(), tail.len()), (head.len(), 0));
        let listed: Vec<u32> = arena.get(&head).collect();
        assert!(
            listed.windows(2).all(|w| key(w[0]) <= key(w[1])),
            "{listed:?}"
        );
    }

    #[test]
    fn consecutive_lists_take_no_arena_entries() {
        let mut arena = ListArena::default();
        let mut head = ListHead::EMPTY;
        for p in 10..15 {
            arena.push(&mut head, p);
        }
        assert!(arena.entries.is_empty());
        assert_eq!(
            arena.get(&head).collect::<Vec<_>>(),
            vec![10, 11, 12, 13, 14]
        );
        assert!(arena.remove(&mut head, 10));
        assert!(arena.remove(&mut head, 14));
        assert!(arena.entries.is_empty());
        assert!(arena.remove(&mut head, 12));
        assert_eq!(arena.get(&head).collect::<Vec<_>>(), vec![11, 13]);
        assert_eq!(arena.live, 2);
    }
}
