//! Searching one layer of the graph: the greedy walk the upper layers use
//! to find an entry for the layer below, and the best-first search with a
//! bounded result list (`ef`) of the HNSW paper (Malkov and Yashunin, 2018,
//! algorithms 2 and 5).

use super::arena::Arena;
use super::distance::Kernel;
use super::visited::Visited;
use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// A node with its distance to the query, ordered by distance.
#[derive(Clone, Copy, Debug)]
pub(super) struct Near {
    pub(super) distance: f32,
    pub(super) node: u32,
}

impl PartialEq for Near {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Near {}
impl PartialOrd for Near {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Near {
    fn cmp(&self, other: &Self) -> Ordering {
        self.distance
            .total_cmp(&other.distance)
            .then(self.node.cmp(&other.node))
    }
}

/// What a layer search reads.
pub(super) struct Layer<'a> {
    pub(super) arena: &'a Arena,
    pub(super) kernel: Kernel,
    pub(super) query: &'a [f32],
    pub(super) layer: usize,
}

impl Layer<'_> {
    pub(super) fn near(&self, node: u32) -> Near {
        Near {
            distance: (self.kernel)(self.query, self.arena.vector(node)),
            node,
        }
    }

    /// From `start`, moves to the nearest neighbour while it is nearer.
    pub(super) fn greedy(&self, start: Near) -> Near {
        let mut best = start;
        loop {
            let mut moved = false;
            self.arena.for_each_link(best.node, self.layer, |n| {
                let candidate = self.near(n);
                if candidate < best {
                    best = candidate;
                    moved = true;
                }
            });
            if !moved {
                return best;
            }
        }
    }

    /// The `ef` nodes nearest the query reachable from `entries`, nearest
    /// first.
    pub(super) fn search(&self, entries: &[Near], ef: usize, visited: &mut Visited) -> Vec<Near> {
        let mut candidates: BinaryHeap<Reverse<Near>> = BinaryHeap::with_capacity(ef * 2);
        let mut found: BinaryHeap<Near> = BinaryHeap::with_capacity(ef + 1);
        for &entry in entries {
            if visited.first_visit(entry.node) {
                candidates.push(Reverse(entry));
                found.push(entry);
            }
        }
        while found.len() > ef {
            found.pop();
        }
        let mut fresh: Vec<u32> = Vec::with_capacity(64);
        while let Some(Reverse(current)) = candidates.pop() {
            if found.len() >= ef && found.peek().is_some_and(|worst| current > *worst) {
                break;
            }
            // Unvisited neighbours first, their vectors prefetched, then
            // the distances: the loads overlap instead of queueing.
            fresh.clear();
            self.arena.for_each_link(current.node, self.layer, |n| {
                if visited.first_visit(n) {
                    self.arena.prefetch(n);
                    fresh.push(n);
                }
            });
            for &n in &fresh {
                let candidate = self.near(n);
                if found.len() < ef || found.peek().is_some_and(|worst| candidate < *worst) {
                    candidates.push(Reverse(candidate));
                    found.push(candidate);
                    if found.len() > ef {
                        found.pop();
                    }
                }
            }
        }
        found.into_sorted_vec()
    }
}
