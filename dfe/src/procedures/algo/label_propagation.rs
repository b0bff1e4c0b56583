//! `neptune.algo.labelPropagation`: communities by synchronous label
//! propagation (LDBC Graphalytics' CDLP: the most frequent neighbour label,
//! the smallest on a tie). A community is named by the `id()` of the node
//! whose label it carries.

use super::config::Config;
use super::sources::per_node;
use super::SOURCES_AND_CONFIG;
use crate::error::ExecResult;
use crate::procedures::Procedure;
use nereid_algorithms::{label_propagation, Direction};
use nereid_storage::Txn;
use nereid_values::Value;

pub(in crate::procedures) const PROCEDURES: &[Procedure] = &[Procedure {
    name: "neptune.algo.labelPropagation",
    inputs: SOURCES_AND_CONFIG,
    outputs: &["node", "community"],
    description: "Community of every node (or of the source nodes given) by label propagation.",
    mode: "READ",
    body: communities,
}];

const KEYS: &[&str] = &["maxIterations", "traversalDirection"];

fn communities(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let options = |config: &Config| {
        let iterations = config.integer("maxIterations", 1)?;
        Ok((
            config.direction(Direction::Out)?,
            iterations.map_or(10, |i| i.min(u32::MAX as i64) as u32),
        ))
    };
    per_node(
        PROCEDURES[0].name,
        txn,
        args,
        KEYS,
        options,
        |view, (direction, iterations)| {
            label_propagation(view.graph(), direction, iterations)
                .into_iter()
                .map(|label| Value::Int(view.node(label).external()))
                .collect()
        },
    )
}
