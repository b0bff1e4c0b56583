//! Our own HNSW graph (Malkov and Yashunin, "Efficient and robust
//! approximate nearest neighbor search using Hierarchical Navigable Small
//! World graphs", 2018): layers of proximity graphs, each node on layer 0
//! and on each higher layer with probability 1/M; a search walks greedily
//! down from the top and searches layer 0 best-first with `ef` candidates.
//!
//! Built for the store's use (docs/adr/0122-our-own-hnsw.md): points are
//! only ever added, by many threads at once while others search; nodes
//! live in chunks that never move, searches take no lock, and an insert
//! locks only the node whose links it changes.

mod arena;
mod distance;
mod layer_search;
mod select;
mod visited;

use arena::Arena;
use distance::{Kernel, Metric};
use layer_search::{Layer, Near};
use select::select;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock};
use visited::with_visited;

/// The top layer a node can reach (16 layers hold 16^16 nodes).
const MAX_LEVEL: u8 = 15;
/// "No entry yet" in [`Graph::entry`].
const EMPTY: u64 = u64::MAX;

/// An HNSW graph over vectors of one length (set by the first insert).
pub(crate) struct Graph {
    kernel: Kernel,
    /// Links per node on the layers above 0 (`M`); layer 0 keeps twice as many.
    m: usize,
    ef_construction: usize,
    /// `1 / ln(M)`: the level distribution's scale.
    level_scale: f64,
    arena: OnceLock<Arena>,
    next: AtomicU32,
    /// The entry point: its level in the high half, its node in the low.
    entry: AtomicU64,
    /// Held while a node taller than the entry replaces it.
    raise: Mutex<()>,
}

impl Graph {
    pub(crate) fn new(dot: bool, m: usize, ef_construction: usize) -> Graph {
        let metric = if dot { Metric::Dot } else { Metric::SquaredL2 };
        Graph {
            kernel: metric.kernel(),
            m,
            ef_construction,
            level_scale: 1.0 / (m as f64).ln(),
            arena: OnceLock::new(),
            next: AtomicU32::new(0),
            entry: AtomicU64::new(EMPTY),
            raise: Mutex::new(()),
        }
    }

    fn layer<'a>(&'a self, arena: &'a Arena, query: &'a [f32], layer: usize) -> Layer<'a> {
        Layer {
            arena,
            kernel: self.kernel,
            query,
            layer,
        }
    }

    /// A node's level, from its number: the same graph for the same
    /// insertion order, whatever the threads.
    fn level_of(&self, node: u32) -> u8 {
        let mut z = u64::from(node).wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        // Uniform in (0, 1].
        let uniform = ((z >> 11) as f64 + 1.0) / (1u64 << 53) as f64;
        let level = (-uniform.ln() * self.level_scale).floor();
        level.min(f64::from(MAX_LEVEL)) as u8
    }

    /// Adds `vector` as `point`. A vector of another length than the
    /// first one's, or past the arena's capacity, is not added (the store
    /// checks lengths before; its exact path still finds every point).
    pub(crate) fn insert(&self, point: usize, vector: &[f32]) {
        let cap0 = 2 * self.m;
        let arena = self
            .arena
            .get_or_init(|| Arena::new(vector.len(), cap0, self.m));
        if vector.len() != arena.dims() {
            return;
        }
        let node = self.next.fetch_add(1, Ordering::Relaxed);
        if node as usize >= Arena::capacity() {
            return;
        }
        let level = self.level_of(node);
        arena.init(node, vector, level, point);
        let entry = self.entry.load(Ordering::Acquire);
        if entry == EMPTY {
            let guard = self.raise.lock().unwrap_or_else(|p| p.into_inner());
            if self.entry.load(Ordering::Acquire) == EMPTY {
                self.entry.store(pack(level, node), Ordering::Release);
                return;
            }
            drop(guard);
        }
        self.link(arena, node, level, vector);
        let (top, _) = unpack(self.entry.load(Ordering::Acquire));
        if level > top {
            let _guard = self.raise.lock().unwrap_or_else(|p| p.into_inner());
            let (top, _) = unpack(self.entry.load(Ordering::Acquire));
            if level > top {
                self.entry.store(pack(level, node), Ordering::Release);
            }
        }
    }

    /// Connects a fresh node to its neighbours on each of its layers.
    fn link(&self, arena: &Arena, node: u32, level: u8, vector: &[f32]) {
        let (top, entry) = unpack(self.entry.load(Ordering::Acquire));
        let mut nearest = self.layer(arena, vector, top as usize).near(entry);
        for layer in (level as usize + 1..=top as usize).rev() {
            nearest = self.layer(arena, vector, layer).greedy(nearest);
        }
        let mut entries = vec![nearest];
        for layer in (0..=level.min(top) as usize).rev() {
            let search = self.layer(arena, vector, layer);
            let found =
                with_visited(|visited| search.search(&entries, self.ef_construction, visited));
            let chosen = select(arena, self.kernel, &found, self.m);
            let links: Vec<u32> = chosen.iter().map(|n| n.node).collect();
            {
                let held = arena.lock(node);
                arena.set_links(&held, node, layer, &links);
            }
            for neighbour in &chosen {
                self.add_link(arena, neighbour.node, node, neighbour.distance, layer);
            }
            entries = found;
        }
    }

    /// Adds `node` to `to`'s links on `layer`; a full list keeps the
    /// heuristic's choice among its links and `node`.
    fn add_link(&self, arena: &Arena, to: u32, node: u32, distance: f32, layer: usize) {
        let held = arena.lock(to);
        let mut links = arena.links(to, layer);
        if links.contains(&node) {
            return;
        }
        if links.len() < arena.capacity_on(layer) {
            links.push(node);
            arena.set_links(&held, to, layer, &links);
            return;
        }
        let base = arena.vector(to);
        let mut candidates: Vec<Near> = links
            .iter()
            .map(|&n| Near {
                distance: (self.kernel)(base, arena.vector(n)),
                node: n,
            })
            .collect();
        candidates.push(Near { distance, node });
        candidates.sort_unstable();
        let kept = select(arena, self.kernel, &candidates, arena.capacity_on(layer));
        let kept: Vec<u32> = kept.iter().map(|n| n.node).collect();
        arena.set_links(&held, to, layer, &kept);
    }

    /// The points of about the `k` nodes nearest `query`, nearest first,
    /// searching layer 0 with `ef` candidates.
    pub(crate) fn search(&self, query: &[f32], k: usize, ef: usize) -> Vec<usize> {
        let Some(arena) = self.arena.get() else {
            return Vec::new();
        };
        let packed = self.entry.load(Ordering::Acquire);
        if packed == EMPTY || query.len() != arena.dims() {
            return Vec::new();
        }
        let (top, entry) = unpack(packed);
        let mut nearest = self.layer(arena, query, top as usize).near(entry);
        for layer in (1..=top as usize).rev() {
            nearest = self.layer(arena, query, layer).greedy(nearest);
        }
        let search = self.layer(arena, query, 0);
        let found = with_visited(|visited| search.search(&[nearest], ef.max(k), visited));
        found
            .into_iter()
            .take(k)
            .map(|n| arena.point(n.node))
            .collect()
    }
}

fn pack(level: u8, node: u32) -> u64 {
    (u64::from(level) << 32) | u64::from(node)
}

fn unpack(packed: u64) -> (u8, u32) {
    ((packed >> 32) as u8, packed as u32)
}

#[cfg(test)]
mod tests;
