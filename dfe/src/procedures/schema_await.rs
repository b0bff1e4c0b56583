//! `db.awaitIndexes(timeOutSeconds = 300)` and `db.awaitIndex(name,
//! timeOutSeconds = 300)`: wait for indexes being built to come online, as
//! scripts do after `CREATE INDEX` before relying on it. Lookup indexes
//! are always online.

use super::schema_names::LOOKUP_INDEXES;
use super::Procedure;
use crate::error::{ExecError, ExecResult};
use nereid_planner::ProcedureType;
use nereid_storage::{IndexState, Txn};
use nereid_values::Value;
use std::time::Duration;

pub(super) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "db.awaitIndexes",
        inputs: &[("timeOutSeconds = 300", ProcedureType::Integer)],
        outputs: &[],
        description:
            "Wait for all indexes to come online (for example: CALL db.awaitIndexes(300)).",
        mode: "READ",
        body: await_indexes,
    },
    Procedure {
        name: "db.awaitIndex",
        inputs: &[
            ("indexName", ProcedureType::String),
            ("timeOutSeconds = 300", ProcedureType::Integer),
        ],
        outputs: &[],
        description:
            "Wait for an index to come online (for example: CALL db.awaitIndex(\"MyIndex\", 300)).",
        mode: "READ",
        body: await_index,
    },
];

fn timeout(value: Option<&Value>) -> ExecResult<(Duration, i64)> {
    match value {
        Some(Value::Int(s)) if *s >= 0 => Ok((Duration::from_secs(*s as u64), *s)),
        Some(Value::Null) | None => Ok((Duration::from_secs(300), 300)),
        Some(other) => Err(ExecError::Argument(format!(
            "timeOutSeconds must be a non-negative INTEGER, but was: {other}"
        ))),
    }
}

fn timed_out(seconds: i64) -> ExecError {
    ExecError::ProcedureTimedOut(format!(
        "Index population exceeded provided timeout of {seconds} SECONDS."
    ))
}

fn await_indexes(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let (wait, seconds) = timeout(args.first())?;
    if !txn.await_indexes(wait) {
        return Err(timed_out(seconds));
    }
    Ok(Vec::new())
}

fn await_index(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let name = match args.first() {
        Some(Value::String(s)) => s.as_str(),
        _ => "",
    };
    let (wait, seconds) = timeout(args.get(1))?;
    if LOOKUP_INDEXES.iter().any(|l| l.name == name) {
        return Ok(Vec::new());
    }
    match txn.await_index(name, wait) {
        None => Err(ExecError::IndexNotFound(format!("No such index '{name}'"))),
        Some(IndexState::Online) => Ok(Vec::new()),
        Some(IndexState::Populating { .. }) => Err(timed_out(seconds)),
        Some(IndexState::Failed(why)) => Err(ExecError::IndexFailed(format!(
            "Index '{name}' is in failed state.: {why}"
        ))),
    }
}
