//! Adjacency lists packed into one arena per index, read without a lock
//! while the index's one writer appends (module `pinned`, ADR 0080).
//!
//! A `Vec<Vec<u32>>` costs 24 bytes per key plus a heap block per list;
//! here a key costs one 8-byte [`ListHead`]: a list of one position is
//! stored inline in the head, and so is a list of *consecutive* positions
//! (`start, start + 1, ...`: a vertex's properties written together, the
//! edges of a source in a bulk-loaded cell, which is clustered by source),
//! so the commonest lists cost no arena entries and a probe no second
//! cache miss. Other lists are runs in the arena.
//! A run's capacity is the next power of two of its block (header and
//! positions), or exactly its block for a *tight* run (one bit in the head;
//! compaction leaves runs tight), so a full run moves to the arena's end
//! with twice the room and appends stay amortised O(1). Runs left behind
//! are holes; when the arena exceeds three times its live entries the
//! index is compacted (every run copied tight into a fresh arena, which
//! replaces the old one whole: module `adjacency`), amortised O(1) per
//! push too.
//!
//! **Readers beside the writer.** The arena is chunks of atomic words that
//! never move, each twice the one before, so a run's chunk follows from
//! its offset; a run never spans two chunks, so it is one slice. A
//! published run's positions are never written again: an append within a
//! run's room stores past its published length, then the writer publishes
//! the longer head; everything else that changes a list's positions (a
//! removal, the merge of an ordered tail, the move of an inline or
//! consecutive list) writes a new run and publishes its head. A reader
//! holding an older head reads the older run, complete and unchanged.
//!
//! An *ordered* arena (the S index of edges) also keeps each list's
//! **sorted prefix**: the caller supplies an order on positions (the
//! tuples' (P, O)), and a list is a prefix sorted by it followed by an
//! unsorted tail of later appends. Lookups of one (P, O) binary search the
//! prefix and scan the tail. Each run then starts with one header word,
//! the prefix length (the one word stored in place: it only grows while
//! the prefix is the whole list, and readers cap it at their head's
//! length); inline and consecutive lists have no header and are
//! sorted throughout, so an append that would break their order moves the
//! list into the arena (a bulk-loaded cell, ordered by (P, S, O), keeps its
//! lists consecutive and sorted at no cost). When the tail outgrows the
//! square root of the list's length it is sorted and merged into the
//! prefix (binary searches into the prefix, then one pass writing a new
//! run): per append, amortised O(log n) order reads and O(sqrt n)
//! word moves, while a lookup scans at most sqrt(n) tail entries. (An
//! eighth of the list instead left a hub of 30,000 edges per cell scanning
//! up to 3,750 on every lookup: 6.4 us vs 0.67 us per lookup, bench
//! `storage/expand_into_hub`.)
//!
//! Invariants:
//! - a consecutive head (flag set, `len >= 2`) owns no arena entries and
//!   lists `start .. start + len`; the first push that breaks the sequence
//!   (or, in an ordered arena, the order) moves it into the arena;
//! - a head with `len >= 2` and no consecutive flag owns
//!   `entries[start .. start + header + cap]` where `cap` is its derived
//!   capacity, within one chunk, and no two heads own overlapping runs;
//! - entries `start + header .. start + header + len` of a published head
//!   are never stored into while the arena lives;
//! - in an ordered arena, a run's header `h >= len` or its first `h`
//!   positions are sorted by the caller's order (all `len` when `h >=
//!   len`);
//! - `live` is the sum of `len` over arena heads (`len >= 2`, not
//!   consecutive), `runs` their number;
//! - lists keep insertion order except where an ordered arena merges a
//!   tail into its prefix.
//! - The arena holds at most ~3x the live entries plus a constant; callers
//!   cap a partition at 2^28 tuples, so `u32` run offsets cannot overflow.

use crate::pinned::{self, add};
use crossbeam::epoch::Guard;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicUsize};

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

    /// The bits of a head no list has (both flags: consecutive lists are
    /// never tight), free for a table's own marker.
    pub(crate) const IMPOSSIBLE: u64 = (FLAGS as u64) << 32;

    /// The head as one word (0 for [`ListHead::EMPTY`]), as stored.
    #[inline]
    pub(crate) fn to_bits(self) -> u64 {
        (u64::from(self.len) << 32) | u64::from(self.start)
    }

    #[inline]
    pub(crate) fn from_bits(bits: u64) -> Self {
        ListHead {
            start: bits as u32,
            len: (bits >> 32) as u32,
        }
    }

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

