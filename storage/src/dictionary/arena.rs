//! The dictionary's record arena: append-only bytes in segments that never
//! move, so readers resolve a record without any lock.
//!
//! Segments double from `FIRST` bytes up to `BIG` (so a small dictionary
//! costs one small segment), then all hold `BIG` (so at most one segment's
//! tail is ever unused); together they form one offset space. A record
//! never straddles two segments (the writer pads to the next segment
//! instead); a record larger than a segment is not stored here at all
//! (the dictionary keeps such forms out of line, see [`Arena::keep`]). Segments are
//! allocated on first use, not zeroed (their untouched tails never become
//! resident), and freed only with the arena. Every published byte is
//! written, padding included, so no reader ever reads uninitialised
//! memory, even through a wrong hint.
//!
//! Publication: the single writer (the holder of an [`ArenaCursor`], which
//! lives under the dictionary's write lock) writes a record's bytes past
//! `published`, then stores the new end into `published` with release
//! ordering. A reader loads `published` with acquire ordering and reads
//! only below it, so it never reads bytes being written, and every byte
//! it reads was written before the load (happens-before). Readers reach a
//! record through a gui-map slot or a tuple's hint, both stored after the
//! record was published.

use std::alloc::{alloc, dealloc, Layout};
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

/// Bytes of segment 0 (64 KiB): a small dictionary costs one of them.
const FIRST: usize = 1 << 16;
/// Doubling segments: `FIRST << k` for `k < DOUBLING`, the last `BIG`.
const DOUBLING: usize = 7;
/// Bytes of every later segment (4 MiB), and the largest record.
pub(super) const BIG: usize = FIRST << (DOUBLING - 1);
/// Where the equal segments start in the offset space.
const DOUBLING_END: usize = FIRST * ((1 << DOUBLING) - 1);
/// Segments: enough for the 32 GiB that `u32` record numbers of 8-byte
/// units address.
const SEGMENTS: usize = DOUBLING + ((32 << 30) - DOUBLING_END).div_ceil(BIG);

pub(super) struct Arena {
    segments: Box<[AtomicPtr<u8>]>,
    /// Forms too large for a segment, each its own allocation, never
    /// changed or freed before the arena (see [`Arena::keep`]).
    #[allow(clippy::vec_box)]
    large: parking_lot::Mutex<Vec<Box<[u8]>>>,
    /// End of the published bytes (offset space).
    published: AtomicUsize,
    /// Bytes of the forms in `large` (memory accounting, read without
    /// its lock).
    large_bytes: AtomicUsize,
}

/// The writer's side of an [`Arena`]: one per arena, kept where only the
/// dictionary's writer can reach it (`&mut` proves exclusivity).
#[derive(Default)]
pub(super) struct ArenaCursor {
    /// End of the bytes written so far (offset space).
    end: usize,
}

/// `(segment, offset within it)` of an offset.
fn locate(offset: usize) -> (usize, usize) {
    if offset < DOUBLING_END {
        let k = (offset / FIRST + 1).ilog2() as usize;
        (k, offset - FIRST * ((1 << k) - 1))
    } else {
        let past = offset - DOUBLING_END;
        (DOUBLING + past / BIG, past % BIG)
    }
}

/// Where segment `k` starts in the offset space.
fn start_of(k: usize) -> usize {
    if k < DOUBLING {
        FIRST * ((1 << k) - 1)
    } else {
        DOUBLING_END + (k - DOUBLING) * BIG
    }
}

fn capacity(k: usize) -> usize {
    FIRST << k.min(DOUBLING - 1)
}

fn layout(k: usize) -> Layout {
    Layout::from_size_align(capacity(k), 8).expect("segment layout")
}

impl Arena {
    pub(super) fn new() -> Self {
        Arena {
            segments: (0..SEGMENTS)
                .map(|_| AtomicPtr::new(std::ptr::null_mut()))
                .collect(),
            large: parking_lot::Mutex::new(Vec::new()),
            published: AtomicUsize::new(0),
            large_bytes: AtomicUsize::new(0),
        }
    }

    /// The `len` published bytes at `offset`, if all of them are.
    pub(super) fn get(&self, offset: usize, len: usize) -> Option<&[u8]> {
        let end = offset.checked_add(len)?;
        if end > self.published.load(Ordering::Acquire) {
            return None;
        }
        let (k, at) = locate(offset);
        if at + len > capacity(k) {
            return None;
        }
        let base = self.segments[k].load(Ordering::Acquire);
        if base.is_null() {
            return None;
        }
        // SAFETY: `base` is a live allocation of `capacity(k)` bytes (freed
        // only in `drop`), `at + len` is within it, and the bytes lie below
        // `published`: written before it was stored, never written again.
        Some(unsafe { std::slice::from_raw_parts(base.add(at), len) })
    }

