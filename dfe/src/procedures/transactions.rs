//! The procedures behind `SHOW TRANSACTIONS [ids]` and `TERMINATE
//! TRANSACTIONS ids` (the parser desugars both into calls of these), with
//! Neo4j 5.26's columns. The transactions themselves are the engine's,
//! reached through the [`super::DatabaseHook`].
//!
//! What the engine does not track is reported as Neo4j reports an
//! untracked figure (null for CPU and memory, 0 for locks and page-cache
//! counters: the store takes no locks and has no page cache).

use super::database_hook::{current_hook, RunningTransaction};
use super::Procedure;
use crate::error::{ExecError, ExecResult};
use nereid_planner::ProcedureType;
use nereid_storage::Txn;
use nereid_values::temporal::chrono::{DateTime, Utc};
use nereid_values::{Duration, Value};
use std::collections::BTreeMap;
use std::time::SystemTime;

/// `SHOW TRANSACTIONS YIELD *`.
const ALL_COLUMNS: &[&str] = &[
    "database",
    "transactionId",
    "currentQueryId",
    "outerTransactionId",
    "connectionId",
    "clientAddress",
    "username",
    "metaData",
    "currentQuery",
    "parameters",
    "planner",
    "runtime",
    "indexes",
    "startTime",
    "currentQueryStartTime",
    "protocol",
    "requestUri",
    "status",
    "currentQueryStatus",
    "statusDetails",
    "resourceInformation",
    "activeLockCount",
    "currentQueryActiveLockCount",
    "elapsedTime",
    "cpuTime",
    "waitTime",
    "idleTime",
    "currentQueryElapsedTime",
    "currentQueryCpuTime",
    "currentQueryWaitTime",
    "currentQueryIdleTime",
    "currentQueryAllocatedBytes",
    "allocatedDirectBytes",
    "estimatedUsedHeapMemory",
    "pageHits",
    "pageFaults",
    "currentQueryPageHits",
    "currentQueryPageFaults",
    "initializationStackTrace",
];

/// `SHOW TRANSACTIONS` without `YIELD`.
const DEFAULT_COLUMNS: &[&str] = &[
    "database",
    "transactionId",
    "currentQueryId",
    "connectionId",
    "clientAddress",
    "username",
    "currentQuery",
    "startTime",
    "status",
    "elapsedTime",
];

pub(super) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "internal.show.transactions",
        inputs: &[("ids", ProcedureType::Any)],
        outputs: ALL_COLUMNS,
        description: "SHOW TRANSACTIONS ... YIELD",
        mode: "DBMS",
        body: show_all,
    },
    Procedure {
        name: "internal.show.transactionsDefault",
        inputs: &[("ids", ProcedureType::Any)],
        outputs: DEFAULT_COLUMNS,
        description: "SHOW TRANSACTIONS",
        mode: "DBMS",
        body: show_default,
    },
    Procedure {
        name: "internal.terminate.transactions",
        inputs: &[("ids", ProcedureType::Any)],
        outputs: &["transactionId", "username", "message"],
        description: "TERMINATE TRANSACTIONS",
        mode: "DBMS",
        body: terminate,
    },
];

fn show_all(_txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    show(args, ALL_COLUMNS)
}

fn show_default(_txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    show(args, DEFAULT_COLUMNS)
}

fn show(args: &[Value], columns: &[&str]) -> ExecResult<Vec<Vec<Value>>> {
    let wanted = ids(args.first())?;
    let hook = current_hook().map_err(|why| ExecError::ProcedureCallFailed(why.into()))?;
    Ok(hook
        .transactions()
        .iter()
        .filter(|t| wanted.as_ref().is_none_or(|ids| ids.contains(&t.id)))
        .map(|t| {
            let row = columns_of(t);
            columns
                .iter()
                .map(|c| row.get(c).cloned().unwrap_or(Value::Null))
                .collect()
        })
        .collect())
}

