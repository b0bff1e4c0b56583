//! Where the graph's nodes live: fixed-size chunks, allocated as the graph
//! grows and never moved, reached through a table of once-set slots, so a
//! search reads a node's vector and links without taking any lock.
//!
//! A node's vector and level are written once, by its inserter, before
//! the node's number appears in any link list or as the entry point; link
//! lists are changed under the node's own lock and read with acquire loads
//! (a reader sees each neighbour number as a whole, and that neighbour's
//! vector as written).

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU32, AtomicU8, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

const CHUNK_BITS: u32 = 12;
/// Nodes per chunk.
const CHUNK: usize = 1 << CHUNK_BITS;
/// Chunks at most: 2^26 nodes (67 million) per graph.
const MAX_CHUNKS: usize = 1 << 14;

/// The nodes of one graph.
pub(super) struct Arena {
    dims: usize,
    /// Link capacity on layer 0 and on the layers above.
    cap0: usize,
    cap: usize,
    chunks: Box<[OnceLock<Box<Chunk>>]>,
}

struct Chunk {
    /// `CHUNK * dims` floats; slot `i` holds node `i`'s vector.
    vectors: Box<[UnsafeCell<f32>]>,
    /// `CHUNK * (cap0 + 1)`: per node, its layer-0 link count then links.
    links0: Box<[AtomicU32]>,
    /// Per node, its links on layers 1..=level, `cap + 1` words a layer.
    upper: Box<[OnceLock<Box<[AtomicU32]>>]>,
    level: Box<[AtomicU8]>,
    point: Box<[AtomicUsize]>,
    lock: Box<[Mutex<()>]>,
}

// SAFETY: the only non-Sync part is `vectors`; a slot is written once, by
// the thread that allocated its node number, before the number is
// published (with release ordering) to any other thread, and only read
// after (through acquire loads of link lists or of the entry point).
unsafe impl Sync for Chunk {}

impl Arena {
    pub(super) fn new(dims: usize, cap0: usize, cap: usize) -> Arena {
        Arena {
            dims,
            cap0,
            cap,
            chunks: (0..MAX_CHUNKS).map(|_| OnceLock::new()).collect(),
        }
    }

    /// The length of every vector.
    pub(super) fn dims(&self) -> usize {
        self.dims
    }

    /// The most nodes an arena holds.
    pub(super) fn capacity() -> usize {
        CHUNK * MAX_CHUNKS
    }

    fn chunk(&self, node: u32) -> (&Chunk, usize) {
        let node = node as usize;
        let chunk = self.chunks[node >> CHUNK_BITS]
            .get()
            .expect("a published node's chunk exists");
        (chunk, node & (CHUNK - 1))
    }

    /// Fills the slot of `node` (a number no other thread has seen yet).
    pub(super) fn init(&self, node: u32, vector: &[f32], level: u8, point: usize) {
        let index = node as usize >> CHUNK_BITS;
        let chunk = self.chunks[index].get_or_init(|| Box::new(self.new_chunk()));
        let slot = node as usize & (CHUNK - 1);
        let start = slot * self.dims;
        for (cell, &x) in chunk.vectors[start..start + self.dims].iter().zip(vector) {
            // SAFETY: see `unsafe impl Sync for Chunk`: nobody else can
            // reach this slot before `node` is published.
            unsafe { *cell.get() = x };
        }
        chunk.level[slot].store(level, Ordering::Release);
        chunk.point[slot].store(point, Ordering::Release);
        if level > 0 {
            let words = level as usize * (self.cap + 1);
            let links = (0..words).map(|_| AtomicU32::new(0)).collect();
            // A fresh node's slot: set exactly once, here.
            let _ = chunk.upper[slot].set(links);
        }
    }

