//! String functions taking more than a plain string: `substring`,
//! `replace`, `split`, `left`, `right`, `reverse` (also on lists), `lTrim`,
//! `rTrim`. Positions and lengths count characters, not bytes. A null
//! argument gives null; a negative length or start is an argument error.

use crate::error::{invalid_argument_value, ExecError, ExecResult};
use nereid_values::Value;

fn string_arg(value: &Value) -> ExecResult<Option<&str>> {
    match value {
        Value::Null => Ok(None),
        Value::String(s) => Ok(Some(s)),
        other => Err(invalid_argument_value("String", other)),
    }
}

/// A non-negative integer argument (`None` for null).
fn count_arg(value: &Value, what: &str) -> ExecResult<Option<usize>> {
    match value {
        Value::Null => Ok(None),
        Value::Int(i) if *i >= 0 => Ok(Some(usize::try_from(*i).unwrap_or(usize::MAX))),
        Value::Int(i) => Err(ExecError::Argument(format!(
            "Invalid input. '{i}' is not a valid value for {what}. Must be a non-negative integer."
        ))),
        other => Err(invalid_argument_value("Integer", other)),
    }
}

fn null_if_any(args: &[Value]) -> bool {
    args.iter().any(Value::is_null)
}

/// `substring(s, start [, length])`.
pub fn substring(args: &[Value]) -> ExecResult<Value> {
    let s = string_arg(&args[0])?;
    let start = count_arg(&args[1], "start")?;
    let length = match args.get(2) {
        Some(l) => count_arg(l, "length")?.map(Some),
        None => Some(None),
    };
    let (Some(s), Some(start), Some(length)) = (s, start, length) else {
        return Ok(Value::Null);
    };
    let chars = s.chars().skip(start);
    Ok(Value::String(match length {
        Some(n) => chars.take(n).collect(),
        None => chars.collect(),
    }))
}

/// `replace(s, search, replacement)`.
pub fn replace(args: &[Value]) -> ExecResult<Value> {
    let s = string_arg(&args[0])?;
    let search = string_arg(&args[1])?;
    let with = string_arg(&args[2])?;
    match (s, search, with) {
        (Some(s), Some(search), Some(with)) => Ok(Value::String(s.replace(search, with))),
        _ => Ok(Value::Null),
    }
}

/// `split(s, delimiter)`; an empty delimiter splits into characters.
pub fn split(args: &[Value]) -> ExecResult<Value> {
    let s = string_arg(&args[0])?;
    let delimiter = string_arg(&args[1])?;
    let (Some(s), Some(delimiter)) = (s, delimiter) else {
        return Ok(Value::Null);
    };
    let parts: Vec<Value> = if delimiter.is_empty() {
        s.chars().map(|c| Value::String(c.to_string())).collect()
    } else {
        s.split(delimiter)
            .map(|p| Value::String(p.to_string()))
            .collect()
    };
    Ok(Value::List(parts.into()))
}

/// `left(s, n)` / `right(s, n)`.
pub fn side(args: &[Value], left: bool) -> ExecResult<Value> {
    let s = string_arg(&args[0])?;
    if s.is_none() {
        return Ok(Value::Null);
    }
    let n = count_arg(&args[1], "length")?;
    if null_if_any(args) {
        return Err(ExecError::Argument(
            "The length argument of left()/right() must not be null".to_string(),
        ));
    }
    let (Some(s), Some(n)) = (s, n) else {
        return Ok(Value::Null);
    };
    let count = s.chars().count();
    Ok(Value::String(if left {
        s.chars().take(n).collect()
    } else {
        s.chars().skip(count.saturating_sub(n)).collect()
    }))
}

/// `reverse(s)` or `reverse(list)`.
pub fn reverse(arg: &Value) -> ExecResult<Value> {
    match arg {
        Value::Null => Ok(Value::Null),
        Value::String(s) => Ok(Value::String(s.chars().rev().collect())),
        Value::List(items) => Ok(Value::List(items.iter().rev().cloned().collect())),
        other => Err(invalid_argument_value("String or List", other)),
    }
}
