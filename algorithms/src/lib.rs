//! Graph kernels over consistent store snapshots (Poseidon paper, §7).
//!
//! Kernels read through a storage [`Txn`](nereid_storage::Txn) so they see
//! exactly the snapshot (plus own writes) of the query that calls them.
//! For now there is one kernel, level-synchronous BFS; procedures that
//! expose kernels to Cypher live in the dfe's procedure registry.

mod bfs;

pub use bfs::{bfs_levels, BfsOptions};
