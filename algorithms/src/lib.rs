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
mod csr;
mod error;
mod pagerank;
mod pool;
mod sssp;
mod triangles;
mod view;
mod wcc;

pub use bfs::{bfs, BfsTree, UNREACHED};
pub use cache::ViewCache;
pub use cdlp::label_propagation;
pub use csr::{distinct_neighbours, Csr, Direction, Graph};
pub use error::AlgorithmError;
pub use pagerank::{pagerank, PageRankOptions};
pub use pool::run_with_threads;
pub use sssp::{bellman_ford, delta_stepping, ShortestPaths};
pub use triangles::{local_clustering, triangle_count};
pub use view::{GraphView, ViewSpec};
pub use wcc::wcc;
