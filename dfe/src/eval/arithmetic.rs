//! Arithmetic operators (`+ - * / % ^`, unary `-`) on single values.
//!
//! Integer arithmetic is checked: an overflow is an error, never a silent
//! wrap. Mixed integer/float operands are computed in floating point, and
//! float division by zero follows IEEE 754 (Infinity / NaN) as in Cypher.

use super::temporal;
use crate::error::{overflow, type_mismatch, ExecError, ExecResult};
use nereid_values::Value;

/// A numeric operand, after the null and type checks.
enum Number {
    Int(i64),
    Float(f64),
}

fn number(value: &Value) -> Option<Number> {
    match value {
        Value::Int(i) => Some(Number::Int(*i)),
        Value::Float(f) => Some(Number::Float(*f)),
        _ => None,
    }
}

fn to_f64(n: &Number) -> f64 {
    match n {
        Number::Int(i) => *i as f64,
        Number::Float(f) => *f,
    }
}

fn cannot(verb: &str, a: &Value, b: &Value) -> ExecError {
    ExecError::Type(format!(
        "InvalidArgumentType: Type mismatch: cannot {verb} `{}` and `{}`",
        a.type_name(),
        b.type_name()
    ))
}

/// Applies an integer operation (checked) or a float operation depending on
/// the operand types; `None` from the integer operation means overflow.
fn numeric(
    verb: &str,
    a: &Value,
    b: &Value,
    int_op: impl FnOnce(i64, i64) -> ExecResult<Option<i64>>,
    float_op: impl FnOnce(f64, f64) -> f64,
) -> ExecResult<Value> {
    match (number(a), number(b)) {
        (Some(Number::Int(x)), Some(Number::Int(y))) => {
            int_op(x, y)?.map(Value::Int).ok_or_else(overflow)
        }
        (Some(x), Some(y)) => Ok(Value::Float(float_op(to_f64(&x), to_f64(&y)))),
        _ => Err(cannot(verb, a, b)),
    }
}

/// `a + b`: numbers, string concatenation (strings with numbers too), list
/// concatenation, and appending/prepending a single element to a list.
pub fn add(mut a: Value, mut b: Value) -> ExecResult<Value> {
    match (&mut a, &mut b) {
        (Value::Null, _) | (_, Value::Null) => Ok(Value::Null),
        (a, b) if a.is_temporal() && b.is_temporal() => {
            temporal::add(a, b).unwrap_or_else(|| Err(cannot("add", a, b)))
        }
        (Value::String(x), Value::String(y)) => Ok(Value::String(std::mem::take(x) + y)),
        (Value::String(x), n @ (Value::Int(_) | Value::Float(_))) => {
            Ok(Value::String(std::mem::take(x) + &number_text(n)))
        }
        (n @ (Value::Int(_) | Value::Float(_)), Value::String(y)) => {
            Ok(Value::String(number_text(n) + y))
        }
        (Value::List(x), Value::List(y)) => {
            let mut x = x.take();
            x.make_mut().extend(y.take());
            Ok(Value::List(x))
        }
        (Value::List(x), element) => {
            let mut x = x.take();
            x.make_mut().push(std::mem::take(element));
            Ok(Value::List(x))
        }
        (element, Value::List(y)) => {
            let mut out = Vec::with_capacity(y.len() + 1);
            out.push(std::mem::take(element));
            out.extend(y.take());
            Ok(Value::List(out.into()))
        }
        (a, b) => numeric("add", a, b, |x, y| Ok(x.checked_add(y)), |x, y| x + y),
    }
}

/// The text a number concatenates as (same as `toString`).
pub(crate) fn number_text(value: &Value) -> String {
    match value {
        Value::Float(f) => float_text(*f),
        other => other.to_string(),
    }
}

/// Cypher's float rendering: always a fraction or exponent, `NaN`, `Infinity`.
pub(crate) fn float_text(f: f64) -> String {
    Value::Float(f).to_string()
}

pub fn subtract(a: Value, b: Value) -> ExecResult<Value> {
    if a.is_null() || b.is_null() {
        return Ok(Value::Null);
    }
    if let Some(result) = temporal::subtract(&a, &b) {
        return result;
    }
    numeric(
        "subtract",
        &a,
        &b,
        |x, y| Ok(x.checked_sub(y)),
        |x, y| x - y,
    )
}

