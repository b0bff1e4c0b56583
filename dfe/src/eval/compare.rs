//! Comparison and membership operators on single values: `=`, `<>`, `<`,
//! `<=`, `>`, `>=`, `IN`, `STARTS WITH`, `ENDS WITH`, `CONTAINS`.
//!
//! Comparing with null, or comparing values of incomparable types with an
//! ordering operator, yields null.

use crate::error::{type_mismatch, ExecResult};
use nereid_values::{Comparison, Value};
use std::cmp::Ordering;

fn from_option(b: Option<bool>) -> Value {
    b.map(Value::Bool).unwrap_or(Value::Null)
}

pub fn equal(a: &Value, b: &Value) -> Value {
    from_option(a.cypher_eq(b))
}

pub fn not_equal(a: &Value, b: &Value) -> Value {
    from_option(a.cypher_eq(b).map(|e| !e))
}

/// An ordering comparison; `accept` says which orderings make it true.
/// NaN is a number, so comparing it with a number is defined, but no ordering
/// holds: `<`, `<=`, `>`, `>=` are all false (not null, which is for
/// incomparable types).
pub fn ordering(a: &Value, b: &Value, accept: fn(Ordering) -> bool) -> Value {
    match a.cypher_cmp(b) {
        Comparison::Ordered(o) => Value::Bool(accept(o)),
        Comparison::Undefined if is_nan_against_number(a, b) => Value::Bool(false),
        Comparison::Undefined => Value::Null,
    }
}

/// Both are numbers and at least one is NaN.
fn is_nan_against_number(a: &Value, b: &Value) -> bool {
    let number = |v: &Value| matches!(v, Value::Int(_) | Value::Float(_));
    let nan = |v: &Value| matches!(v, Value::Float(f) if f.is_nan());
    number(a) && number(b) && (nan(a) || nan(b))
}

/// `a IN list`: true if some element equals `a`; otherwise null when some
/// comparison was null; otherwise false.
pub fn in_list(a: &Value, list: &Value) -> ExecResult<Value> {
    let items = match list {
        Value::Null => return Ok(Value::Null),
        Value::List(items) => items,
        other => return Err(type_mismatch("List", other)),
    };
    let mut undefined = false;
    for item in items {
        match a.cypher_eq(item) {
            Some(true) => return Ok(Value::Bool(true)),
            Some(false) => {}
            None => undefined = true,
        }
    }
    Ok(if undefined {
        Value::Null
    } else {
        Value::Bool(false)
    })
}

/// A string predicate: null unless both operands are strings.
pub fn string_predicate(a: &Value, b: &Value, test: fn(&str, &str) -> bool) -> Value {
    match (a, b) {
        (Value::String(x), Value::String(y)) => Value::Bool(test(x, y)),
        _ => Value::Null,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(items: Vec<Value>) -> Value {
        Value::List(items.into())
    }

    #[test]
    fn in_uses_three_valued_semantics() {
        let one_null = list(vec![Value::Int(1), Value::Null]);
        assert_eq!(in_list(&Value::Int(1), &one_null), Ok(Value::Bool(true)));
        assert_eq!(in_list(&Value::Int(2), &one_null), Ok(Value::Null));
        assert_eq!(
            in_list(&Value::Int(2), &list(vec![Value::Int(1)])),
            Ok(Value::Bool(false))
        );
        assert_eq!(in_list(&Value::Null, &list(vec![])), Ok(Value::Bool(false)));
        assert_eq!(
            in_list(&Value::Null, &list(vec![Value::Int(1)])),
            Ok(Value::Null)
        );
        assert!(in_list(&Value::Int(1), &Value::Int(1)).is_err());
    }

    #[test]
    fn ordering_against_nan_is_false_not_null() {
        let nan = Value::Float(f64::NAN);
        for other in [Value::Int(1), Value::Float(1.0), Value::Float(f64::NAN)] {
            assert_eq!(ordering(&nan, &other, Ordering::is_lt), Value::Bool(false));
            assert_eq!(ordering(&other, &nan, Ordering::is_ge), Value::Bool(false));
        }
        assert_eq!(
            ordering(&nan, &Value::String("a".into()), Ordering::is_lt),
            Value::Null
        );
    }

    #[test]
    fn ordering_of_incomparable_values_is_null() {
        assert_eq!(
            ordering(&Value::Int(1), &Value::from("a"), Ordering::is_lt),
            Value::Null
        );
        assert_eq!(
            ordering(&Value::Int(1), &Value::Float(1.5), Ordering::is_lt),
            Value::Bool(true)
        );
    }
}
