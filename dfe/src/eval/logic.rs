//! Three-valued boolean logic (`true`, `false`, `null`) of openCypher.

use crate::error::{type_mismatch, ExecResult};
use nereid_values::Value;

/// A boolean operand: `Some(b)` or `None` for null.
fn truth(value: &Value) -> ExecResult<Option<bool>> {
    match value {
        Value::Null => Ok(None),
        Value::Bool(b) => Ok(Some(*b)),
        other => Err(type_mismatch("Boolean", other)),
    }
}

fn from_truth(t: Option<bool>) -> Value {
    t.map(Value::Bool).unwrap_or(Value::Null)
}

pub fn and(a: &Value, b: &Value) -> ExecResult<Value> {
    Ok(from_truth(match (truth(a)?, truth(b)?) {
        (Some(false), _) | (_, Some(false)) => Some(false),
        (Some(true), Some(true)) => Some(true),
        _ => None,
    }))
}

pub fn or(a: &Value, b: &Value) -> ExecResult<Value> {
    Ok(from_truth(match (truth(a)?, truth(b)?) {
        (Some(true), _) | (_, Some(true)) => Some(true),
        (Some(false), Some(false)) => Some(false),
        _ => None,
    }))
}

pub fn xor(a: &Value, b: &Value) -> ExecResult<Value> {
    Ok(from_truth(match (truth(a)?, truth(b)?) {
        (Some(x), Some(y)) => Some(x != y),
        _ => None,
    }))
}

pub fn not(a: &Value) -> ExecResult<Value> {
    Ok(from_truth(truth(a)?.map(|b| !b)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Value = Value::Bool(true);
    const F: Value = Value::Bool(false);
    const N: Value = Value::Null;

    #[test]
    fn truth_tables_follow_kleene_logic() {
        let cases = [
            (T, T, T, T, F),
            (T, F, F, T, T),
            (T, N, N, T, N),
            (F, F, F, F, F),
            (F, N, F, N, N),
            (N, N, N, N, N),
        ];
        for (a, b, want_and, want_or, want_xor) in cases {
            assert_eq!(and(&a, &b).unwrap(), want_and, "{a} AND {b}");
            assert_eq!(and(&b, &a).unwrap(), want_and, "{b} AND {a}");
            assert_eq!(or(&a, &b).unwrap(), want_or, "{a} OR {b}");
            assert_eq!(or(&b, &a).unwrap(), want_or, "{b} OR {a}");
            assert_eq!(xor(&a, &b).unwrap(), want_xor, "{a} XOR {b}");
        }
        assert_eq!(not(&N).unwrap(), N);
        assert_eq!(not(&T).unwrap(), F);
        assert!(not(&Value::Int(1)).is_err());
    }
}
