//! `neptune.algo.localClusteringCoefficient`: LDBC Graphalytics' LCC, the
//! share of a node's neighbour pairs that are linked. Neighbourhoods are
//! both ways; links are counted along `traversalDirection` (`both`: the
//! graph is taken as undirected).

use super::sources::per_node;
use super::SOURCES_AND_CONFIG;
use crate::error::ExecResult;
use crate::procedures::Procedure;
use nereid_algorithms::{local_clustering, Direction};
use nereid_storage::Txn;
use nereid_values::Value;

pub(in crate::procedures) const PROCEDURES: &[Procedure] = &[Procedure {
    name: "neptune.algo.localClusteringCoefficient",
    inputs: SOURCES_AND_CONFIG,
    outputs: &["node", "localClusteringCoefficient"],
    description: "Local clustering coefficient of every node (or of the source nodes given).",
    mode: "READ",
    body: coefficients,
}];

fn coefficients(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    per_node(
        PROCEDURES[0].name,
        txn,
        args,
        &["traversalDirection"],
        |config| config.direction(Direction::Out),
        |view, direction, _| {
            Ok(local_clustering(view.graph(), direction)
                .into_iter()
                .map(Value::Float)
                .collect())
        },
    )
}
