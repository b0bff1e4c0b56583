//! `neptune.algo.wcc`: weakly connected components. A component is named
//! by the `id()` of its smallest node, so the answer does not depend on
//! how the work was split.

use super::config::Config;
use super::context::on_view;
use super::sources::{per_node_rows, sources_or_all};
use crate::error::ExecResult;
use crate::procedures::Procedure;
use nereid_algorithms::wcc;
use nereid_planner::ProcedureType;
use nereid_storage::Txn;
use nereid_values::Value;

pub(in crate::procedures) const PROCEDURES: &[Procedure] = &[Procedure {
    name: "neptune.algo.wcc",
    inputs: &[
        ("sourceNodes", ProcedureType::Any),
        ("config = {}", ProcedureType::Map),
    ],
    outputs: &["node", "component"],
    description: "Weakly connected component of every node (or of the source nodes given).",
    mode: "READ",
    body: components,
}];

fn components(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let name = PROCEDURES[0].name;
    let (sources, config) = sources_or_all(name, args)?;
    let config = Config::parse(name, config, &[])?;
    let spec = config.view_spec(None)?;
    on_view(txn, &config, &spec, |view| {
        let component = wcc(view.graph());
        per_node_rows(view, sources.as_deref(), |v| {
            Value::Int(view.node(component[v as usize]).external())
        })
    })
}
