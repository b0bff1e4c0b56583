//! The `db.*` procedures.

use super::Procedure;
use crate::error::ExecResult;
use nereid_storage::Txn;
use nereid_values::Value;

pub(super) const PROCEDURES: &[Procedure] = &[Procedure {
    name: "db.ping",
    inputs: &[],
    outputs: &["success"],
    description: "Pings the database: answers `true` when it is available.",
    mode: "READ",
    body: ping,
}];

/// Liveness check used by drivers: answering at all means success.
fn ping(_txn: &Txn, _args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    Ok(vec![vec![Value::Bool(true)]])
}
