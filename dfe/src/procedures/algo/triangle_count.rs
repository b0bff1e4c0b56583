//! `neptune.algo.triangleCount`: the number of triangles in the graph (or
//! its `vertexLabel`/`edgeLabels` view), edge directions ignored.

use super::config::Config;
use super::context::{call_failed, on_view};
use super::sources::sources_or_all;
use crate::error::ExecResult;
use crate::procedures::Procedure;
use nereid_algorithms::triangle_count;
use nereid_planner::ProcedureType;
use nereid_storage::Txn;
use nereid_values::Value;

pub(in crate::procedures) const PROCEDURES: &[Procedure] = &[Procedure {
    name: "neptune.algo.triangleCount",
    inputs: &[("config = {}", ProcedureType::Map)],
    outputs: &["totalTriangleCount"],
    description: "The number of triangles in the graph.",
    mode: "READ",
    body: triangles,
}];

fn triangles(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let name = PROCEDURES[0].name;
    let (sources, config) = sources_or_all(name, args)?;
    if sources.is_some() {
        return Err(call_failed(
            name,
            "it counts over the whole graph and takes only a configuration map",
        ));
    }
    let config = Config::parse(name, config, &[])?;
    let spec = config.view_spec(None)?;
    on_view(txn, &config, &spec, |view, _| {
        let total = triangle_count(view.graph());
        Ok(vec![vec![Value::Int(
            i64::try_from(total).unwrap_or(i64::MAX),
        )]])
    })
}
