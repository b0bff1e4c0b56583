//! `neptune.algo.pageRank`: PageRank over the whole graph (or its
//! `vertexLabel`/`edgeLabels` view), reported for every node or for the
//! source nodes given.

use super::config::Config;
use super::sources::{mutate, per_node};
use super::{MUTATE_OUTPUTS, SOURCES_AND_CONFIG};
use crate::error::ExecResult;
use crate::procedures::Procedure;
use nereid_algorithms::{pagerank, AlgorithmError, Direction, GraphView, PageRankOptions, Stop};
use nereid_storage::Txn;
use nereid_values::Value;

pub(in crate::procedures) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "neptune.algo.pageRank",
        inputs: SOURCES_AND_CONFIG,
        outputs: &["node", "rank"],
        description: "PageRank of every node (or of the source nodes given).",
        mode: "READ",
        body: page_rank,
    },
    Procedure {
        name: "neptune.algo.pageRank.mutate",
        inputs: SOURCES_AND_CONFIG,
        outputs: MUTATE_OUTPUTS,
        description: "Writes every node's PageRank to `writeProperty`.",
        mode: "WRITE",
        body: page_rank_written,
    },
];

const KEYS: &[&str] = &[
    "numOfIterations",
    "dampingFactor",
    "tolerance",
    "traversalDirection",
];

fn page_rank(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    per_node(PROCEDURES[0].name, txn, args, KEYS, options, kernel)
}

fn page_rank_written(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    mutate(PROCEDURES[1].name, txn, args, KEYS, options, kernel)
}

fn options(config: &Config) -> ExecResult<PageRankOptions> {
    Ok(PageRankOptions {
        direction: config.direction(Direction::Out)?,
        damping: config.number("dampingFactor", 0.0..=1.0)?.unwrap_or(0.85),
        iterations: config
            .integer("numOfIterations", 1)?
            .map_or(20, |i| i.min(u32::MAX as i64) as u32),
        tolerance: config.number("tolerance", 0.0..=1.0)?.unwrap_or(0.0),
    })
}

fn kernel(
    view: &GraphView,
    options: PageRankOptions,
    stop: Stop,
) -> Result<Vec<Value>, AlgorithmError> {
    Ok(pagerank(view.graph(), &options, stop)?
        .into_iter()
        .map(Value::Float)
        .collect())
}