    fn new_chunk(&self) -> Chunk {
        Chunk {
            vectors: (0..CHUNK * self.dims)
                .map(|_| UnsafeCell::new(0.0))
                .collect(),
            links0: (0..CHUNK * (self.cap0 + 1))
                .map(|_| AtomicU32::new(0))
                .collect(),
            upper: (0..CHUNK).map(|_| OnceLock::new()).collect(),
            level: (0..CHUNK).map(|_| AtomicU8::new(0)).collect(),
            point: (0..CHUNK).map(|_| AtomicUsize::new(0)).collect(),
            lock: (0..CHUNK).map(|_| Mutex::new(())).collect(),
        }
    }

    pub(super) fn vector(&self, node: u32) -> &[f32] {
        let (chunk, slot) = self.chunk(node);
        let cells = &chunk.vectors[slot * self.dims..(slot + 1) * self.dims];
        // SAFETY: `UnsafeCell<f32>` has `f32`'s layout; the slot was
        // written before `node` was published and is never written again.
        unsafe { std::slice::from_raw_parts(cells.as_ptr() as *const f32, self.dims) }
    }

    /// Asks the CPU to start loading `node`'s vector, which a distance will
    /// read shortly: a search computes the distances of a node's
    /// neighbours one after another, and each vector is a cache miss.
    pub(super) fn prefetch(&self, node: u32) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let vector = self.vector(node);
            // Two lines ahead cover a 128-dimension vector's first half;
            // the hardware prefetcher follows the rest.
            for line in vector.chunks(16).take(2) {
                // SAFETY: a prefetch is a hint; it never faults and reads
                // nothing the program sees.
                unsafe { _mm_prefetch(line.as_ptr() as *const i8, _MM_HINT_T0) };
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = node;
    }

    pub(super) fn point(&self, node: u32) -> usize {
        let (chunk, slot) = self.chunk(node);
        chunk.point[slot].load(Ordering::Acquire)
    }

    /// The words of `node`'s link list on `layer`: a count, then links.
    fn list(&self, node: u32, layer: usize) -> &[AtomicU32] {
        let (chunk, slot) = self.chunk(node);
        if layer == 0 {
            let width = self.cap0 + 1;
            &chunk.links0[slot * width..(slot + 1) * width]
        } else {
            let width = self.cap + 1;
            let upper = chunk.upper[slot].get().map_or(&[][..], |b| &b[..]);
            upper.get((layer - 1) * width..layer * width).unwrap_or(&[])
        }
    }

    /// Calls `visit` with each link of `node` on `layer`.
    pub(super) fn for_each_link(&self, node: u32, layer: usize, mut visit: impl FnMut(u32)) {
        let list = self.list(node, layer);
        let Some((count, links)) = list.split_first() else {
            return;
        };
        let count = (count.load(Ordering::Acquire) as usize).min(links.len());
        for link in &links[..count] {
            visit(link.load(Ordering::Acquire));
        }
    }

    /// The links of `node` on `layer`, copied.
    pub(super) fn links(&self, node: u32, layer: usize) -> Vec<u32> {
        let mut out = Vec::new();
        self.for_each_link(node, layer, |n| out.push(n));
        out
    }

    /// Replaces `node`'s links on `layer` (the caller holds its lock;
    /// `links` fits the layer's capacity).
    pub(super) fn set_links(
        &self,
        _held: &MutexGuard<'_, ()>,
        node: u32,
        layer: usize,
        links: &[u32],
    ) {
        let list = self.list(node, layer);
        let Some((count, slots)) = list.split_first() else {
            return;
        };
        let links = &links[..links.len().min(slots.len())];
        for (slot, &link) in slots.iter().zip(links) {
            slot.store(link, Ordering::Release);
        }
        count.store(links.len() as u32, Ordering::Release);
    }

    /// The lock that orders writes to `node`'s link lists.
    pub(super) fn lock(&self, node: u32) -> MutexGuard<'_, ()> {
        let (chunk, slot) = self.chunk(node);
        chunk.lock[slot].lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Link capacity on `layer`.
    pub(super) fn capacity_on(&self, layer: usize) -> usize {
        if layer == 0 {
            self.cap0
        } else {
            self.cap
        }
    }
}
