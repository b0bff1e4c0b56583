//! Which candidates become a node's links: the HNSW paper's heuristic
//! (algorithm 4): nearest first, a candidate is kept only if it is nearer
//! the node than to every link already kept, so links spread in
//! different directions instead of crowding into one cluster.

use super::arena::Arena;
use super::distance::Kernel;
use super::layer_search::Near;

/// At most `keep` of `candidates` (distances to the base node; sorted
/// nearest first by the caller).
pub(super) fn select(arena: &Arena, kernel: Kernel, candidates: &[Near], keep: usize) -> Vec<Near> {
    let mut kept: Vec<Near> = Vec::with_capacity(keep);
    for &candidate in candidates {
        if kept.len() == keep {
            break;
        }
        let vector = arena.vector(candidate.node);
        let diverse = kept
            .iter()
            .all(|k| kernel(vector, arena.vector(k.node)) >= candidate.distance);
        if diverse {
            kept.push(candidate);
        }
    }
    kept
}