    /// The address of the byte at `offset`, if published (a prefetch hint).
    pub(super) fn address(&self, offset: usize) -> Option<*const u8> {
        self.get(offset, 1).map(<[u8]>::as_ptr)
    }

    /// Keeps `bytes` in an allocation of their own until the arena is
    /// dropped and returns its address: a form larger than a segment, whose
    /// record in the arena holds this address instead of the form.
    pub(super) fn keep(&self, bytes: &[u8]) -> *const u8 {
        // (Returned as an address: the record stores it, `kept` finds it.)
        let kept: Box<[u8]> = bytes.into();
        let at = kept.as_ptr();
        self.large_bytes.fetch_add(kept.len(), Ordering::Relaxed);
        self.large.lock().push(kept);
        at
    }

    /// The `len` bytes [`Arena::keep`] kept at `address`, if it kept
    /// exactly those (a lock and a search: forms this large are rare).
    pub(super) fn kept(&self, address: usize, len: usize) -> Option<&[u8]> {
        let large = self.large.lock();
        let found = large
            .iter()
            .find(|kept| kept.as_ptr() as usize == address && kept.len() == len)?;
        // SAFETY: the allocation is never changed, moved (it is boxed) or
        // freed before the arena, so it outlives this borrow of `self`.
        Some(unsafe { std::slice::from_raw_parts(found.as_ptr(), found.len()) })
    }

    /// Appends one record made of `parts` (written back to back) at a
    /// multiple of `align` (a power of two; the same on every call),
    /// padded to `align` with zeros, never
    /// straddling segments; returns its offset, or `None` when the offset
    /// space is exhausted. Published before returning.
    pub(super) fn append(
        &self,
        cursor: &mut ArenaCursor,
        parts: &[&[u8]],
        align: usize,
    ) -> Option<usize> {
        let len: usize = parts.iter().map(|p| p.len()).sum();
        let size = len.next_multiple_of(align).max(align);
        let mut start = cursor.end;
        let (mut k, mut at) = locate(start);
        if at + size > capacity(k) {
            // The rest of this segment stays unused but published: zeroed.
            if at < capacity(k) {
                let base = self.segment(k);
                // SAFETY: `at..capacity(k)` lies in segment `k`, at or above
                // `published`, written only by this cursor's holder.
                unsafe { std::ptr::write_bytes(base.add(at), 0, capacity(k) - at) };
            }
            // Pad to the next segment that can hold it.
            loop {
                k += 1;
                if k >= SEGMENTS || size > BIG {
                    return None;
                }
                if size <= capacity(k) {
                    break;
                }
            }
            start = start_of(k);
            at = 0;
        }
        let base = self.segment(k);
        let mut written = at;
        for part in parts {
            // SAFETY: the segment holds `capacity(k)` bytes and
            // `at + size <= capacity(k)`; the bytes lie at or above
            // `published`, which no reader reads, and only this cursor's
            // holder writes.
            unsafe {
                std::ptr::copy_nonoverlapping(part.as_ptr(), base.add(written), part.len());
            }
            written += part.len();
        }
        // SAFETY: as above; the record's padding up to `size`.
        unsafe { std::ptr::write_bytes(base.add(written), 0, at + size - written) };
        cursor.end = start + size;
        self.published.store(cursor.end, Ordering::Release);
        Some(start)
    }

    /// Segment `k`, allocated on first use (writer only).
    fn segment(&self, k: usize) -> *mut u8 {
        let existing = self.segments[k].load(Ordering::Acquire);
        if !existing.is_null() {
            return existing;
        }
        // SAFETY: the layout has a non-zero size.
        let fresh = unsafe { alloc(layout(k)) };
        if fresh.is_null() {
            std::alloc::handle_alloc_error(layout(k));
        }
        self.segments[k].store(fresh, Ordering::Release);
        fresh
    }

