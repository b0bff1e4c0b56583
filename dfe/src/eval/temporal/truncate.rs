//! `date.truncate(unit, x [, fields])` and its siblings: cut a temporal down
//! to `unit`, then apply the optional fields as in construction. The zone of
//! the result is the `timezone` field if given (assigned, not converted),
//! else the input's zone.

use super::construct;
use crate::error::{type_mismatch, ExecError, ExecResult};
use nereid_planner::TemporalKind;
use nereid_values::temporal::chrono::{Datelike, NaiveDate, NaiveDateTime, NaiveTime, Timelike};
use nereid_values::temporal::fmt_offset;
use nereid_values::Value;
use std::collections::BTreeMap;
use std::fmt;

fn bad_unit(unit: &str) -> ExecError {
    ExecError::Argument(format!("Unit '{unit}' not supported for truncation"))
}

struct OffsetText(i32);
impl fmt::Display for OffsetText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_offset(self.0, f)
    }
}

fn truncate_date(d: NaiveDate, unit: &str) -> Option<Option<NaiveDate>> {
    let y = d.year();
    Some(match unit {
        "millennium" => NaiveDate::from_ymd_opt(y.div_euclid(1000) * 1000, 1, 1),
        "century" => NaiveDate::from_ymd_opt(y.div_euclid(100) * 100, 1, 1),
        "decade" => NaiveDate::from_ymd_opt(y.div_euclid(10) * 10, 1, 1),
        "year" => NaiveDate::from_ymd_opt(y, 1, 1),
        "weekYear" => super::parse::week_date(d.iso_week().year(), 1, 1),
        "quarter" => NaiveDate::from_ymd_opt(y, d.month0() / 3 * 3 + 1, 1),
        "month" => NaiveDate::from_ymd_opt(y, d.month(), 1),
        "week" => super::parse::week_date(d.iso_week().year(), d.iso_week().week(), 1),
        "day" | "hour" | "minute" | "second" | "millisecond" | "microsecond" => Some(d),
        _ => return None,
    })
}

fn truncate_time(t: NaiveTime, unit: &str) -> Option<NaiveTime> {
    let n = t.nanosecond();
    match unit {
        "hour" => NaiveTime::from_hms_opt(t.hour(), 0, 0),
        "minute" => NaiveTime::from_hms_opt(t.hour(), t.minute(), 0),
        "second" => NaiveTime::from_hms_opt(t.hour(), t.minute(), t.second()),
        "millisecond" => NaiveTime::from_hms_nano_opt(
            t.hour(),
            t.minute(),
            t.second(),
            n / 1_000_000 * 1_000_000,
        ),
        "microsecond" => {
            NaiveTime::from_hms_nano_opt(t.hour(), t.minute(), t.second(), n / 1_000 * 1_000)
        }
        _ => Some(NaiveTime::MIN),
    }
}

pub fn truncate(kind: TemporalKind, args: &[Value], today: NaiveDateTime) -> ExecResult<Value> {
    let (unit, input) = (&args[0], &args[1]);
    let fields = match args.get(2) {
        None | Some(Value::Null) => BTreeMap::new(),
        Some(Value::Map(m)) => m.clone(),
        Some(other) => return Err(type_mismatch("Map", other)),
    };
    let unit = match unit {
        Value::Null => return Ok(Value::Null),
        Value::String(s) => s.as_str(),
        other => return Err(type_mismatch("String", other)),
    };
    let (date, time, zone) = match input {
        Value::Null => return Ok(Value::Null),
        Value::Date(d) => (Some(*d), None, None),
        Value::LocalTime(t) => (None, Some(*t), None),
        Value::Time(t) => (None, Some(t.time), Some(OffsetText(t.offset).to_string())),
        Value::LocalDateTime(dt) => (Some(dt.date()), Some(dt.time()), None),
        Value::DateTime(dt) => (
            Some(dt.local.date()),
            Some(dt.local.time()),
            Some(
                dt.zone
                    .clone()
                    .unwrap_or_else(|| OffsetText(dt.offset).to_string()),
            ),
        ),
        other => return Err(type_mismatch("a temporal value", other)),
    };
    let needs_date = matches!(
        kind,
        TemporalKind::Date | TemporalKind::LocalDateTime | TemporalKind::DateTime
    );
    let date_unit = truncate_date(NaiveDate::MIN, unit).is_some()
        && !matches!(
            unit,
            "day" | "hour" | "minute" | "second" | "millisecond" | "microsecond"
        );
    let time_kind = matches!(kind, TemporalKind::Time | TemporalKind::LocalTime);
    let time_unit = matches!(
        unit,
        "hour" | "minute" | "second" | "millisecond" | "microsecond"
    );
    if (time_kind && date_unit) || (kind == TemporalKind::Date && time_unit) {
        return Err(bad_unit(unit));
    }
    let mut map = fields;
    if needs_date {
        let d = date.ok_or_else(|| type_mismatch("a temporal value with a date", input))?;
        let d = truncate_date(d, unit)
            .ok_or_else(|| bad_unit(unit))?
            .ok_or_else(|| bad_unit(unit))?;
        let t = time
            .map_or(Some(NaiveTime::MIN), |t| truncate_time(t, unit))
            .ok_or_else(|| bad_unit(unit))?;
        let base = if kind == TemporalKind::Date {
            ("date", Value::Date(d))
        } else {
            ("datetime", Value::LocalDateTime(d.and_time(t)))
        };
        map.insert(base.0.to_string(), base.1);
    } else {
        let t = time.ok_or_else(|| type_mismatch("a temporal value with a time", input))?;
        let t = truncate_time(t, unit).ok_or_else(|| bad_unit(unit))?;
        map.insert("time".to_string(), Value::LocalTime(t));
    }
    let zoned = matches!(kind, TemporalKind::Time | TemporalKind::DateTime);
    if zoned && !map.contains_key("timezone") {
        if let Some(z) = zone {
            map.insert("timezone".to_string(), Value::String(z));
        }
    }
    construct::construct(kind, Some(&Value::Map(map)), today)
}