/// The first number of `range` that `before` is false for, by binary
/// search: `before` must hold for a prefix of the range and for nothing
/// after it (`slice::partition_point` over numbers instead of a slice).
pub(crate) fn lower_bound(
    range: std::ops::Range<usize>,
    mut before: impl FnMut(usize) -> bool,
) -> usize {
    let (mut lo, mut hi) = (range.start, range.end);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if before(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

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
                let at = lower_bound(run.start as usize..run.end as usize, |p| before(p as u32));
                Positions::Run(at as u32..run.end)
            }
        }
    }

    /// The first `n` positions and the rest.
    pub(crate) fn split_at(self, n: usize) -> (Positions<'a>, Positions<'a>) {
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

/// Entries of chunk 0 of a new arena, as a power of two.
const FIRST_BITS: u32 = 10;

/// Enough chunks for any `u32` offset.
const CHUNKS: usize = 33;

pub(crate) struct ListArena {
    /// Chunk `k`'s memory, which holds offsets `B * (2^k - 1)` up to
    /// `B * (2^(k+1) - 1)` (`B = 1 << first_bits`): a run's chunk follows
    /// from its offset, and the table is small enough to stay in cache (a
    /// table per 1024-entry block missed on random probes: 18% of an
    /// index lookup's time, bench `storage/expand_filter_1k_pairs`).
    /// Null until allocated; a chunk may be allocated only in part (a
    /// compacted arena's first, sized to its runs).
    bases: [AtomicPtr<AtomicU32>; CHUNKS],
    first_bits: u32,
    /// The chunks, owned here (their memory is freed with the arena).
    chunks: parking_lot::Mutex<Vec<Box<[AtomicU32]>>>,
    /// The next free offset (writer only, as are the counters below).
    len: AtomicUsize,
    /// The end of the allocated part of the last chunk.
    end: AtomicUsize,
    /// Entries handed out, runs and holes, and allocated entries passed
    /// over (a chunk's rest too short for a run): what compaction would
    /// give back, with the live entries (offsets also skip chunk space
    /// never allocated, which costs nothing).
    used: AtomicUsize,
    /// Entries in chunks.
    capacity: AtomicUsize,
    live: AtomicUsize,
    runs: AtomicUsize,
    /// 1 in an ordered arena (each run starts with its sorted-prefix
    /// length), else 0.
    header: usize,
}

impl Default for ListArena {
    fn default() -> Self {
        Self::with_header(0)
    }
}

/// An iterator of known length (a chain of a run and one more position,
/// which the standard library does not count exactly).
struct ExactLen<I>(I, usize);

impl<I: Iterator<Item = u32>> Iterator for ExactLen<I> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        let next = self.0.next();
        self.1 -= usize::from(next.is_some());
        next
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.1, Some(self.1))
    }
}

impl<I: Iterator<Item = u32>> ExactSizeIterator for ExactLen<I> {}

impl ListArena {
    fn with_header(header: usize) -> Self {
        Self::with_layout(header, FIRST_BITS)
    }

    fn with_layout(header: usize, first_bits: u32) -> Self {
        ListArena {
            bases: std::array::from_fn(|_| AtomicPtr::new(std::ptr::null_mut())),
            first_bits,
            chunks: parking_lot::Mutex::new(Vec::new()),
            len: AtomicUsize::new(0),
            end: AtomicUsize::new(0),
            used: AtomicUsize::new(0),
            capacity: AtomicUsize::new(0),
            live: AtomicUsize::new(0),
            runs: AtomicUsize::new(0),
            header,
        }
    }
}

impl ListArena {
    /// An arena that keeps each list's sorted prefix (module docs).
    pub(crate) fn ordered() -> Self {
        Self::with_header(1)
    }

    /// An empty arena of the same kind as `self`, with room for exactly
    /// `self`'s live runs copied tight (compaction): its chunk 0 spans
    /// them and is allocated only that far.
    pub(crate) fn for_compaction(&self) -> Self {
        let payload = self.payload();
        let first_bits = payload.next_power_of_two().trailing_zeros().max(FIRST_BITS);
        let arena = Self::with_layout(self.header, first_bits);
        if payload > 0 {
            arena.add_chunk(0, payload);
        }
        arena
    }

    /// The first offset of chunk `k`.
    #[inline]
    fn chunk_start(&self, k: usize) -> usize {
        ((1 << k) - 1) << self.first_bits
    }

