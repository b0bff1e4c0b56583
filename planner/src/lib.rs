//! From an analysed openCypher AST to a [`PhysicalPlan`] the dfe runs.
//!
//! Pipeline: AST → logical plan (`logical`) → rewrite rules (`rules/`, one
//! named rule per file) → physical plan ([`physical`]).
//!
//! Invariants: the planner never touches storage directly; it asks for
//! estimates through [`Statistics`]. Plans are immutable and `Send + Sync`, so
//! a plan cache can share them between sessions.

pub mod physical;

pub use physical::*;

/// Cardinality estimates the planner needs from the store.
pub trait Statistics {
    /// Estimated number of nodes carrying `label` (all nodes when `None`).
    fn estimate_nodes(&self, label: Option<&str>) -> u64;
}
