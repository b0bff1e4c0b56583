//! `neptune.algo.louvain` (and `.mutate`): communities that maximise
//! modularity, by the Louvain method over the whole graph (edges taken as
//! undirected; `edgeWeightProperty` weights them). A community is named
//! by the `id()` of its smallest node.

use super::config::Config;
use super::sources::{mutate, per_node};
use super::{MUTATE_OUTPUTS, SOURCES_AND_CONFIG};
use crate::error::ExecResult;
use crate::procedures::Procedure;
use nereid_algorithms::{louvain, AlgorithmError, GraphView, LouvainOptions, Stop};
use nereid_storage::Txn;
use nereid_values::Value;

pub(in crate::procedures) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "neptune.algo.louvain",
        inputs: SOURCES_AND_CONFIG,
        outputs: &["node", "community"],
        description:
            "Community of every node (or of the source nodes given) by the Louvain method.",
        mode: "READ",
        body: communities,
    },
    Procedure {
        name: "neptune.algo.louvain.mutate",
        inputs: SOURCES_AND_CONFIG,
        outputs: MUTATE_OUTPUTS,
        description: "Writes every node's Louvain community to `writeProperty`.",
        mode: "WRITE",
        body: communities_written,
    },
];

const KEYS: &[&str] = &[
    "edgeWeightProperty",
    "edgeWeightType",
    "maxLevels",
    "maxIterations",
    "levelTolerance",
    "iterationTolerance",
];

fn communities(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    per_node(PROCEDURES[0].name, txn, args, KEYS, options, kernel)
}

fn communities_written(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    mutate(PROCEDURES[1].name, txn, args, KEYS, options, kernel)
}

fn options(config: &Config) -> ExecResult<LouvainOptions> {
    let defaults = LouvainOptions::default();
    let count = |key: &str, default: u32| {
        Ok::<_, crate::error::ExecError>(
            config
                .integer(key, 1)?
                .map_or(default, |i| i.min(u32::MAX as i64) as u32),
        )
    };
    Ok(LouvainOptions {
        max_levels: count("maxLevels", defaults.max_levels)?,
        max_iterations: count("maxIterations", defaults.max_iterations)?,
        level_tolerance: config
            .number("levelTolerance", 0.0..=1.0)?
            .unwrap_or(defaults.level_tolerance),
        iteration_tolerance: config
            .number("iterationTolerance", 0.0..=1.0)?
            .unwrap_or(defaults.iteration_tolerance),
    })
}

fn kernel(
    view: &GraphView,
    options: LouvainOptions,
    stop: Stop,
) -> Result<Vec<Value>, AlgorithmError> {
    Ok(louvain(view.graph(), &options, stop)?
        .community
        .into_iter()
        .map(|c| Value::Int(view.node(c).external()))
        .collect())
}
