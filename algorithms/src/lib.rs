//! Graph kernels over CSR views of consistent store snapshots (Poseidon
//! paper, §7).
//!
//! A call reads one snapshot (`nereid_storage::Txn`) into a [`GraphView`]:
//! the nodes it covers in id order and their edges as a [`Graph`] in both
//! CSR directions. [`ViewCache`] keeps views per (snapshot, spec), so
//! repeated calls on an unchanged graph build once. Kernels know only the
//! CSR arrays and dense `u32` vertex indices; nothing here knows Cypher
//! (the procedures that call them live in the dfe).
//!
//! Every kernel is parallel on the current rayon pool ([`run_with_threads`]).

mod bfs;
mod cache;
mod cdlp;
mod closeness;
mod csr;
mod csr_build;
mod degree_distribution;
mod egonet;
mod error;
mod louvain;
mod pagerank;
mod pool;
mod scc;
mod similarity;
mod sssp;
mod sssp_distance;
mod stop;
mod topk_sssp;
mod triangles;
mod view;
mod wcc;
mod weight_order;

pub use bfs::{bfs, BfsTree, UNREACHED};
pub use cache::ViewCache;
pub use cdlp::label_propagation;
pub use closeness::{closeness, sample_sources, Reach};
pub use csr::{distinct_neighbours, Csr, Direction, Graph, Weights};
pub use degree_distribution::{degree_distribution, DegreeDistribution, PERCENTILES};
pub use egonet::{ego_hop, EgoHop};
pub use error::AlgorithmError;
pub use louvain::{louvain, Communities, LouvainOptions};
pub use pagerank::{pagerank, personalized_pagerank, PageRankOptions};
pub use pool::{run_with_threads, Pools};
pub use scc::scc;
pub use similarity::{neighbourhood_overlap, Overlap};
pub use sssp::{bellman_ford, delta_stepping, shortest_path, ShortestPaths};
pub use stop::Stop;
pub use topk_sssp::{top_k_sssp, Cost, TopKHops};
pub use triangles::{local_clustering, triangle_count};
pub use view::{GraphView, ViewSpec};
pub use wcc::wcc;
pub use weight_order::RowOrder;

/// Joins the per-thread vectors of a parallel fold.
fn concat<T>(mut a: Vec<T>, mut b: Vec<T>) -> Vec<T> {
    a.append(&mut b);
    a
}

/// A random multigraph of `m` edges over `n` vertices with weights in
/// `[0, 27)`, from a fixed seed: the kernels' model tests run on it.
#[cfg(test)]
fn random_graph(n: u32, m: usize, seed: u64) -> Graph {
    let mut next = seeded_below(seed);
    let edges: Vec<(u32, u32)> = (0..m).map(|_| (next(n), next(n))).collect();
    let weights: Vec<f64> = (0..m).map(|_| next(1000) as f64 / 37.0).collect();
    Graph::from_edges(n as usize, &edges, Some(&weights))
}

/// Numbers below the bound each call gives, from a fixed seed (the high
/// bits of a 64-bit linear congruential generator): tests' inputs.
#[cfg(test)]
fn seeded_below(seed: u64) -> impl FnMut(u32) -> u32 {
    let mut state = seed;
    move |below| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as u32 % below
    }
}
