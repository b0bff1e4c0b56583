//! `neptune.algo.degree`: the number of edges at every node (or at the
//! source nodes given) along `traversalDirection` (default outbound; `both`
//! counts in and out).

use super::sources::per_node;
use super::SOURCES_AND_CONFIG;
use crate::error::ExecResult;
use crate::procedures::Procedure;
use nereid_algorithms::Direction;
use nereid_storage::Txn;
use nereid_values::Value;

pub(in crate::procedures) const PROCEDURES: &[Procedure] = &[Procedure {
    name: "neptune.algo.degree",
    inputs: SOURCES_AND_CONFIG,
    outputs: &["node", "degree"],
    description: "Degree of every node (or of the source nodes given).",
    mode: "READ",
    body: degrees,
}];

fn degrees(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    per_node(
        PROCEDURES[0].name,
        txn,
        args,
        &["traversalDirection"],
        |config| config.direction(Direction::Out),
        |view, direction| {
            let g = view.graph();
            (0..g.vertex_count() as u32)
                .map(|v| Value::Int(g.degree(v, direction) as i64))
                .collect()
        },
    )
}