    /// Bytes allocated to segments and to forms kept apart (memory
    /// accounting; one load per segment).
    pub(super) fn allocated(&self) -> usize {
        let segments: usize = (0..SEGMENTS)
            .filter(|&k| !self.segments[k].load(Ordering::Relaxed).is_null())
            .map(capacity)
            .sum();
        segments + self.large_bytes.load(Ordering::Relaxed)
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        for (k, segment) in self.segments.iter_mut().enumerate() {
            let base = *segment.get_mut();
            if !base.is_null() {
                // SAFETY: allocated in `segment` with this very layout.
                unsafe { dealloc(base, layout(k)) };
            }
        }
    }
}

// SAFETY: the segments are plain bytes owned by the arena; shared access
// only reads published bytes (module docs), writes go through the one
// `ArenaCursor`.
unsafe impl Send for Arena {}
unsafe impl Sync for Arena {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_map_to_segments_without_gaps() {
        assert_eq!(locate(0), (0, 0));
        assert_eq!(locate(FIRST - 1), (0, FIRST - 1));
        assert_eq!(locate(FIRST), (1, 0));
        assert_eq!(locate(3 * FIRST - 1), (1, 2 * FIRST - 1));
        assert_eq!(locate(3 * FIRST), (2, 0));
        assert_eq!(locate(DOUBLING_END - 1), (DOUBLING - 1, BIG - 1));
        assert_eq!(locate(DOUBLING_END), (DOUBLING, 0));
        assert_eq!(locate(DOUBLING_END + BIG + 5), (DOUBLING + 1, 5));
        for k in 0..SEGMENTS {
            assert_eq!(locate(start_of(k)), (k, 0));
            assert_eq!(locate(start_of(k) + capacity(k) - 1), (k, capacity(k) - 1));
        }
        let total: usize = (0..SEGMENTS).map(capacity).sum();
        assert!(total >= 32 << 30);
    }

    #[test]
    fn records_round_trip_and_never_straddle_segments() {
        let arena = Arena::new();
        let mut cursor = ArenaCursor::default();
        let mut records = Vec::new();
        for n in 0..20_000usize {
            let body = vec![(n % 251) as u8; n % 300];
            let at = arena
                .append(&mut cursor, &[&(n as u32).to_le_bytes(), &body], 8)
                .unwrap();
            assert_eq!(at % 8, 0);
            let (k, off) = locate(at);
            assert!(off + 4 + body.len() <= capacity(k));
            records.push((at, n, body));
        }
        for (at, n, body) in &records {
            assert_eq!(arena.get(*at, 4).unwrap(), &(*n as u32).to_le_bytes());
            assert_eq!(arena.get(at + 4, body.len()).unwrap(), body.as_slice());
        }
        assert!(arena.get(cursor.end, 1).is_none());
        // A record bigger than the first segments goes where it fits; one
        // bigger than any segment is refused (kept out of line instead).
        let big = vec![7u8; 5 * FIRST];
        let at = arena.append(&mut cursor, &[&big], 8).unwrap();
        assert_eq!(arena.get(at, big.len()).unwrap(), big.as_slice());
        assert!(arena.allocated() >= 5 * FIRST);
        assert_eq!(arena.append(&mut cursor, &[&vec![1u8; BIG + 1]], 8), None);
        let huge = vec![3u8; BIG * 2];
        let kept = arena.keep(&huge) as usize;
        assert_eq!(arena.kept(kept, huge.len()).unwrap(), huge.as_slice());
        assert_eq!(arena.kept(kept, huge.len() - 1), None);
        assert_eq!(arena.kept(kept + 1, 1), None);
    }

    #[test]
    fn readers_see_whole_records_while_a_writer_appends() {
        let arena = Arena::new();
        let written: Vec<AtomicUsize> = (0..50_000).map(|_| AtomicUsize::new(usize::MAX)).collect();
        std::thread::scope(|s| {
            s.spawn(|| {
                let mut cursor = ArenaCursor::default();
                for (n, slot) in written.iter().enumerate() {
                    let bytes = (n as u64).to_le_bytes();
                    let at = arena
                        .append(&mut cursor, &[&bytes, &bytes, &bytes], 8)
                        .unwrap();
                    slot.store(at, Ordering::Release);
                }
            });
            s.spawn(|| {
                for _ in 0..20 {
                    for (n, slot) in written.iter().enumerate().step_by(7) {
                        let at = slot.load(Ordering::Acquire);
                        if at == usize::MAX {
                            continue;
                        }
                        let bytes = arena.get(at, 24).expect("published");
                        assert!(bytes.chunks(8).all(|c| c == (n as u64).to_le_bytes()));
                    }
                }
            });
        });
    }
}
