//! APOC's conditional execution: `apoc.when(condition, ifQuery, elseQuery,
//! params)` and `apoc.case([condition, query, ...], elseQuery, params)` run
//! the query the first true condition selects (else `elseQuery`) with
//! `params` as its parameters, in the calling transaction, and yield each
//! of its rows as `value` (a map from its column names). The `.do` forms
//! (`apoc.do.when`, `apoc.do.case`) may write; the plain ones must read, as
//! in APOC, where they run in a read-only context. With no query selected
//! (an empty `elseQuery`), one empty map is yielded, as APOC does.
//!
//! The query runs through the engine (`DatabaseHook::run_nested`): parsed,
//! planned and checked against the user's privileges like any statement.

use super::apoc_args::arg;
use super::database_hook::{current_hook, current_txn, stop_error, stopped};
use super::Procedure;
use crate::error::{ExecError, ExecResult};
use nereid_planner::ProcedureType;
use nereid_storage::Txn;
use nereid_values::Value;
use std::collections::BTreeMap;

const WHEN_INPUTS: &[(&str, ProcedureType)] = &[
    ("condition", ProcedureType::Boolean),
    ("ifQuery", ProcedureType::String),
    ("elseQuery = ''", ProcedureType::String),
    ("params = {}", ProcedureType::Map),
];

const CASE_INPUTS: &[(&str, ProcedureType)] = &[
    ("conditionals", ProcedureType::List),
    ("elseQuery = ''", ProcedureType::String),
    ("params = {}", ProcedureType::Map),
];

pub(super) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "apoc.when",
        inputs: WHEN_INPUTS,
        outputs: &["value"],
        description: "This procedure will run the read-only ifQuery if the conditional has evaluated to true, otherwise the elseQuery will run.",
        mode: "READ",
        body: when,
    },
    Procedure {
        name: "apoc.do.when",
        inputs: WHEN_INPUTS,
        outputs: &["value"],
        description: "Runs the given read/write ifQuery if the conditional has evaluated to true, otherwise the elseQuery will run.",
        mode: "WRITE",
        body: do_when,
    },
    Procedure {
        name: "apoc.case",
        inputs: CASE_INPUTS,
        outputs: &["value"],
        description: "For each pair of conditional and read-only queries in the given LIST<ANY>, this procedure will run the first query for which the conditional is evaluated to true. If none of the conditionals are true, the ELSE query will run instead.",
        mode: "READ",
        body: case,
    },
    Procedure {
        name: "apoc.do.case",
        inputs: CASE_INPUTS,
        outputs: &["value"],
        description: "For each pair of conditional queries in the given LIST<ANY>, this procedure will run the first query for which the conditional is evaluated to true. If none of the conditionals are true, the ELSE query will run instead.",
        mode: "WRITE",
        body: do_case,
    },
];

fn when(_txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    when_as("apoc.when", args, false)
}

fn do_when(_txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    when_as("apoc.do.when", args, true)
}

fn case(_txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    case_as("apoc.case", args, false)
}

fn do_case(_txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    case_as("apoc.do.case", args, true)
}

fn when_as(name: &str, args: &[Value], writes: bool) -> ExecResult<Vec<Vec<Value>>> {
    let chosen = if matches!(arg(args, 0), Value::Bool(true)) {
        arg(args, 1)
    } else {
        arg(args, 2)
    };
    run(name, query_text(name, chosen)?, arg(args, 3), writes)
}

fn case_as(name: &str, args: &[Value], writes: bool) -> ExecResult<Vec<Vec<Value>>> {
    let conditionals: &[Value] = match arg(args, 0) {
        Value::List(items) => items,
        Value::Null => &[],
        other => {
            return Err(failed(
                name,
                &format!("conditionals must be a list, not {}", other.type_name()),
            ))
        }
    };
    if !conditionals.len().is_multiple_of(2) {
        return Err(failed(
            name,
            "conditionals must hold pairs of a boolean and a query",
        ));
    }
    let mut chosen = arg(args, 1);
    for pair in conditionals.chunks(2) {
        match &pair[0] {
            Value::Bool(true) => {
                chosen = &pair[1];
                break;
            }
            Value::Bool(false) | Value::Null => {}
            other => {
                return Err(failed(
                    name,
                    &format!("a condition must be a boolean, not {}", other.type_name()),
                ))
            }
        }
    }
    run(name, query_text(name, chosen)?, arg(args, 2), writes)
}

fn query_text<'a>(name: &str, value: &'a Value) -> ExecResult<&'a str> {
    match value {
        Value::String(text) => Ok(text.as_str()),
        Value::Null => Ok(""),
        other => Err(failed(
            name,
            &format!("a query must be a string, not {}", other.type_name()),
        )),
    }
}

/// The rows of `query` (none selected: one empty map) as `value` rows.
fn run(name: &str, query: &str, params: &Value, writes: bool) -> ExecResult<Vec<Vec<Value>>> {
    if query.trim().is_empty() {
        return Ok(vec![vec![Value::Map(BTreeMap::new())]]);
    }
    let params = match params {
        Value::Map(map) => map.clone(),
        Value::Null => BTreeMap::new(),
        other => {
            return Err(failed(
                name,
                &format!("params must be a map, not {}", other.type_name()),
            ))
        }
    };
    let hook = current_hook().map_err(|why| failed(name, why))?;
    let txn = current_txn().map_err(|why| failed(name, why))?;
    let rows = hook.run_nested(&txn, query, params, writes, &stopped)?;
    if stopped() {
        return Err(stop_error());
    }
    Ok(rows.into_iter().map(|row| vec![Value::Map(row)]).collect())
}

fn failed(name: &str, why: &str) -> ExecError {
    ExecError::ProcedureCallFailed(format!("Failed to invoke procedure `{name}`: {why}"))
}
