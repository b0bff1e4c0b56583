//! Component access on temporal values: `d.year`, `t.offsetMinutes`,
//! `dur.monthsOfYear`, ...

use crate::error::{ExecError, ExecResult};
use nereid_values::temporal::chrono::{Datelike, NaiveDate, NaiveTime, Timelike};
use nereid_values::temporal::fmt_offset;
use nereid_values::{Duration, Value};
use std::fmt;

fn no_such(key: &str, v: &Value) -> ExecError {
    ExecError::Argument(format!("No such field: {key} on {}", v.type_name()))
}

/// `base.key` for a temporal `base`.
pub fn component(base: &Value, key: &str) -> ExecResult<Value> {
    let found = match base {
        Value::Date(d) => date_part(*d, key),
        Value::LocalTime(t) => time_part(*t, key),
        Value::Time(t) => time_part(t.time, key).or_else(|| offset_part(t.offset, None, key)),
        Value::LocalDateTime(dt) => date_part(dt.date(), key).or_else(|| time_part(dt.time(), key)),
        Value::DateTime(dt) => date_part(dt.local.date(), key)
            .or_else(|| time_part(dt.local.time(), key))
            .or_else(|| offset_part(dt.offset, dt.zone.as_deref(), key))
            .or_else(|| {
                let (secs, nanos) = dt.epoch();
                match key {
                    "epochSeconds" => Some(Value::Int(secs)),
                    "epochMillis" => Some(Value::Int(secs * 1000 + i64::from(nanos / 1_000_000))),
                    _ => None,
                }
            }),
        Value::Duration(d) => duration_part(d, key),
        _ => None,
    };
    found.ok_or_else(|| no_such(key, base))
}

fn date_part(d: NaiveDate, key: &str) -> Option<Value> {
    let v = match key {
        "year" => i64::from(d.year()),
        "quarter" => i64::from(d.month0() / 3 + 1),
        "month" => i64::from(d.month()),
        "week" => i64::from(d.iso_week().week()),
        "weekYear" => i64::from(d.iso_week().year()),
        "day" => i64::from(d.day()),
        "ordinalDay" => i64::from(d.ordinal()),
        "weekDay" | "dayOfWeek" => i64::from(d.weekday().number_from_monday()),
        "dayOfQuarter" => {
            let start = NaiveDate::from_ymd_opt(d.year(), d.month0() / 3 * 3 + 1, 1)?;
            (d - start).num_days() + 1
        }
        _ => return None,
    };
    Some(Value::Int(v))
}

fn time_part(t: NaiveTime, key: &str) -> Option<Value> {
    let nanos = i64::from(t.nanosecond());
    let v = match key {
        "hour" => i64::from(t.hour()),
        "minute" => i64::from(t.minute()),
        "second" => i64::from(t.second()),
        "millisecond" => nanos / 1_000_000,
        "microsecond" => nanos / 1_000,
        "nanosecond" => nanos,
        _ => return None,
    };
    Some(Value::Int(v))
}

struct Offset(i32);
impl fmt::Display for Offset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == 0 {
            return write!(f, "+00:00");
        }
        fmt_offset(self.0, f)
    }
}

fn offset_part(offset: i32, zone: Option<&str>, key: &str) -> Option<Value> {
    Some(match key {
        "timezone" => Value::String(match zone {
            Some(z) => z.to_string(),
            None if offset == 0 => "Z".to_string(),
            None => Offset(offset).to_string(),
        }),
        "offset" => Value::String(Offset(offset).to_string()),
        "offsetMinutes" => Value::Int(i64::from(offset / 60)),
        "offsetSeconds" => Value::Int(i64::from(offset)),
        _ => return None,
    })
}

fn duration_part(d: &Duration, key: &str) -> Option<Value> {
    // As in Neo4j: seconds round down and the sub-second part is never
    // negative (`PT-0.1S` has seconds -1 and 900 ms of second).
    let total = d.total_nanos();
    let seconds = i128::from(d.seconds);
    let subsec = i128::from(d.nanos);
    let v: i128 = match key {
        "years" => i128::from(d.months / 12),
        "quarters" => i128::from(d.months / 3),
        "months" => i128::from(d.months),
        "weeks" => i128::from(d.days / 7),
        "days" => i128::from(d.days),
        "hours" => seconds / 3600,
        "minutes" => seconds / 60,
        "seconds" => seconds,
        "milliseconds" => total.div_euclid(1_000_000),
        "microseconds" => total.div_euclid(1_000),
        "nanoseconds" => total,
        "quartersOfYear" => i128::from(d.months % 12 / 3),
        "monthsOfQuarter" => i128::from(d.months % 3),
        "monthsOfYear" => i128::from(d.months % 12),
        "daysOfWeek" => i128::from(d.days % 7),
        "minutesOfHour" => seconds / 60 % 60,
        "secondsOfMinute" => seconds % 60,
        "millisecondsOfSecond" => subsec / 1_000_000,
        "microsecondsOfSecond" => subsec / 1_000,
        "nanosecondsOfSecond" => subsec,
        _ => return None,
    };
    match key {
        // Neo4j computes the total in 64-bit arithmetic that wraps: the
        // drivers' conformance suite expects `nanoseconds` of
        // PT(2^63-1).999999999S to be -1, so it wraps here too.
        "nanoseconds" => Some(Value::Int(v as i64)),
        _ => i64::try_from(v).ok().map(Value::Int),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_wrap_in_64_bits_as_in_neo4j() {
        let longest = Duration {
            months: 0,
            days: 0,
            seconds: i64::MAX,
            nanos: 999_999_999,
        };
        assert_eq!(duration_part(&longest, "nanoseconds"), Some(Value::Int(-1)));
        assert_eq!(
            duration_part(&longest, "nanosecondsOfSecond"),
            Some(Value::Int(999_999_999))
        );
        assert_eq!(
            duration_part(&longest, "seconds"),
            Some(Value::Int(i64::MAX))
        );
    }
}
