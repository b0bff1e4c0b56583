//! `apoc.periodic.iterate(iterate, action, {batchSize, batchMode, params,
//! parallel})`: the rows of the `iterate` query, `batchSize` at a time
//! (10,000 by default, as APOC), each batch given to the `action` query in
//! a transaction of its own (the engine runs it: `DatabaseHook::
//! run_batches`), with APOC's report. A batch that fails is rolled back and
//! counted in `failedBatches` / `errorMessages`; the others stay committed.
//! As in APOC, the batches are transactions of their own whatever the
//! calling transaction does: called in an explicit transaction (as
//! `execute_query` and managed transactions do), they stay committed if it
//! rolls back. `parallel: true` is
//! accepted and runs the batches one after another (the engine commits
//! them in order); `retries` and `concurrency` are accepted and ignored.

use super::apoc_args::arg;
use super::database_hook::{current_hook, BatchMode, BatchPlan, BatchReport};
use super::Procedure;
use crate::error::{ExecError, ExecResult};
use nereid_planner::ProcedureType;
use nereid_storage::Txn;
use nereid_values::Value;
use std::collections::BTreeMap;

/// The procedure's name (it commits by itself: a query a procedure runs
/// may not call it).
pub const PERIODIC_ITERATE: &str = "apoc.periodic.iterate";

/// APOC's default batch size.
const DEFAULT_BATCH_SIZE: i64 = 10_000;

const KEYS: &[&str] = &[
    "batchSize",
    "batchMode",
    "params",
    "parallel",
    "retries",
    "concurrency",
    "iterateList",
];

pub(super) const PROCEDURES: &[Procedure] = &[Procedure {
    name: PERIODIC_ITERATE,
    inputs: &[
        ("cypherIterate", ProcedureType::String),
        ("cypherAction", ProcedureType::String),
        ("config", ProcedureType::Map),
    ],
    outputs: &[
        "batches",
        "total",
        "timeTaken",
        "committedOperations",
        "failedOperations",
        "failedBatches",
        "retries",
        "errorMessages",
        "batch",
        "operations",
        "wasTerminated",
        "failedParams",
        "updateStatistics",
    ],
    description: "Runs the second statement for each item returned by the first statement. This procedure returns the number of batches and the total number of processed rows.",
    mode: "WRITE",
    body: iterate,
}];

fn iterate(_txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let text = |i: usize, what: &str| match arg(args, i) {
        Value::String(s) if !s.trim().is_empty() => Ok(s.clone()),
        _ => Err(failed(&format!(
            "the {what} statement must be a non-empty string"
        ))),
    };
    let (iterate, action) = (text(0, "iterate")?, text(1, "action")?);
    let config = match arg(args, 2) {
        Value::Map(map) => map.clone(),
        Value::Null => BTreeMap::new(),
        other => {
            return Err(failed(&format!(
                "config must be a map, not {}",
                other.type_name()
            )))
        }
    };
    if let Some(key) = config.keys().find(|k| !KEYS.contains(&k.as_str())) {
        return Err(failed(&format!(
            "unknown config key `{key}` (known: {})",
            KEYS.join(", ")
        )));
    }
    let batch_size = match config.get("batchSize") {
        None | Some(Value::Null) => DEFAULT_BATCH_SIZE,
        Some(Value::Int(n)) if *n >= 1 => *n,
        Some(other) => {
            return Err(failed(&format!(
                "batchSize must be a positive integer, not {other}"
            )))
        }
    };
    let mode = match config.get("batchMode") {
        None | Some(Value::Null) => BatchMode::Batch,
        Some(Value::String(m)) => match m.to_ascii_uppercase().as_str() {
            "BATCH" => BatchMode::Batch,
            "SINGLE" => BatchMode::Single,
            "BATCH_SINGLE" => BatchMode::BatchSingle,
            _ => {
                return Err(failed(&format!(
                    "batchMode must be BATCH, SINGLE or BATCH_SINGLE, not {m}"
                )))
            }
        },
        Some(other) => return Err(failed(&format!("batchMode must be a string, not {other}"))),
    };
    let params = match config.get("params") {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(Value::Map(map)) => map.clone(),
        Some(other) => return Err(failed(&format!("params must be a map, not {other}"))),
    };
    let plan = BatchPlan {
        iterate,
        action,
        batch_size: batch_size as usize,
        mode,
        params,
    };
    let hook = current_hook().map_err(failed)?;
    let report = hook.run_batches(&plan, &super::database_hook::stopped)?;
    Ok(vec![row(&report)])
}

/// APOC's columns for `report`.
fn row(report: &BatchReport) -> Vec<Value> {
    let int = |n: u64| Value::Int(n as i64);
    let errors: BTreeMap<String, Value> = report
        .error_messages
        .iter()
        .map(|(m, n)| (m.clone(), int(*n)))
        .collect();
    let counts = |total: u64, committed: u64, failed: u64| {
        Value::Map(BTreeMap::from([
            ("total".to_string(), int(total)),
            ("committed".to_string(), int(committed)),
            ("failed".to_string(), int(failed)),
            ("errors".to_string(), Value::Map(errors.clone())),
        ]))
    };
    let statistics = report
        .update_statistics
        .iter()
        .map(|(k, v)| (k.clone(), Value::Int(*v)))
        .collect();
    vec![
        int(report.batches),
        int(report.total),
        Value::Int(report.seconds as i64),
        int(report.committed_operations),
        int(report.failed_operations),
        int(report.failed_batches),
        int(0),
        Value::Map(errors.clone()),
        counts(
            report.batches,
            report.batches - report.failed_batches,
            report.failed_batches,
        ),
        counts(
            report.total,
            report.committed_operations,
            report.failed_operations,
        ),
        Value::Bool(report.was_terminated),
        Value::Map(BTreeMap::new()),
        Value::Map(statistics),
    ]
}

fn failed(why: &str) -> ExecError {
    ExecError::ProcedureCallFailed(format!(
        "Failed to invoke procedure `{PERIODIC_ITERATE}`: {why}"
    ))
}
