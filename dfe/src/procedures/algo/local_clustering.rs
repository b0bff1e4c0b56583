//! `neptune.algo.localClusteringCoefficient`: LDBC Graphalytics' LCC, the
//! share of a node's neighbour pairs that are linked. Neighbourhoods are
//! both ways; links are counted along `traversalDirection` (`both`: the
//! graph is taken as undirected).

use super::config::Config;
use super::context::on_view;
use super::sources::{per_node_rows, sources_or_all};
use crate::error::ExecResult;
use crate::procedures::Procedure;
use nereid_algorithms::{local_clustering, Direction};
use nereid_planner::ProcedureType;
use nereid_storage::Txn;
use nereid_values::Value;

pub(in crate::procedures) const PROCEDURES: &[Procedure] = &[Procedure {
    name: "neptune.algo.localClusteringCoefficient",
    inputs: &[
        ("sourceNodes", ProcedureType::Any),
        ("config = {}", ProcedureType::Map),
    ],
    outputs: &["node", "localClusteringCoefficient"],
    description: "Local clustering coefficient of every node (or of the source nodes given).",
    mode: "READ",
    body: coefficients,
}];

fn coefficients(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let name = PROCEDURES[0].name;
    let (sources, config) = sources_or_all(name, args)?;
    let config = Config::parse(name, config, &["traversalDirection"])?;
    let direction = config.direction(Direction::Out)?;
    let spec = config.view_spec(None)?;
    on_view(txn, &config, &spec, |view| {
        let lcc = local_clustering(view.graph(), direction);
        per_node_rows(view, sources.as_deref(), |v| Value::Float(lcc[v as usize]))
    })
}
