//! Weakly connected components by concurrent union-find: every edge links
//! its endpoints' roots, always hooking the larger root under the smaller,
//! so each component ends rooted at its smallest vertex, which is its id
//! (the Graphalytics convention: the smallest vertex id in the component).

use crate::csr::Graph;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};

/// Out-neighbours each vertex links in the first, sampling phase.
const SAMPLED_NEIGHBOURS: usize = 2;
/// Vertices sampled to guess the largest component.
const SAMPLES: usize = 1024;

/// The component (its smallest vertex) of every vertex.
///
/// Afforest (Sutton, Ben-Nun and Barak, IPDPS 2018): linking each vertex
/// to its first few neighbours already joins most of a large component;
/// its root is then guessed by sampling, and only the vertices outside it
/// link their remaining edges (their out-edges past the sampled ones and
/// all their in-edges, so that an edge from the large component to the
/// rest is still seen, from its other end).
pub fn wcc(graph: &Graph) -> Vec<u32> {
    let n = graph.vertex_count();
    let parent: Vec<AtomicU32> = (0..n as u32).into_par_iter().map(AtomicU32::new).collect();
    (0..n as u32).into_par_iter().for_each(|u| {
        for &v in graph.out().neighbours(u).iter().take(SAMPLED_NEIGHBOURS) {
            union(&parent, u, v);
        }
    });
    let largest = most_frequent_root(&parent);
    (0..n as u32).into_par_iter().for_each(|u| {
        if find(&parent, u) == largest {
            return;
        }
        let out = graph.out().neighbours(u);
        let rest = out.get(SAMPLED_NEIGHBOURS..).unwrap_or(&[]);
        for &v in rest.iter().chain(graph.inc().neighbours(u)) {
            union(&parent, u, v);
        }
    });
    (0..n as u32)
        .into_par_iter()
        .map(|v| find(&parent, v))
        .collect()
}

/// The root most of a fixed sample of vertices have (any root is correct;
/// the largest component's saves the most work).
fn most_frequent_root(parent: &[AtomicU32]) -> u32 {
    let n = parent.len();
    if n == 0 {
        return 0;
    }
    let mut counts = std::collections::HashMap::new();
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..SAMPLES {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        *counts
            .entry(find(parent, (state % n as u64) as u32))
            .or_insert(0usize) += 1;
    }
    counts
        .into_iter()
        .max_by_key(|&(root, count)| (count, std::cmp::Reverse(root)))
        .map_or(0, |(root, _)| root)
}

/// The root of `v`'s tree, halving the path on the way (a benign race:
/// every parent written is an ancestor).
fn find(parent: &[AtomicU32], mut v: u32) -> u32 {
    loop {
        let p = parent[v as usize].load(Ordering::Relaxed);
        if p == v {
            return v;
        }
        let grand = parent[p as usize].load(Ordering::Relaxed);
        if grand != p {
            let _ =
                parent[v as usize].compare_exchange(p, grand, Ordering::Relaxed, Ordering::Relaxed);
        }
        v = grand;
    }
}

fn union(parent: &[AtomicU32], a: u32, b: u32) {
    loop {
        let (ra, rb) = (find(parent, a), find(parent, b));
        if ra == rb {
            return;
        }
        let (high, low) = if ra > rb { (ra, rb) } else { (rb, ra) };
        // Only a root may be hooked; if `high` stopped being one, retry.
        if parent[high as usize]
            .compare_exchange(high, low, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
        {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::Direction;

    /// Components by a sequential search both ways, named by their
    /// smallest vertex: the model.
    fn by_search(graph: &Graph) -> Vec<u32> {
        let n = graph.vertex_count();
        let mut component = vec![u32::MAX; n];
        for start in 0..n as u32 {
            if component[start as usize] != u32::MAX {
                continue;
            }
            let mut stack = vec![start];
            component[start as usize] = start;
            while let Some(v) = stack.pop() {
                for w in graph.neighbours(v, Direction::Both) {
                    if component[w as usize] == u32::MAX {
                        component[w as usize] = start;
                        stack.push(w);
                    }
                }
            }
        }
        component
    }

    #[test]
    fn agrees_with_a_search_on_sparse_and_dense_random_graphs() {
        for (n, m, seed) in [(3000, 2500, 1), (3000, 6000, 2), (500, 20_000, 3)] {
            let g = crate::random_graph(n, m, seed);
            assert_eq!(wcc(&g), by_search(&g));
        }
    }
}
