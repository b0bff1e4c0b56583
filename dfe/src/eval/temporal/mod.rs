//! The temporal functions and operations: construction, component access,
//! truncation, arithmetic with durations and `duration.between` & co.
//!
//! The value types live in `nereid_values::temporal`; this module gives them
//! their Cypher behaviour.

mod arith;
mod arith_wide;
mod between;
mod between_wide;
mod components;
mod construct;
mod decimal;
mod duration_build;
mod parse;
mod truncate;
mod zone;

pub use arith::{add, multiply_duration, subtract};
pub use components::component;

use crate::error::{type_mismatch, ExecError, ExecResult};
use duration_build::{is_duration_key, DurationBuilder};
use nereid_planner::TemporalFunction;
use nereid_values::temporal::chrono::{NaiveDateTime, Utc};
use nereid_values::Value;
use parse::ZoneSpec;

/// The wall-clock reading (UTC) a statement's temporal functions see as "now".
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct StatementTime(NaiveDateTime);

impl StatementTime {
    pub fn now() -> StatementTime {
        StatementTime(Utc::now().naive_utc())
    }
}

/// The temporal value `text` spells, as `func(text)` would make it
/// (`date('2024-01-02')`, `duration('PT1S')`): for front ends that receive
/// temporals as text (the HTTP Query API's typed JSON).
pub fn from_text(func: TemporalFunction, text: &str) -> ExecResult<Value> {
    call(
        func,
        &[Value::String(text.to_string())],
        StatementTime::now(),
    )
}

/// Calls a temporal function on evaluated arguments (arity already checked).
pub fn call(func: TemporalFunction, args: &[Value], now: StatementTime) -> ExecResult<Value> {
    use TemporalFunction as F;
    match func {
        F::Construct(kind) => construct::construct(kind, args.first(), now.0),
        F::Now(kind) => match args.first() {
            None => Ok(construct::now(kind, now.0)),
            Some(Value::Null) => Ok(Value::Null),
            Some(v) => construct::construct(kind, Some(&timezone_map(v, now.0)?), now.0),
        },
        F::Truncate(kind) => truncate::truncate(kind, args, now.0),
        F::FromEpoch => match (&args[0], &args[1]) {
            (Value::Null, _) | (_, Value::Null) => Ok(Value::Null),
            (Value::Int(s), Value::Int(n)) => {
                let nanos = u32::try_from(*n)
                    .map_err(|_| ExecError::Argument(format!("Invalid nanoseconds {n}")))?;
                Ok(Value::DateTime(Box::new(zone::from_epoch(
                    *s,
                    nanos,
                    &ZoneSpec::Offset(0),
                )?)))
            }
            (Value::Int(_), other) | (other, _) => Err(type_mismatch("Integer", other)),
        },
        F::FromEpochMillis => match &args[0] {
            Value::Null => Ok(Value::Null),
            Value::Int(ms) => {
                let nanos = (ms.rem_euclid(1000) * 1_000_000) as u32;
                Ok(Value::DateTime(Box::new(zone::from_epoch(
                    ms.div_euclid(1000),
                    nanos,
                    &ZoneSpec::Offset(0),
                )?)))
            }
            other => Err(type_mismatch("Integer", other)),
        },
        F::Duration => duration(&args[0]),
        F::DurationBetween => between::between(&args[0], &args[1], between::Unit::All),
        F::DurationInMonths => between::between(&args[0], &args[1], between::Unit::Months),
        F::DurationInDays => between::between(&args[0], &args[1], between::Unit::Days),
        F::DurationInSeconds => between::between(&args[0], &args[1], between::Unit::Seconds),
    }
}

/// `date.transaction('Europe/Stockholm')`: the current time in a zone.
fn timezone_map(v: &Value, now: NaiveDateTime) -> ExecResult<Value> {
    match v {
        Value::String(_) => {
            let now = construct::now(nereid_planner::TemporalKind::DateTime, now);
            Ok(Value::Map(
                [
                    ("datetime".to_string(), now),
                    ("timezone".to_string(), v.clone()),
                ]
                .into(),
            ))
        }
        other => Err(type_mismatch("String", other)),
    }
}

/// `duration(x)` from a map of components or ISO-8601 text.
fn duration(arg: &Value) -> ExecResult<Value> {
    let bad = |what: &str| ExecError::Argument(format!("Invalid duration: {what}"));
    match arg {
        Value::Null => Ok(Value::Null),
        Value::Duration(_) => Ok(arg.clone()),
        Value::String(text) => parse::duration(text)
            .map(Value::Duration)
            .ok_or_else(|| bad(&format!("Text cannot be parsed to a Duration: '{text}'"))),
        Value::Map(map) => {
            let mut builder = DurationBuilder::default();
            for (key, value) in map {
                if !is_duration_key(key) {
                    return Err(bad(&format!("unknown field {key}")));
                }
                let added = match value {
                    Value::Null => Some(()),
                    Value::Int(i) => builder.add_int(key, *i),
                    Value::Float(f) => builder.add_f64(key, *f),
                    other => return Err(type_mismatch("Number", other)),
                };
                added.ok_or_else(|| bad("out of range"))?;
            }
            builder
                .finish()
                .map(Value::Duration)
                .ok_or_else(|| bad("out of range"))
        }
        other => Err(type_mismatch("String or Map", other)),
    }
}
