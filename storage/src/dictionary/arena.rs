//! The dictionary's record arena: append-only bytes in segments that never
//! move, so readers resolve a record without any lock.
//!
//! Segment `k` holds `FIRST << k` bytes and starts at offset
//! `FIRST * (2^k - 1)` of one offset space; a record never straddles two
//! segments (the writer pads to the next segment instead). Segments are
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
/// Segments: their total, `FIRST * (2^SEGMENTS - 1)`, exceeds the 32 GiB
/// that `u32` record numbers of 8-byte units address.
const SEGMENTS: usize = 20;

pub(super) struct Arena {
    segments: [AtomicPtr<u8>; SEGMENTS],
    /// End of the published bytes (offset space).
    published: AtomicUsize,
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
    let k = (offset / FIRST + 1).ilog2() as usize;
    (k, offset - FIRST * ((1 << k) - 1))
}

fn capacity(k: usize) -> usize {
    FIRST << k
}

fn layout(k: usize) -> Layout {
    Layout::from_size_align(capacity(k), 8).expect("segment layout")
}

impl Arena {
    pub(super) fn new() -> Self {
        Arena {
            segments: std::array::from_fn(|_| AtomicPtr::new(std::ptr::null_mut())),
            published: AtomicUsize::new(0),
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
                let base = self.segment(k)?;
                // SAFETY: `at..capacity(k)` lies in segment `k`, at or above
                // `published`, written only by this cursor's holder.
                unsafe { std::ptr::write_bytes(base.add(at), 0, capacity(k) - at) };
            }
            // Pad to the next segment (big records: the first that fits).
            loop {
                k += 1;
                if k >= SEGMENTS {
                    return None;
                }
                if size <= capacity(k) {
                    break;
                }
            }
            start = FIRST * ((1 << k) - 1);
            at = 0;
        }
        let base = self.segment(k)?;
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
    fn segment(&self, k: usize) -> Option<*mut u8> {
        let existing = self.segments[k].load(Ordering::Acquire);
        if !existing.is_null() {
            return Some(existing);
        }
        // SAFETY: the layout has a non-zero size.
        let fresh = unsafe { alloc(layout(k)) };
        if fresh.is_null() {
            std::alloc::handle_alloc_error(layout(k));
        }
        self.segments[k].store(fresh, Ordering::Release);
        Some(fresh)
    }

    /// Bytes allocated to segments (memory accounting).
    #[cfg(test)]
    pub(super) fn allocated(&self) -> usize {
        (0..SEGMENTS)
            .filter(|&k| !self.segments[k].load(Ordering::Relaxed).is_null())
            .map(capacity)
            .sum()
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
        // A record bigger than the first segments goes where it fits.
        let big = vec![7u8; 5 * FIRST];
        let at = arena.append(&mut cursor, &[&big], 8).unwrap();
        assert_eq!(arena.get(at, big.len()).unwrap(), big.as_slice());
        assert!(arena.allocated() >= 5 * FIRST);
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