    /// The chunk holding offset `at`, and `at`'s place in it.
    #[inline]
    fn locate(&self, at: usize) -> (usize, usize) {
        let x = (at >> self.first_bits) + 1;
        let k = (usize::BITS - 1 - x.leading_zeros()) as usize;
        (k, at - self.chunk_start(k))
    }

    pub(crate) fn is_ordered(&self) -> bool {
        self.header == 1
    }

    /// The entries `start .. start + len` of one run, as plain words: the
    /// module's invariants keep them unchanged while a head lists them.
    #[inline]
    fn slice<'g>(&'g self, start: usize, len: usize, guard: &'g Guard) -> &'g [u32] {
        if len == 0 {
            return &[];
        }
        // SAFETY: the run lies within one chunk, which is contiguous from
        // its block's memory and lives as long as the arena; its entries
        // are not stored into while listed (module invariants), so reading
        // them as plain `u32` races with no write.
        unsafe { std::slice::from_raw_parts(self.entry(start, guard).cast::<u32>(), len) }
    }

    /// The address of entry `at`, in a block a published head led to.
    #[inline]
    fn entry(&self, at: usize, _guard: &Guard) -> *const AtomicU32 {
        let (k, offset) = self.locate(at);
        // A head listing these entries was published after their chunk
        // was (release/acquire).
        let base = self.bases[k].load(Acquire);
        // SAFETY: within the allocated part of chunk `k`.
        unsafe { base.add(offset) }
    }

    /// The entry at `at` (writer only).
    #[inline]
    fn word(&self, at: usize) -> &AtomicU32 {
        // SAFETY: an entry of a chunk, which lives as long as the arena.
        unsafe { &*self.entry(at, pinned::assumed()) }
    }

    /// Room for `size` entries in one chunk; returns their offset (writer
    /// only). A run that does not fit the last chunk's rest goes to the
    /// next chunk large enough for it, allocated whole (each chunk is
    /// twice the one before, so the arena doubles).
    fn allocate(&self, size: usize) -> usize {
        let at = self.len.load(Relaxed);
        let end = self.end.load(Relaxed);
        if at + size <= end {
            self.len.store(at + size, Relaxed);
            add(&self.used, size as isize);
            return at;
        }
        add(&self.used, (end.saturating_sub(at) + size) as isize);
        let mut k = match self.end.load(Relaxed) {
            0 => 0,
            end => self.locate(end - 1).0 + 1,
        };
        while self.chunk_start(k + 1) - self.chunk_start(k) < size {
            k += 1;
        }
        let whole = self.chunk_start(k + 1) - self.chunk_start(k);
        self.add_chunk(k, whole);
        let start = self.chunk_start(k);
        self.len.store(start + size, Relaxed);
        start
    }

    /// Allocates the first `size` entries of chunk `k` (writer only).
    fn add_chunk(&self, k: usize, size: usize) {
        let start = self.chunk_start(k);
        assert!(
            k < CHUNKS && start + size <= u32::MAX as usize,
            "an adjacency arena outgrew u32 offsets"
        );
        // SAFETY: zeroed memory is a valid `AtomicU32`.
        let chunk = unsafe { Box::<[AtomicU32]>::new_zeroed_slice(size).assume_init() };
        self.bases[k].store(chunk.as_ptr().cast_mut(), Release);
        self.chunks.lock().push(chunk);
        self.end.store(start + size, Relaxed);
        add(&self.capacity, size as isize);
    }

    /// Writes a new run of `positions` after `prefix` (its header in an
    /// ordered arena), with power-of-two room, or exactly its size when
    /// `tight`; returns its head. The caller publishes it and accounts for
    /// the head it replaces ([`ListArena::account`]).
    fn write_run(
        &self,
        prefix: usize,
        positions: impl ExactSizeIterator<Item = u32>,
        tight: bool,
    ) -> ListHead {
        let len = positions.len();
        let block = self.header + len;
        let room = if tight {
            block
        } else {
            block.next_power_of_two()
        };
        let start = self.allocate(room);
        // SAFETY: the run's `room` entries lie in one chunk, from its first.
        let run = unsafe { std::slice::from_raw_parts(self.entry(start, pinned::assumed()), room) };
        if self.header == 1 {
            run[0].store(prefix as u32, Relaxed);
        }
        for (entry, p) in run[self.header..].iter().zip(positions) {
            entry.store(p, Relaxed);
        }
        let flags = if tight { TIGHT } else { 0 };
        ListHead {
            start: start as u32,
            len: len as u32 | flags,
        }
    }

