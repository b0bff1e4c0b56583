//! `neptune.algo.*`: graph algorithms under Neptune Analytics' names,
//! inputs and YIELD columns, so that queries written for it run unchanged.
//!
//! Every procedure takes a source-node list (a node, a list of nodes) or,
//! for the whole-graph algorithms, just the configuration map, and a
//! configuration map of Neptune's option names. The graph is read once per
//! snapshot into a CSR view (`nereid_algorithms::ViewCache`, one per
//! database, reached through [`with_views`]) and the kernel runs on its
//! own pool of `concurrency` threads (default: every core).

mod bfs;
mod closeness;
mod config;
mod context;
mod degree;
mod degree_distribution;
mod egonet;
mod label_propagation;
mod local_clustering;
mod louvain;
mod page_rank;
mod similarity;
mod sources;
mod sssp;
mod sssp_path;
mod topk_sssp;
mod triangle_count;
mod wcc;

pub(crate) use context::with_views;

use nereid_planner::ProcedureType;

/// The inputs of every algorithm run from source nodes: the nodes (or,
/// for a whole-graph algorithm, the configuration map) and the
/// configuration map, empty when left out.
const SOURCES_AND_CONFIG: &[(&str, ProcedureType)] = &[
    ("sourceNodes", ProcedureType::Any),
    ("config = {}", ProcedureType::Map),
];

/// What every `.mutate` variant yields: one row, whether the writes
/// succeeded (a failed write fails the call instead).
const MUTATE_OUTPUTS: &[&str] = &["success"];

pub(super) use bfs::PROCEDURES as BFS;
pub(super) use closeness::PROCEDURES as CLOSENESS;
pub(super) use degree::PROCEDURES as DEGREE;
pub(super) use degree_distribution::PROCEDURES as DEGREE_DISTRIBUTION;
pub(super) use egonet::PROCEDURES as EGONET;
pub(super) use label_propagation::PROCEDURES as LABEL_PROPAGATION;
pub(super) use local_clustering::PROCEDURES as LOCAL_CLUSTERING;
pub(super) use louvain::PROCEDURES as LOUVAIN;
pub(super) use page_rank::PROCEDURES as PAGE_RANK;
pub(super) use similarity::PROCEDURES as SIMILARITY;
pub(super) use sssp::PROCEDURES as SSSP;
pub(super) use sssp_path::PROCEDURES as SSSP_PATH;
pub(super) use topk_sssp::PROCEDURES as TOPK_SSSP;
pub(super) use triangle_count::PROCEDURES as TRIANGLE_COUNT;
pub(super) use wcc::PROCEDURES as WCC;
