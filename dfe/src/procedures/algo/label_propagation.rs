//! `neptune.algo.labelPropagation`: communities by synchronous label
//! propagation (LDBC Graphalytics' CDLP: the most frequent neighbour label,
//! the smallest on a tie). A community is named by the `id()` of the node
//! whose label it carries.

use super::config::Config;
use super::context::on_view;
use super::sources::{per_node_rows, sources_or_all};
use crate::error::ExecResult;
use crate::procedures::Procedure;
use nereid_algorithms::{label_propagation, Direction};
use nereid_planner::ProcedureType;
use nereid_storage::Txn;
use nereid_values::Value;

pub(in crate::procedures) const PROCEDURES: &[Procedure] = &[Procedure {
    name: "neptune.algo.labelPropagation",
    inputs: &[
        ("sourceNodes", ProcedureType::Any),
        ("config = {}", ProcedureType::Map),
    ],
    outputs: &["node", "community"],
    description: "Community of every node (or of the source nodes given) by label propagation.",
    mode: "READ",
    body: communities,
}];

const KEYS: &[&str] = &["maxIterations", "traversalDirection"];

fn communities(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let name = PROCEDURES[0].name;
    let (sources, config) = sources_or_all(name, args)?;
    let config = Config::parse(name, config, KEYS)?;
    let direction = config.direction(Direction::Out)?;
    let iterations = config
        .integer("maxIterations", 1)?
        .map_or(10, |i| i.min(u32::MAX as i64) as u32);
    let spec = config.view_spec(None)?;
    on_view(txn, &config, &spec, |view| {
        let label = label_propagation(view.graph(), direction, iterations);
        per_node_rows(view, sources.as_deref(), |v| {
            Value::Int(view.node(label[v as usize]).external())
        })
    })
}