    /// Moves `live` and `runs` from `old` to `new` (the head replacing it).
    fn account(&self, old: &ListHead, new: &ListHead) {
        for (head, sign) in [(old, -1isize), (new, 1)] {
            if head.in_arena() {
                add(&self.live, sign * head.len() as isize);
                add(&self.runs, sign);
            }
        }
    }

    /// Appends `position` (an unordered arena; writer only). The caller
    /// publishes the new head.
    pub(crate) fn push(&self, head: &mut ListHead, position: u32) {
        self.push_in_order(head, position, true);
    }

    /// Appends `position`; `in_order` says whether it sorts at or after
    /// the list's last position (ignored by an unordered arena). Writer
    /// only: the caller publishes the new head.
    pub(crate) fn push_in_order(&self, head: &mut ListHead, position: u32, in_order: bool) {
        let in_order = in_order || self.header == 0;
        let len = head.len();
        let old = *head;
        if len >= 1 && !head.in_arena() {
            if in_order && head.start.checked_add(len as u32) == Some(position) {
                *head = ListHead::consecutive(head.start, len + 1);
                return;
            }
            // An inline or consecutive list whose sequence (or order)
            // breaks moves into the arena, sorted up to the new position.
            let positions = (head.start..head.start + len as u32).chain([position]);
            *head = self.write_run(
                len + usize::from(in_order),
                ExactLen(positions, len + 1),
                false,
            );
            self.account(&old, head);
            return;
        }
        match len {
            0 => {
                head.start = position;
                head.len = 1;
                return;
            }
            len if len < head.capacity(self.header) => {
                self.word(head.run(self.header).end)
                    .store(position, Relaxed);
                head.set_len(len + 1);
                add(&self.live, 1);
            }
            _ => {
                let positions = self.positions(&old).iter().copied().chain([position]);
                let positions = ExactLen(positions, len + 1);
                *head = self.write_run(self.prefix_word(&old), positions, false);
                self.account(&old, head);
            }
        }
        if self.header == 1 && in_order {
            let prefix = self.word(head.start as usize);
            if prefix.load(Relaxed) as usize == len {
                prefix.store(len as u32 + 1, Release);
            }
        }
    }

    /// The positions of an arena run (writer only).
    fn positions(&self, head: &ListHead) -> &[u32] {
        let run = head.run(self.header);
        self.slice(run.start, run.len(), pinned::assumed())
    }

    /// The header word of an arena run in an ordered arena, 0 otherwise.
    fn prefix_word(&self, head: &ListHead) -> usize {
        match self.header {
            0 => 0,
            _ => self.word(head.start as usize).load(Acquire) as usize,
        }
    }

    /// The list without the positions in `gone` (sorted), as a new head
    /// for the caller to publish (writer only; garbage collection removes
    /// all of a list's dead positions at once). Order is kept; the prefix
    /// of an ordered list keeps what it had, less the removed.
    pub(crate) fn without(&self, head: ListHead, gone: &[u32]) -> ListHead {
        let guard = pinned::assumed();
        let listed: Vec<u32> = self.get(&head, guard).collect();
        let prefix = match self.header {
            0 => 0,
            _ if head.in_arena() => self.prefix_word(&head).min(head.len()),
            _ => head.len(),
        };
        let mut kept = Vec::with_capacity(listed.len());
        let mut kept_prefix = 0;
        for (k, &p) in listed.iter().enumerate() {
            if gone.binary_search(&p).is_err() {
                kept.push(p);
                kept_prefix += usize::from(k < prefix);
            }
        }
        if kept.len() == listed.len() {
            return head;
        }
        let consecutive = kept.windows(2).all(|w| w[1] == w[0].wrapping_add(1));
        let new = match kept.len() {
            0 => ListHead::EMPTY,
            1 => ListHead {
                start: kept[0],
                len: 1,
            },
            n if consecutive && (self.header == 0 || kept_prefix == n) => {
                ListHead::consecutive(kept[0], n)
            }
            _ => self.write_run(kept_prefix, kept.into_iter(), false),
        };
        self.account(&head, &new);
        new
    }

