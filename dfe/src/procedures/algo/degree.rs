//! `neptune.algo.degree`: the number of edges at every node (or at the
//! source nodes given) along `traversalDirection` (default outbound; `both`
//! counts in and out).

use super::config::Config;
use super::sources::{mutate, per_node};
use super::{MUTATE_OUTPUTS, SOURCES_AND_CONFIG};
use crate::error::ExecResult;
use crate::procedures::Procedure;
use nereid_algorithms::{AlgorithmError, Direction, GraphView, Stop};
use nereid_storage::Txn;
use nereid_values::Value;

pub(in crate::procedures) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "neptune.algo.degree",
        inputs: SOURCES_AND_CONFIG,
        outputs: &["node", "degree"],
        description: "Degree of every node (or of the source nodes given).",
        mode: "READ",
        body: degrees,
    },
    Procedure {
        name: "neptune.algo.degree.mutate",
        inputs: SOURCES_AND_CONFIG,
        outputs: MUTATE_OUTPUTS,
        description: "Writes every node's degree to `writeProperty`.",
        mode: "WRITE",
        body: degrees_written,
    },
];

const KEYS: &[&str] = &["traversalDirection"];

fn degrees(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    per_node(PROCEDURES[0].name, txn, args, KEYS, options, kernel)
}

fn degrees_written(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    mutate(PROCEDURES[1].name, txn, args, KEYS, options, kernel)
}

fn options(config: &Config) -> ExecResult<Direction> {
    config.direction(Direction::Out)
}

fn kernel(view: &GraphView, direction: Direction, _: Stop) -> Result<Vec<Value>, AlgorithmError> {
    let g = view.graph();
    Ok((0..g.vertex_count() as u32)
        .map(|v| Value::Int(g.degree(v, direction) as i64))
        .collect())
}
