//! Numeric functions: rounding, sign, roots, logarithms, trigonometry and
//! the constants `e()`, `pi()`, `rand()`. Integers are accepted wherever a
//! float is; null gives null. Out-of-domain inputs give NaN, as in Cypher.

use crate::error::{invalid_argument_value, ExecError, ExecResult};
use nereid_planner::ScalarFunction;
use nereid_values::Value;
use std::hash::{BuildHasher, Hasher};

fn number(value: &Value) -> ExecResult<Option<f64>> {
    match value {
        Value::Null => Ok(None),
        Value::Int(i) => Ok(Some(*i as f64)),
        Value::Float(f) => Ok(Some(*f)),
        other => Err(invalid_argument_value("Number", other)),
    }
}

/// A float function of one number.
pub fn unary(func: ScalarFunction, arg: &Value) -> ExecResult<Value> {
    use ScalarFunction as F;
    let Some(x) = number(arg)? else {
        return Ok(Value::Null);
    };
    let y = match func {
        F::Ceil => x.ceil(),
        F::Floor => x.floor(),
        F::Sqrt => x.sqrt(),
        F::Exp => x.exp(),
        F::Log => x.ln(),
        F::Log10 => x.log10(),
        F::Sin => x.sin(),
        F::Cos => x.cos(),
        F::Tan => x.tan(),
        F::Cot => 1.0 / x.tan(),
        F::Asin => x.asin(),
        F::Acos => x.acos(),
        F::Atan => x.atan(),
        F::Haversin => (1.0 - x.cos()) / 2.0,
        F::Degrees => x.to_degrees(),
        F::Radians => x.to_radians(),
        _ => {
            return Err(ExecError::Argument(format!(
                "{func:?} is not a math function"
            )))
        }
    };
    Ok(Value::Float(y))
}

/// `sign(x)`: an integer -1, 0 or 1.
pub fn sign(arg: &Value) -> ExecResult<Value> {
    Ok(match arg {
        Value::Int(i) => Value::Int(i.signum()),
        other => match number(other)? {
            None => Value::Null,
            Some(f) if f > 0.0 => Value::Int(1),
            Some(f) if f < 0.0 => Value::Int(-1),
            Some(_) => Value::Int(0),
        },
    })
}

pub fn atan2(args: &[Value]) -> ExecResult<Value> {
    match (number(&args[0])?, number(&args[1])?) {
        (Some(y), Some(x)) => Ok(Value::Float(y.atan2(x))),
        _ => Ok(Value::Null),
    }
}

/// `round(x [, precision [, mode]])`. Without a mode, halves round up
/// (towards positive infinity), as in Cypher.
pub fn round(args: &[Value]) -> ExecResult<Value> {
    let Some(x) = number(&args[0])? else {
        return Ok(Value::Null);
    };
    let precision = match args.get(1) {
        None => 0,
        Some(Value::Null) => return Ok(Value::Null),
        Some(Value::Int(p)) => *p,
        Some(other) => return Err(invalid_argument_value("Integer", other)),
    };
    let mode = match args.get(2) {
        None => "HALF_UP".to_string(),
        Some(Value::Null) => return Ok(Value::Null),
        Some(Value::String(m)) => m.to_ascii_uppercase(),
        Some(other) => return Err(invalid_argument_value("String", other)),
    };
    let scale = 10f64.powi(i32::try_from(precision).unwrap_or(i32::MAX));
    let scaled = x * scale;
    let floor = scaled.floor();
    let fraction = scaled - floor;
    let half = (fraction - 0.5).abs() < 1e-9;
    let rounded = match mode.as_str() {
        "CEILING" => scaled.ceil(),
        "FLOOR" => floor,
        "UP" => {
            if scaled >= 0.0 {
                scaled.ceil()
            } else {
                scaled.floor()
            }
        }
        "DOWN" => scaled.trunc(),
        "HALF_UP" if args.len() < 3 => (scaled + 0.5).floor(),
        "HALF_UP" if half => {
            if scaled >= 0.0 {
                floor + 1.0
            } else {
                floor
            }
        }
        "HALF_DOWN" if half => {
            if scaled >= 0.0 {
                floor
            } else {
                floor + 1.0
            }
        }
        "HALF_EVEN" if half => {
            if floor % 2.0 == 0.0 {
                floor
            } else {
                floor + 1.0
            }
        }
        "HALF_UP" | "HALF_DOWN" | "HALF_EVEN" => scaled.round(),
        other => {
            return Err(ExecError::Argument(format!(
                "Unknown rounding mode: {other}"
            )))
        }
    };
    Ok(Value::Float(rounded / scale))
}

/// A pseudo-random float in `[0, 1)`, seeded per call from the process's
/// random hasher keys (no extra dependency).
pub fn rand() -> Value {
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u64(0x9e37_79b9_7f4a_7c15);
    let bits = hasher.finish() >> 11;
    Value::Float(bits as f64 / (1u64 << 53) as f64)
}
