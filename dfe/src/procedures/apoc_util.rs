//! `apoc.util.validate(predicate, message, params)`: fails the statement
//! with `message` when `predicate` is true — how import scripts abort on
//! bad input. The message is a Java format string; `%s` and `%d` take the
//! parameters in order (`%%` is a percent sign), as APOC's
//! `String.format` does for the values these scripts pass.

use super::apoc_args::arg;
use super::Procedure;
use crate::error::{ExecError, ExecResult};
use nereid_planner::ProcedureType;
use nereid_storage::Txn;
use nereid_values::Value;

pub(super) const PROCEDURES: &[Procedure] = &[Procedure {
    name: "apoc.util.validate",
    inputs: &[
        ("predicate", ProcedureType::Boolean),
        ("message", ProcedureType::String),
        ("params", ProcedureType::List),
    ],
    outputs: &[],
    description: "If the given predicate is true an exception is thrown.",
    mode: "READ",
    body: validate,
}];

fn validate(_txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    if !matches!(arg(args, 0), Value::Bool(true)) {
        return Ok(Vec::new());
    }
    let message = match arg(args, 1) {
        Value::String(message) => message.as_str(),
        _ => "",
    };
    let params: &[Value] = match arg(args, 2) {
        Value::List(params) => params,
        _ => &[],
    };
    Err(ExecError::ProcedureCallFailed(format!(
        "Failed to invoke procedure `apoc.util.validate`: Caused by: java.lang.RuntimeException: {}",
        java_format(message, params)
    )))
}

/// `message` with each `%s` / `%d` replaced by the next parameter.
fn java_format(message: &str, params: &[Value]) -> String {
    let mut out = String::with_capacity(message.len());
    let mut params = params.iter();
    let mut chars = message.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('%', Some('%')) => {
                chars.next();
                out.push('%');
            }
            ('%', Some('s' | 'd')) => {
                chars.next();
                out.push_str(&java_text(params.next().unwrap_or(&Value::Null)));
            }
            _ => out.push(c),
        }
    }
    out
}

/// A value as Java's `String.valueOf` writes the ones scripts pass.
fn java_text(value: &Value) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::String(s) => s.clone(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => format!("{f:?}"),
        Value::Bool(b) => b.to_string(),
        other => format!("{other:?}"),
    }
}
