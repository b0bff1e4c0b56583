//! `neptune.algo.labelPropagation`: communities by synchronous label
//! propagation (LDBC Graphalytics' CDLP: the most frequent neighbour label,
//! the smallest on a tie). A community is named by the `id()` of the node
//! whose label it carries.

use super::config::Config;
use super::sources::{mutate, per_node};
use super::{MUTATE_OUTPUTS, SOURCES_AND_CONFIG};
use crate::error::ExecResult;
use crate::procedures::Procedure;
use nereid_algorithms::{label_propagation, AlgorithmError, Direction, GraphView, Stop};
use nereid_storage::Txn;
use nereid_values::Value;

pub(in crate::procedures) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "neptune.algo.labelPropagation",
        inputs: SOURCES_AND_CONFIG,
        outputs: &["node", "community"],
        description: "Community of every node (or of the source nodes given) by label propagation.",
        mode: "READ",
        body: communities,
    },
    Procedure {
        name: "neptune.algo.labelPropagation.mutate",
        inputs: SOURCES_AND_CONFIG,
        outputs: MUTATE_OUTPUTS,
        description: "Writes every node's label-propagation community to `writeProperty`.",
        mode: "WRITE",
        body: communities_written,
    },
];

const KEYS: &[&str] = &["maxIterations", "traversalDirection"];

fn communities(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    per_node(PROCEDURES[0].name, txn, args, KEYS, options, kernel)
}

fn communities_written(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    mutate(PROCEDURES[1].name, txn, args, KEYS, options, kernel)
}

fn options(config: &Config) -> ExecResult<(Direction, u32)> {
    let iterations = config.integer("maxIterations", 1)?;
    Ok((
        config.direction(Direction::Out)?,
        iterations.map_or(10, |i| i.min(u32::MAX as i64) as u32),
    ))
}

fn kernel(
    view: &GraphView,
    (direction, iterations): (Direction, u32),
    stop: Stop,
) -> Result<Vec<Value>, AlgorithmError> {
    Ok(
        label_propagation(view.graph(), direction, iterations, stop)?
            .into_iter()
            .map(|label| Value::Int(view.node(label).external()))
            .collect(),
    )
}
