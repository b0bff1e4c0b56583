//! Weakly connected components by concurrent union-find: every edge links
//! its endpoints' roots, always hooking the larger root under the smaller,
//! so each component ends rooted at its smallest vertex, which is its id
//! (the Graphalytics convention: the smallest vertex id in the component).

use crate::csr::Graph;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};

/// The component (its smallest vertex) of every vertex.
pub fn wcc(graph: &Graph) -> Vec<u32> {
    let n = graph.vertex_count();
    let parent: Vec<AtomicU32> = (0..n as u32).into_par_iter().map(AtomicU32::new).collect();
    (0..n as u32).into_par_iter().for_each(|u| {
        for &v in graph.out().neighbours(u) {
            union(&parent, u, v);
        }
    });
    (0..n as u32)
        .into_par_iter()
        .map(|v| find(&parent, v))
        .collect()
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