pub fn multiply(a: Value, b: Value) -> ExecResult<Value> {
    if a.is_null() || b.is_null() {
        return Ok(Value::Null);
    }
    if let Some(result) = match (&a, &b) {
        (Value::Duration(d), n) | (n, Value::Duration(d)) => {
            temporal::multiply_duration(d, n, false)
        }
        _ => None,
    } {
        return result;
    }
    numeric(
        "multiply",
        &a,
        &b,
        |x, y| Ok(x.checked_mul(y)),
        |x, y| x * y,
    )
}

fn division_by_zero() -> ExecError {
    ExecError::Arithmetic("/ by zero".to_string())
}

pub fn divide(a: Value, b: Value) -> ExecResult<Value> {
    if a.is_null() || b.is_null() {
        return Ok(Value::Null);
    }
    if let Value::Duration(d) = &a {
        if let Some(result) = temporal::multiply_duration(d, &b, true) {
            return result;
        }
    }
    numeric(
        "divide",
        &a,
        &b,
        |x, y| {
            if y == 0 {
                Err(division_by_zero())
            } else {
                Ok(x.checked_div(y))
            }
        },
        |x, y| x / y,
    )
}

pub fn modulo(a: Value, b: Value) -> ExecResult<Value> {
    if a.is_null() || b.is_null() {
        return Ok(Value::Null);
    }
    numeric(
        "compute the modulus of",
        &a,
        &b,
        |x, y| {
            if y == 0 {
                Err(division_by_zero())
            } else {
                // i64::MIN % -1 is mathematically 0 (checked_rem reports overflow).
                Ok(Some(x.checked_rem(y).unwrap_or(0)))
            }
        },
        |x, y| x % y,
    )
}

/// `a ^ b` is always a float in Cypher.
pub fn power(a: Value, b: Value) -> ExecResult<Value> {
    if a.is_null() || b.is_null() {
        return Ok(Value::Null);
    }
    match (number(&a), number(&b)) {
        (Some(x), Some(y)) => Ok(Value::Float(to_f64(&x).powf(to_f64(&y)))),
        _ => Err(cannot("raise to the power", &a, &b)),
    }
}

/// Unary minus.
pub fn negate(a: Value) -> ExecResult<Value> {
    match a {
        Value::Null => Ok(Value::Null),
        Value::Int(i) => i.checked_neg().map(Value::Int).ok_or_else(overflow),
        Value::Float(f) => Ok(Value::Float(-f)),
        Value::Duration(d) => temporal::multiply_duration(&d, &Value::Int(-1), false)
            .unwrap_or_else(|| Err(type_mismatch("Number", &Value::Duration(d)))),
        other => Err(type_mismatch("Number", &other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integer_arithmetic_is_checked() {
        assert_eq!(
            add(Value::Int(i64::MAX), Value::Int(1)),
            Err(ExecError::Arithmetic("integer overflow".into()))
        );
        assert_eq!(
            multiply(Value::Int(i64::MIN), Value::Int(-1)),
            Err(ExecError::Arithmetic("integer overflow".into()))
        );
        assert_eq!(
            divide(Value::Int(i64::MIN), Value::Int(-1)),
            Err(ExecError::Arithmetic("integer overflow".into()))
        );
        assert_eq!(
            negate(Value::Int(i64::MIN)),
            Err(ExecError::Arithmetic("integer overflow".into()))
        );
        assert_eq!(
            modulo(Value::Int(i64::MIN), Value::Int(-1)),
            Ok(Value::Int(0))
        );
    }

    #[test]
    fn division_by_zero_differs_for_integers_and_floats() {
        assert_eq!(
            divide(Value::Int(1), Value::Int(0)),
            Err(ExecError::Arithmetic("/ by zero".into()))
        );
        assert_eq!(
            modulo(Value::Int(1), Value::Int(0)),
            Err(ExecError::Arithmetic("/ by zero".into()))
        );
        assert_eq!(
            divide(Value::Float(1.0), Value::Int(0)),
            Ok(Value::Float(f64::INFINITY))
        );
        assert!(matches!(
            divide(Value::Float(0.0), Value::Float(0.0)),
            Ok(Value::Float(f)) if f.is_nan()
        ));
    }

    #[test]
    fn plus_concatenates_strings_and_lists() {
        assert_eq!(
            add(Value::from("a"), Value::Float(1.0)),
            Ok(Value::from("a1.0"))
        );
        assert_eq!(
            add(Value::Int(0), Value::List(vec![Value::Int(1)].into())),
            Ok(Value::List(vec![Value::Int(0), Value::Int(1)].into()))
        );
        assert!(matches!(
            add(Value::Bool(true), Value::Int(1)),
            Err(ExecError::Type(_))
        ));
        assert_eq!(add(Value::Null, Value::from("x")), Ok(Value::Null));
    }
}
