//! `neptune.load({source, format, failOnError, ...})`: Neptune Analytics'
//! batch load as one query. The load runs through the engine's loader
//! (the same one `POST /loader` queues to), as one transaction of its own,
//! and the call yields its outcome once it has ended; a failed load fails
//! the query with the loader's error, and nothing of it is applied.
//!
//! Because the load commits by itself, the engine refuses a query calling
//! this procedure inside an explicit transaction (whose rollback could not
//! undo it).

use super::database_hook::{current_hook, stop_error, stopped};
use super::Procedure;
use crate::error::{ExecError, ExecResult};
use nereid_planner::ProcedureType;
use nereid_storage::Txn;
use nereid_values::Value;

/// The procedure's name, which the engine checks for before running a
/// query in an explicit transaction.
pub const NEPTUNE_LOAD: &str = "neptune.load";

pub(super) const PROCEDURES: &[Procedure] = &[Procedure {
    name: NEPTUNE_LOAD,
    inputs: &[("config", ProcedureType::Map)],
    outputs: &[
        "loadId",
        "state",
        "files",
        "totalRecords",
        "propertyValues",
        "errorCount",
        "errors",
        "seconds",
    ],
    description: "Loads files from the import directory (format opencypher or csv, and the \
                  others the HTTP loader takes) as one atomic transaction, like POST /loader, \
                  and yields the load's outcome.",
    mode: "WRITE",
    body: load,
}];

fn load(_txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let config = match args.first() {
        Some(Value::Map(config)) => config,
        Some(Value::Null) | None => {
            return Err(ExecError::ProcedureCallFailed(
                "neptune.load needs a map with at least `source` and `format`".to_string(),
            ))
        }
        Some(other) => {
            return Err(ExecError::ProcedureCallFailed(format!(
                "neptune.load takes a map, not {}",
                other.type_name()
            )))
        }
    };
    let hook = current_hook()
        .map_err(|why| ExecError::ProcedureCallFailed(format!("neptune.load is {why}")))?;
    let outcome = hook.load(config, &stopped)?;
    if stopped() {
        return Err(stop_error());
    }
    let count = |n: u64| Value::Int(i64::try_from(n).unwrap_or(i64::MAX));
    Ok(vec![vec![
        Value::String(outcome.load_id),
        Value::String(outcome.state),
        count(outcome.files),
        count(outcome.records),
        count(outcome.property_values),
        count(outcome.error_count),
        Value::List(outcome.errors.into()),
        Value::Float(outcome.seconds),
    ]])
}
