//! `neptune.algo.degree`: the number of edges at every node (or at the
//! source nodes given) along `traversalDirection` (default outbound; `both`
//! counts in and out).

use super::config::Config;
use super::context::on_view;
use super::sources::{per_node_rows, sources_or_all};
use crate::error::ExecResult;
use crate::procedures::Procedure;
use nereid_algorithms::Direction;
use nereid_planner::ProcedureType;
use nereid_storage::Txn;
use nereid_values::Value;

pub(in crate::procedures) const PROCEDURES: &[Procedure] = &[Procedure {
    name: "neptune.algo.degree",
    inputs: &[
        ("sourceNodes", ProcedureType::Any),
        ("config = {}", ProcedureType::Map),
    ],
    outputs: &["node", "degree"],
    description: "Degree of every node (or of the source nodes given).",
    mode: "READ",
    body: degrees,
}];

fn degrees(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let name = PROCEDURES[0].name;
    let (sources, config) = sources_or_all(name, args)?;
    let config = Config::parse(name, config, &["traversalDirection"])?;
    let direction = config.direction(Direction::Out)?;
    let spec = config.view_spec(None)?;
    on_view(txn, &config, &spec, |view| {
        per_node_rows(view, sources.as_deref(), |v| {
            Value::Int(view.graph().degree(v, direction) as i64)
        })
    })
}
