//! Type conversion and string functions: `toString`, `toInteger`, `toFloat`,
//! `toBoolean`, `toUpper`, `toLower`, `trim`.
//!
//! Conversions of unparsable strings give null (as in Cypher); arguments of
//! a type the function does not accept are type errors.

use super::arithmetic::float_text;
use crate::error::{invalid_argument_value, overflow, ExecResult};
use nereid_values::Value;

/// `text` (a temporal value's display form, which leaves out zero seconds:
/// `12:00+01:00`) with the seconds written out (`12:00:00+01:00`), as
/// Neo4j's `toString` renders every time-of-day.
fn with_seconds(value: &Value, text: &str) -> String {
    let time_start = match value {
        Value::LocalTime(_) | Value::Time(_) => Some(0),
        Value::LocalDateTime(_) | Value::DateTime(_) | Value::WideLocal(_) => {
            text.find('T').map(|t| t + 1)
        }
        _ => None,
    };
    let Some(start) = time_start else {
        return text.to_string();
    };
    let minutes_end = start + 5;
    let is_hh_mm = text.get(start..minutes_end).is_some_and(|hm| {
        hm.as_bytes()[2] == b':'
            && hm
                .bytes()
                .enumerate()
                .all(|(i, b)| i == 2 || b.is_ascii_digit())
    });
    if !is_hh_mm || text[minutes_end..].starts_with(':') {
        return text.to_string();
    }
    format!("{}:00{}", &text[..minutes_end], &text[minutes_end..])
}

pub fn to_string(value: &Value) -> ExecResult<Value> {
    Ok(match value {
        Value::Null => Value::Null,
        Value::String(s) => Value::String(s.clone()),
        Value::Int(i) => Value::String(i.to_string()),
        Value::Float(f) => Value::String(float_text(*f)),
        Value::Bool(b) => Value::String(b.to_string()),
        // Temporal values display quoted, as the TCK writes them; toString
        // (like Neo4j 5's) always spells out the seconds of a time.
        t if t.is_temporal() => {
            let text = t.to_string();
            Value::String(with_seconds(t, text.trim_matches('\'')))
        }
        Value::Point(p) => Value::String(p.to_string()),
        other => {
            return Err(invalid_argument_value(
                "Integer, Float, String or Boolean",
                other,
            ))
        }
    })
}

/// Truncates a float toward zero; out of the integer range is an overflow.
fn truncate(f: f64) -> ExecResult<i64> {
    let t = f.trunc();
    // i64::MAX as f64 rounds up to 2^63, hence the strict upper bound.
    if t.is_finite() && t >= i64::MIN as f64 && t < i64::MAX as f64 {
        Ok(t as i64)
    } else {
        Err(overflow())
    }
}

pub fn to_integer(value: &Value) -> ExecResult<Value> {
    Ok(match value {
        Value::Null => Value::Null,
        Value::Int(i) => Value::Int(*i),
        Value::Float(f) => Value::Int(truncate(*f)?),
        Value::Bool(b) => Value::Int(i64::from(*b)),
        Value::String(s) => {
            let s = s.trim();
            match s.parse::<i64>() {
                Ok(i) => Value::Int(i),
                Err(_) => match s.parse::<f64>() {
                    Ok(f) if f.is_finite() => truncate(f).map(Value::Int).unwrap_or(Value::Null),
                    _ => Value::Null,
                },
            }
        }
        other => {
            return Err(invalid_argument_value(
                "Integer, Float, String or Boolean",
                other,
            ))
        }
    })
}

pub fn to_float(value: &Value) -> ExecResult<Value> {
    Ok(match value {
        Value::Null => Value::Null,
        Value::Int(i) => Value::Float(*i as f64),
        Value::Float(f) => Value::Float(*f),
        Value::String(s) => s
            .trim()
            .parse::<f64>()
            .map(Value::Float)
            .unwrap_or(Value::Null),
        other => return Err(invalid_argument_value("Integer, Float or String", other)),
    })
}

pub fn to_boolean(value: &Value) -> ExecResult<Value> {
    Ok(match value {
        Value::Null => Value::Null,
        Value::Bool(b) => Value::Bool(*b),
        Value::Int(i) => Value::Bool(*i != 0),
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => Value::Null,
        },
        other => return Err(invalid_argument_value("Boolean, Integer or String", other)),
    })
}

/// Applies a string-to-string function; null stays null.
pub fn map_string(value: &Value, f: fn(&str) -> String) -> ExecResult<Value> {
    match value {
        Value::Null => Ok(Value::Null),
        Value::String(s) => Ok(Value::String(f(s))),
        other => Err(invalid_argument_value("String", other)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_return_null_for_unparsable_strings() {
        assert_eq!(to_integer(&Value::from(" 42 ")), Ok(Value::Int(42)));
        assert_eq!(to_integer(&Value::from("3.9")), Ok(Value::Int(3)));
        assert_eq!(to_integer(&Value::from("x")), Ok(Value::Null));
        assert_eq!(to_integer(&Value::Float(-2.5)), Ok(Value::Int(-2)));
        assert!(to_integer(&Value::Float(1e300)).is_err());
        assert_eq!(to_float(&Value::from("1.5")), Ok(Value::Float(1.5)));
        assert_eq!(to_float(&Value::from("one")), Ok(Value::Null));
        assert_eq!(to_boolean(&Value::from("TRUE")), Ok(Value::Bool(true)));
        assert_eq!(to_boolean(&Value::from("yes")), Ok(Value::Null));
        assert!(to_boolean(&Value::List(vec![].into())).is_err());
    }

    #[test]
    fn to_string_renders_floats_like_cypher() {
        assert_eq!(to_string(&Value::Float(1.0)), Ok(Value::from("1.0")));
        assert_eq!(to_string(&Value::Int(-7)), Ok(Value::from("-7")));
        assert_eq!(to_string(&Value::Bool(false)), Ok(Value::from("false")));
        assert!(to_string(&Value::Map(Default::default())).is_err());
    }
}
