//! Adjacency lists packed into one arena per index.
//!
//! A `Vec<Vec<u32>>` costs 24 bytes per key plus a heap block per list;
//! here a key costs one 8-byte [`ListHead`]: a list of one position is
//! stored inline in the head, and so is a list of *consecutive* positions
//! (`start, start + 1, ...`: a vertex's properties written together, the
//! edges of a source in a bulk-loaded cell, which is clustered by source),
//! so the commonest lists cost no arena entries and a probe no second
//! cache miss. Other lists are runs in a shared `Vec<u32>`.
//! A run's capacity is the next power of two of its length, or exactly its
//! length for a *tight* run (one bit in the head; compaction leaves runs
//! tight), so a full run moves to the arena's end with twice the room and
//! appends stay amortised O(1). Runs left behind are holes; when the arena
//! exceeds three times its live entries it is compacted (every run copied
//! tight, in head order, into a fresh arena), amortised O(1) per push too.
//!
//! Invariants:
//! - a consecutive head (flag set, `len >= 2`) owns no arena entries and
//!   lists `start .. start + len`; the first push that breaks the sequence,
//!   or a removal from its middle, moves it into the arena;
//! - a head with `len >= 2` and no consecutive flag owns `entries[start .. start + cap]` where
//!   `cap` is at least the head's derived capacity (after removals the real
//!   capacity may exceed the derived one, never the reverse), and no two
//!   heads own overlapping runs;
//! - `live` is the sum of `len` over arena heads (`len >= 2`, not
//!   consecutive);
//! - lists keep insertion order (removal shifts, never swaps).
//! - The arena holds at most ~3x the live entries plus a constant; callers
//!   cap a partition at 2^28 tuples, so `u32` run offsets cannot overflow.

/// One key's list: empty (`len == 0`), one inline position (`len == 1`,
/// `start` is the position), consecutive positions from `start` (the
/// [`CONSECUTIVE`] bit of `len`), or a run in the arena (`len >= 2`). The
/// top bit of `len` marks a *tight* run (capacity == length, as compaction
/// leaves it); otherwise the capacity is the next power of two.
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

    /// The capacity this head may use (never more than its run's real one).
    fn capacity(&self) -> usize {
        let len = self.len();
        if self.len & TIGHT != 0 {
            len
        } else {
            len.next_power_of_two()
        }
    }

    fn run(&self) -> std::ops::Range<usize> {
        self.start as usize..self.start as usize + self.len()
    }

    fn set_len(&mut self, len: usize) {
        self.len = (self.len & TIGHT) | len as u32;
    }
}

/// Holes are tolerated up to this many entries before compaction is
/// considered at all (small indexes never compact).
const MIN_COMPACTION: usize = 4096;

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

impl Positions<'_> {
    pub(crate) const NONE: Positions<'static> = Positions::Run(0..0);

    /// Prefetches the start of an arena list (a range needs nothing).
    #[inline]
    pub(crate) fn prefetch(&self) {
        if let Positions::List(list) = self {
            crate::prefetch::line(list.as_slice().as_ptr());
        }
    }
}

#[derive(Default)]
pub(crate) struct ListArena {
    entries: Vec<u32>,
    live: usize,
}

impl ListArena {
    pub(crate) fn push(&mut self, head: &mut ListHead, position: u32) {
        let len = head.len();
        if len >= 1 && !head.in_arena() {
            if head.start.checked_add(len as u32) == Some(position) {
                *head = ListHead::consecutive(head.start, len + 1);
                return;
            }
            // An inline or consecutive list whose sequence breaks moves
            // into the arena.
            let start = self.entries.len();
            self.entries.extend(head.start..head.start + len as u32);
            self.entries.push(position);
            *head = self.run_from(start);
            self.live += len + 1;
            return;
        }
        match len {
            0 => {
                head.start = position;
                head.len = 1;
            }
            len if len < head.capacity() => {
                self.entries[head.start as usize + len] = position;
                head.set_len(len + 1);
                self.live += 1;
            }
            _ => {
                let start = self.entries.len();
                self.entries.extend_from_within(head.run());
                self.entries.push(position);
                *head = self.run_from(start);
                self.live += 1;
            }
        }
    }

    /// The entries appended from `start` on, as a run with power-of-two
    /// room (the arena is padded to it); callers account `live`.
    fn run_from(&mut self, start: usize) -> ListHead {
        let len = self.entries.len() - start;
        self.entries.resize(start + len.next_power_of_two(), 0);
        ListHead {
            start: start as u32,
            len: len as u32,
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
                self.entries.extend((start..end).filter(|&p| p != position));
                *head = self.run_from(at);
                self.live += len - 1;
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
                let run = head.run();
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
                if len - 1 == 1 {
                    *head = ListHead {
                        start: self.entries[run.start],
                        len: 1,
                    };
                    self.live -= 1;
                }
                true
            }
        }
    }

    pub(crate) fn get(&self, head: &ListHead) -> Positions<'_> {
        if head.in_arena() {
            Positions::List(self.entries[head.run()].iter())
        } else {
            Positions::Run(head.start..head.start + head.len() as u32)
        }
    }

    pub(crate) fn wants_compaction(&self) -> bool {
        self.entries.len() > 3 * self.live + MIN_COMPACTION
    }

    /// Copies every run, tight, into a fresh arena of exactly the live
    /// entries; `heads` must be all the heads that use this arena.
    pub(crate) fn compact<'h>(&mut self, heads: impl Iterator<Item = &'h mut ListHead>) {
        let mut entries = Vec::with_capacity(self.live);
        for head in heads.filter(|h| h.in_arena()) {
            let start = entries.len();
            entries.extend_from_slice(&self.entries[head.run()]);
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
        self.entries.capacity() > self.live + self.live / 4 + MIN_COMPACTION
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Any sequence of pushes, removals and compactions over a few
        /// lists behaves like a `Vec<Vec<u32>>` that keeps insertion order.
        #[test]
        fn lists_behave_like_vectors(ops in proptest::collection::vec((0usize..6, 0u8..3, 0u32..20), 0..400)) {
            let mut arena = ListArena::default();
            let mut heads = [ListHead::EMPTY; 6];
            let mut model: Vec<Vec<u32>> = vec![Vec::new(); 6];
            for (step, (key, op, position)) in ops.into_iter().enumerate() {
                if op > 0 {
                    // op 2 continues the list's sequence (the consecutive form).
                    let position = match (op, model[key].last()) {
                        (2, Some(&last)) => last + 1,
                        _ => position,
                    };
                    arena.push(&mut heads[key], position);
                    model[key].push(position);
                } else {
                    let found = arena.remove(&mut heads[key], position);
                    let at = model[key].iter().position(|&p| p == position);
                    prop_assert_eq!(found, at.is_some());
                    if let Some(at) = at {
                        model[key].remove(at);
                    }
                }
                if step % 37 == 0 {
                    arena.compact(heads.iter_mut());
                }
                for k in 0..6 {
                    prop_assert_eq!(arena.get(&heads[k]).collect::<Vec<_>>(), model[k].clone());
                    prop_assert_eq!(heads[k].len(), model[k].len());
                }
                let live: usize = heads.iter().filter(|h| h.in_arena()).map(ListHead::len).sum();
                prop_assert_eq!(arena.live, live);
            }
        }
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