fn terminate(_txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let ids = ids(args.first())?.unwrap_or_default();
    let hook = current_hook().map_err(|why| ExecError::ProcedureCallFailed(why.into()))?;
    let running = hook.transactions();
    Ok(ids
        .into_iter()
        .map(|id| {
            let user = running
                .iter()
                .find(|t| t.id == id)
                .map(|t| t.username.clone());
            let (user, message) = match hook.terminate(&id) {
                true => (
                    Value::String(user.unwrap_or_default()),
                    "Transaction terminated.",
                ),
                false => (Value::Null, "Transaction not found."),
            };
            vec![Value::String(id), user, Value::String(message.into())]
        })
        .collect())
}

/// The ids asked for: `None` for all (no ids given), else a string or a
/// list of strings.
fn ids(arg: Option<&Value>) -> ExecResult<Option<Vec<String>>> {
    strings_arg(arg, "Transaction ids")
}

/// A `SHOW ... [names]` argument: `None` for all (none given), else a
/// string or a list of strings; `what` names them in the error.
pub(super) fn strings_arg(arg: Option<&Value>, what: &str) -> ExecResult<Option<Vec<String>>> {
    let bad = |v: &Value| {
        ExecError::Argument(format!(
            "{what} are strings or a list of strings, not {}",
            v.type_name()
        ))
    };
    match arg {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(id)) => Ok(Some(vec![id.clone()])),
        Some(Value::List(items)) => items
            .iter()
            .map(|v| match v {
                Value::String(id) => Ok(id.clone()),
                other => Err(bad(other)),
            })
            .collect::<ExecResult<Vec<_>>>()
            .map(Some),
        Some(other) => Err(bad(other)),
    }
}

/// Every column's value for one transaction.
fn columns_of(t: &RunningTransaction) -> BTreeMap<&'static str, Value> {
    let text = |s: &str| Value::String(s.to_string());
    let query = t.query.as_ref();
    let status = match t.terminated {
        true => "Terminated with reason: Explicitly terminated by the user.",
        false => "Running",
    };
    BTreeMap::from([
        ("database", text(super::DEFAULT_DATABASE)),
        ("transactionId", text(&t.id)),
        ("currentQueryId", text(query.map_or("", |q| &q.id))),
        ("outerTransactionId", text("")),
        ("connectionId", text(&t.connection_id)),
        ("clientAddress", text(&t.client_address)),
        ("username", text(&t.username)),
        ("metaData", Value::Map(t.metadata.clone())),
        ("currentQuery", text(query.map_or("", |q| &q.text))),
        (
            "parameters",
            Value::Map(query.map(|q| q.parameters.clone()).unwrap_or_default()),
        ),
        ("planner", text("")),
        ("runtime", text("")),
        ("indexes", Value::List(Vec::new().into())),
        ("startTime", text(&iso_millis(t.started))),
        (
            "currentQueryStartTime",
            text(&query.map_or(String::new(), |q| iso_millis(q.started))),
        ),
        ("protocol", text(&t.protocol)),
        ("requestUri", text(&t.request_uri)),
        ("status", text(status)),
        (
            "currentQueryStatus",
            text(if query.is_some() { "running" } else { "" }),
        ),
        ("statusDetails", text("")),
        ("resourceInformation", Value::Map(BTreeMap::new())),
        ("activeLockCount", Value::Int(0)),
        ("currentQueryActiveLockCount", Value::Int(0)),
        ("elapsedTime", duration(t.elapsed)),
        ("waitTime", duration(std::time::Duration::ZERO)),
        (
            "currentQueryElapsedTime",
            query.map_or(Value::Null, |q| duration(q.elapsed)),
        ),
        (
            "currentQueryWaitTime",
            query.map_or(Value::Null, |_| duration(std::time::Duration::ZERO)),
        ),
        ("pageHits", Value::Int(0)),
        ("pageFaults", Value::Int(0)),
        ("currentQueryPageHits", Value::Int(0)),
        ("currentQueryPageFaults", Value::Int(0)),
        ("initializationStackTrace", text("")),
    ])
}

/// `2026-11-26T22:54:24.147Z`, as Neo4j writes `startTime`.
fn iso_millis(at: SystemTime) -> String {
    let at: DateTime<Utc> = at.into();
    at.format("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

fn duration(d: std::time::Duration) -> Value {
    Duration::new(0, 0, d.as_nanos() as i128)
        .map(Value::Duration)
        .unwrap_or(Value::Null)
}