    /// The positions `head` lists.
    #[inline]
    pub(crate) fn get<'g>(&'g self, head: &ListHead, guard: &'g Guard) -> Positions<'g> {
        if head.in_arena() {
            let run = head.run(self.header);
            Positions::List(self.slice(run.start, run.len(), guard).iter())
        } else {
            Positions::Run(head.start..head.start + head.len() as u32)
        }
    }

    /// The list's last position (writer only).
    pub(crate) fn last(&self, head: &ListHead) -> Option<u32> {
        match head.len() {
            0 => None,
            _ if head.in_arena() => self.positions(head).last().copied(),
            len => Some(head.start + len as u32 - 1),
        }
    }

    /// The list as its sorted prefix and its unsorted tail (an unordered
    /// arena's lists are all tail).
    pub(crate) fn get_sorted<'g>(
        &'g self,
        head: &ListHead,
        guard: &'g Guard,
    ) -> (Positions<'g>, Positions<'g>) {
        let len = head.len();
        let (prefix, all) = match self.header {
            0 => (0, self.get(head, guard)),
            _ if head.in_arena() => {
                // The header and the positions after it, found once.
                let at = self.entry(head.start as usize, guard);
                // SAFETY: the run's header, then its `len` positions, in
                // one chunk; the header is the one word stored in place.
                let (header, positions) = unsafe {
                    (
                        (*at).load(Acquire) as usize,
                        std::slice::from_raw_parts(at.add(1).cast::<u32>(), len),
                    )
                };
                (header.min(len), Positions::List(positions.iter()))
            }
            _ => (len, self.get(head, guard)),
        };
        all.split_at(prefix)
    }

    /// Merges the list's tail into its sorted prefix, as a new run, when
    /// the tail has grown past [`MIN_TAIL`] and the square root of the
    /// list's length; `order` gives a position's sort key (the same order
    /// every push of this list used). Writer only: the caller publishes
    /// the new head.
    pub(crate) fn merge_long_tail<K: Ord>(&self, head: &mut ListHead, order: impl Fn(u32) -> K) {
        if self.header == 0 || !head.in_arena() {
            return;
        }
        let len = head.len();
        let prefix = self.prefix_word(head).min(len);
        let tail = len - prefix;
        if tail <= MIN_TAIL || tail <= len.isqrt() {
            return;
        }
        let list = self.positions(head);
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
        let old = *head;
        *head = self.write_run(len, merged.into_iter(), false);
        self.account(&old, head);
    }

    /// Copies `head`'s run, tight, into `to` (compaction); other heads
    /// come back unchanged.
    pub(crate) fn copy_into(&self, head: ListHead, to: &ListArena) -> ListHead {
        if !head.in_arena() {
            return head;
        }
        let positions = self.positions(&head).iter().copied();
        let new = to.write_run(self.prefix_word(&head), positions, true);
        to.account(&ListHead::EMPTY, &new);
        new
    }

    fn payload(&self) -> usize {
        self.live.load(Relaxed) + self.runs.load(Relaxed) * self.header
    }

    /// Bytes of its chunks (memory accounting).
    pub(crate) fn bytes(&self) -> usize {
        self.capacity.load(Relaxed) * size_of::<AtomicU32>()
    }

    pub(crate) fn wants_compaction(&self) -> bool {
        self.used.load(Relaxed) > 3 * self.payload() + MIN_COMPACTION
    }

    /// True when holes and spare room exceed the live entries: worth a
    /// compaction after a bulk load (a small load into a big tight arena
    /// leaves little slack, so it does not pay O(arena)). At a quarter,
    /// the lists a load had grown by doubling were compacted after every
    /// partition's batch, ~2.4% of a graph load's CPU for a few MB of
    /// list memory (SNB SF0.1's RSS after the load did not move;
    /// benches/RESULTS.md, session 38).
    pub(crate) fn has_slack(&self) -> bool {
        let payload = self.payload();
        self.capacity.load(Relaxed) > 2 * payload + MIN_COMPACTION
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossbeam::epoch;
    use proptest::prelude::*;

    /// A made-up order on positions for the ordered arena's tests (not
    /// the positions' own order, so appends break it often).
    fn order(position: u32) -> u32 {
        position % 7
    }

    fn listed(arena: &ListArena, head: &ListHead) -> Vec<u32> {
        arena.get(head, &epoch::pin()).collect()
    }

    fn check_ordered(arena: &ListArena, head: &ListHead) -> Result<(), TestCaseError> {
        let guard = epoch::pin();
        let (prefix, tail) = arena.get_sorted(head, &guard);
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
                    if model[key].contains(&position) {
                        continue;
                    }
                    let in_order = arena.last(&heads[key]).is_none_or(|last| order(last) <= order(position));
                    arena.push_in_order(&mut heads[key], position, in_order);
                    arena.merge_long_tail(&mut heads[key], order);
                    model[key].push(position);
                } else {
                    let gone = [position, position + 1];
                    heads[key] = arena.without(heads[key], &gone);
                    model[key].retain(|p| !gone.contains(p));
                }
                if step % 37 == 0 {
                    let fresh = arena.for_compaction();
                    for head in &mut heads {
                        *head = arena.copy_into(*head, &fresh);
                    }
                    arena = fresh;
                }
                for k in 0..6 {
                    let listed = listed(&arena, &heads[k]);
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
                prop_assert_eq!(arena.live.load(Relaxed), arena_heads.clone().map(ListHead::len).sum::<usize>());
                prop_assert_eq!(arena.runs.load(Relaxed), arena_heads.count());
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
        let arena = ListArena::ordered();
        let mut head = ListHead::EMPTY;
        let key = |p: u32| 100 - p;
        // Descending positions ascend in `key`: appended in order, but not
        // consecutive, so the list lives in the arena, sorted throughout.
        for p in [50, 40, 30] {
            let in_order = arena.last(&head).is_none_or(|last| key(last) <= key(p));
            arena.push_in_order(&mut head, p, in_order);
        }
        let guard = epoch::pin();
        let (prefix, tail) = arena.get_sorted(&head, &guard);
        assert_eq!((prefix.len(), tail.len()), (3, 0));
        for p in 41..41 + MIN_TAIL as u32 + 1 {
            let in_order = arena.last(&head).is_none_or(|last| key(last) <= key(p));
            arena.push_in_order(&mut head, p, in_order);
            arena.merge_long_tail(&mut head, key);
        }
        let (prefix, tail) = arena.get_sorted(&head, &guard);
        assert_eq!((prefix.len(), tail.len()), (head.len(), 0));
        let listed = listed(&arena, &head);
        assert!(
            listed.windows(2).all(|w| key(w[0]) <= key(w[1])),
            "{listed:?}"
        );
    }

    #[test]
    fn consecutive_lists_take_no_arena_entries() {
        let arena = ListArena::default();
        let mut head = ListHead::EMPTY;
        for p in 10..15 {
            arena.push(&mut head, p);
        }
        assert_eq!(arena.capacity.load(Relaxed), 0);
        assert_eq!(listed(&arena, &head), vec![10, 11, 12, 13, 14]);
        head = arena.without(head, &[10, 14]);
        assert_eq!(arena.capacity.load(Relaxed), 0);
        head = arena.without(head, &[12]);
        assert_eq!(listed(&arena, &head), vec![11, 13]);
        assert_eq!(arena.live.load(Relaxed), 2);
    }

    #[test]
    fn a_published_run_is_never_rewritten() {
        let arena = ListArena::default();
        let mut head = ListHead::EMPTY;
        for p in [9, 3, 7, 1] {
            arena.push(&mut head, p);
        }
        let before = head;
        let guard = epoch::pin();
        let seen = arena.get(&before, &guard);
        let after = arena.without(head, &[3]);
        arena.push(&mut head, 5);
        assert_eq!(seen.collect::<Vec<_>>(), [9, 3, 7, 1]);
        assert_eq!(listed(&arena, &after), [9, 7, 1]);
        assert_eq!(listed(&arena, &head), [9, 3, 7, 1, 5]);
    }

    /// One list growing to 100,000 positions, compacted whenever the arena
    /// asks (as its index does): runs double, so compactions stay few.
    /// (Counting skipped chunk space as holes once made every append
    /// after the first compaction ask for another.)
    #[test]
    fn a_growing_list_compacts_rarely() {
        let mut arena = ListArena::default();
        let mut head = ListHead::EMPTY;
        let mut compactions = 0;
        for p in 0..100_000u32 {
            arena.push(&mut head, p * 2);
            if arena.wants_compaction() {
                let fresh = arena.for_compaction();
                head = arena.copy_into(head, &fresh);
                arena = fresh;
                compactions += 1;
            }
        }
        assert!(compactions < 10, "{compactions} compactions");
        assert_eq!(listed(&arena, &head).len(), 100_000);
        assert!(arena.capacity.load(Relaxed) < 4 * 100_000 + MIN_COMPACTION);
    }
}
