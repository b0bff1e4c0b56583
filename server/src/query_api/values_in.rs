//! Query parameters from a Query API request: plain JSON (integers without
//! a fraction are Cypher integers, other numbers floats) or typed JSON
//! (`Content-Type: application/vnd.neo4j.query`: `{"$type", "_value"}`
//! objects, temporals and points from their text). A typed-looking object
//! in a plain request is an ordinary map, as in Neo4j.

use nereid_dfe::temporal_from_text;
use nereid_planner::{TemporalFunction, TemporalKind};
use nereid_values::{Crs, Point, Value};
use serde_json::Value as Json;
use std::collections::BTreeMap;

/// Deeper nesting is refused rather than recursed into.
const MAX_DEPTH: usize = 64;

/// The parameters `json` holds (an object, or null for none).
pub(crate) fn parameters(json: &Json, typed: bool) -> Result<BTreeMap<String, Value>, String> {
    match json {
        Json::Null => Ok(BTreeMap::new()),
        Json::Object(entries) => entries
            .iter()
            .map(|(k, v)| Ok((k.clone(), value(v, typed, 0)?)))
            .collect(),
        _ => Err("`parameters` must be an object".into()),
    }
}

fn value(json: &Json, typed: bool, depth: usize) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err(format!("parameters nest deeper than {MAX_DEPTH} levels"));
    }
    if typed {
        return typed_value(json, depth);
    }
    Ok(match json {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::Number(n) => number(n)?,
        Json::String(s) => Value::String(s.clone()),
        Json::Array(items) => Value::List(
            items
                .iter()
                .map(|v| value(v, false, depth + 1))
                .collect::<Result<Vec<_>, _>>()?
                .into(),
        ),
        Json::Object(entries) => Value::Map(
            entries
                .iter()
                .map(|(k, v)| Ok((k.clone(), value(v, false, depth + 1)?)))
                .collect::<Result<_, String>>()?,
        ),
    })
}

fn number(n: &serde_json::Number) -> Result<Value, String> {
    if let Some(i) = n.as_i64() {
        return Ok(Value::Int(i));
    }
    if n.is_u64() {
        return Err(format!("{n} does not fit a 64-bit integer"));
    }
    n.as_f64()
        .map(Value::Float)
        .ok_or_else(|| format!("{n} is not a number Cypher can hold"))
}

/// `{"$type": T, "_value": v}`.
fn typed_value(json: &Json, depth: usize) -> Result<Value, String> {
    let Json::Object(entries) = json else {
        return Err(format!(
            "typed JSON expects {{\"$type\", \"_value\"}}, not {json}"
        ));
    };
    let (Some(Json::String(ty)), Some(inner), 2) =
        (entries.get("$type"), entries.get("_value"), entries.len())
    else {
        return Err(format!(
            "typed JSON expects {{\"$type\", \"_value\"}}, not {json}"
        ));
    };
    let text = || {
        inner
            .as_str()
            .ok_or_else(|| format!("a {ty} is written as a string, not {inner}"))
    };
    let temporal = |func: TemporalFunction| {
        temporal_from_text(func, text()?).map_err(|e| format!("{ty} `{inner}`: {e}"))
    };
    Ok(match ty.as_str() {
        "Null" => Value::Null,
        "Boolean" => Value::Bool(
            inner
                .as_bool()
                .ok_or_else(|| format!("a Boolean is true or false, not {inner}"))?,
        ),
        "Integer" => Value::Int(
            text()?
                .parse()
                .map_err(|_| format!("`{inner}` is not a 64-bit integer"))?,
        ),
        "Float" => Value::Float(parse_float(text()?)?),
        "String" => Value::String(text()?.to_string()),
        "Base64" => {
            use base64::Engine;
            Value::Bytes(
                base64::engine::general_purpose::STANDARD
                    .decode(text()?)
                    .map_err(|e| format!("Base64 `{inner}`: {e}"))?,
            )
        }
        "List" => {
            let items = inner
                .as_array()
                .ok_or_else(|| format!("a List holds an array, not {inner}"))?;
            Value::List(
                items
                    .iter()
                    .map(|v| value(v, true, depth + 1))
                    .collect::<Result<Vec<_>, _>>()?
                    .into(),
            )
        }
        "Map" => {
            let entries = inner
                .as_object()
                .ok_or_else(|| format!("a Map holds an object, not {inner}"))?;
            Value::Map(
                entries
                    .iter()
                    .map(|(k, v)| Ok((k.clone(), value(v, true, depth + 1)?)))
                    .collect::<Result<_, String>>()?,
            )
        }
        "Date" => temporal(TemporalFunction::Construct(TemporalKind::Date))?,
        "Time" => temporal(TemporalFunction::Construct(TemporalKind::Time))?,
        "LocalTime" => temporal(TemporalFunction::Construct(TemporalKind::LocalTime))?,
        "LocalDateTime" => temporal(TemporalFunction::Construct(TemporalKind::LocalDateTime))?,
        "OffsetDateTime" | "ZonedDateTime" => {
            temporal(TemporalFunction::Construct(TemporalKind::DateTime))?
        }
        "Duration" => temporal(TemporalFunction::Duration)?,
        "Point" => Value::Point(point(text()?)?),
        other => return Err(format!("unknown typed JSON type `{other}`")),
    })
}

fn parse_float(text: &str) -> Result<f64, String> {
    match text {
        "NaN" => Ok(f64::NAN),
        "Infinity" => Ok(f64::INFINITY),
        "-Infinity" => Ok(f64::NEG_INFINITY),
        _ => text.parse().map_err(|_| format!("`{text}` is not a float")),
    }
}

/// `SRID=4326;POINT (x y)` or `SRID=4979;POINT Z (x y z)`.
fn point(text: &str) -> Result<Point, String> {
    let bad = || format!("`{text}` is not a point (SRID=n;POINT (x y) or POINT Z (x y z))");
    let (srid, shape) = text.split_once(';').ok_or_else(bad)?;
    let srid: i64 = srid
        .trim()
        .strip_prefix("SRID=")
        .and_then(|s| s.parse().ok())
        .ok_or_else(bad)?;
    let crs = Crs::from_srid(srid).ok_or_else(|| format!("unknown SRID {srid} in `{text}`"))?;
    let shape = shape.trim();
    let coordinates = shape
        .strip_prefix("POINT Z")
        .or_else(|| shape.strip_prefix("POINT"))
        .map(str::trim)
        .and_then(|c| c.strip_prefix('('))
        .and_then(|c| c.strip_suffix(')'))
        .ok_or_else(bad)?;
    let numbers = coordinates
        .split_whitespace()
        .map(|n| n.parse::<f64>().map_err(|_| bad()))
        .collect::<Result<Vec<_>, _>>()?;
    let point = match numbers[..] {
        [x, y] => Point::new(crs, x, y, None),
        [x, y, z] => Point::new(crs, x, y, Some(z)),
        _ => None,
    };
    point.ok_or_else(|| format!("`{text}`: the coordinates do not match SRID {srid}"))
}
