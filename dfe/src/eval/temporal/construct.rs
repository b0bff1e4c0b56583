//! `date(...)`, `localtime(...)`, `time(...)`, `localdatetime(...)` and
//! `datetime(...)`: from a map of fields, from text, or from another
//! temporal value (selecting its date and/or time parts).

use super::parse::{self, ZoneSpec};
use super::zone;
use crate::error::{type_mismatch, ExecError, ExecResult};
use nereid_planner::TemporalKind;
use nereid_values::temporal::chrono::{Datelike, NaiveDate, NaiveDateTime, NaiveTime, Timelike};
use nereid_values::{OffsetTime, Value, WideLocal, ZonedDateTime};
use std::collections::BTreeMap;

fn invalid(what: &str) -> ExecError {
    ExecError::Argument(format!("Invalid temporal value: {what}"))
}

/// The current time `now` (UTC) as a value of `kind`.
pub fn now(kind: TemporalKind, now: NaiveDateTime) -> Value {
    build(kind, now, ZoneSpec::Offset(0)).unwrap_or_default()
}

/// Builds a value of `kind` from a wall time and a zone.
fn build(kind: TemporalKind, local: NaiveDateTime, zone_spec: ZoneSpec) -> ExecResult<Value> {
    Ok(match kind {
        TemporalKind::Date => Value::Date(local.date()),
        TemporalKind::LocalTime => Value::LocalTime(local.time()),
        TemporalKind::LocalDateTime => Value::LocalDateTime(local),
        TemporalKind::Time => Value::Time(OffsetTime {
            time: local.time(),
            offset: zone::offset_at(&zone_spec, local)?,
        }),
        TemporalKind::DateTime => Value::DateTime(Box::new(zone::at_local(local, &zone_spec)?)),
    })
}

/// `kind(arg)`.
pub fn construct(
    kind: TemporalKind,
    arg: Option<&Value>,
    today: NaiveDateTime,
) -> ExecResult<Value> {
    match arg {
        None => Ok(now(kind, today)),
        Some(Value::Null) => Ok(Value::Null),
        Some(Value::String(text)) => from_text(kind, text, today),
        Some(Value::Map(map)) => from_map(kind, map, today),
        Some(v) if v.is_temporal() && !matches!(v, Value::Duration(_)) => {
            let key = match kind {
                TemporalKind::LocalTime | TemporalKind::Time => "time",
                TemporalKind::Date => "date",
                _ => "datetime",
            };
            from_map(kind, &BTreeMap::from([(key.to_string(), v.clone())]), today)
        }
        Some(other) => Err(type_mismatch("String or Map", other)),
    }
}

fn from_text(kind: TemporalKind, text: &str, today: NaiveDateTime) -> ExecResult<Value> {
    let bad = || invalid(&format!("Text cannot be parsed to a {kind:?}: '{text}'"));
    match kind {
        TemporalKind::Date => parse::date_wide(text)
            .and_then(|(cycles, d)| {
                WideLocal::into_value(d.and_time(NaiveTime::MIN), cycles, false)
            })
            .ok_or_else(bad),
        TemporalKind::LocalTime => parse::local_time(text)
            .map(Value::LocalTime)
            .ok_or_else(bad),
        TemporalKind::Time => {
            let (t, z) = parse::time(text).ok_or_else(bad)?;
            let at = today.date().and_time(t);
            let offset = zone::offset_at(&z.unwrap_or(ZoneSpec::Offset(0)), at)?;
            Ok(Value::Time(OffsetTime { time: t, offset }))
        }
        TemporalKind::LocalDateTime => match parse::local_datetime_wide(text) {
            Some((cycles, dt)) => WideLocal::into_value(dt, cycles, true).ok_or_else(bad),
            // A zone in the text is ignored, as for a plain local date-time.
            None => {
                let (dt, _) = parse::datetime(text).ok_or_else(bad)?;
                Ok(Value::LocalDateTime(dt))
            }
        },
        TemporalKind::DateTime => {
            let (dt, z) = parse::datetime(text).ok_or_else(bad)?;
            build(kind, dt, z.unwrap_or(ZoneSpec::Offset(0)))
        }
    }
}

/// The date, time and zone a temporal value holds (those it has).
#[derive(Default)]
struct Parts {
    date: Option<NaiveDate>,
    time: Option<NaiveTime>,
    zoned: Option<ZonedDateTime>,
    offset: Option<i32>,
}

fn parts(v: &Value) -> ExecResult<Parts> {
    Ok(match v {
        Value::Date(d) => Parts {
            date: Some(*d),
            ..Parts::default()
        },
        Value::LocalTime(t) => Parts {
            time: Some(*t),
            ..Parts::default()
        },
        Value::Time(t) => Parts {
            time: Some(t.time),
            offset: Some(t.offset),
            ..Parts::default()
        },
        Value::LocalDateTime(dt) => Parts {
            date: Some(dt.date()),
            time: Some(dt.time()),
            ..Parts::default()
        },
        Value::DateTime(dt) => Parts {
            date: Some(dt.local.date()),
            time: Some(dt.local.time()),
            offset: Some(dt.offset),
            zoned: Some((**dt).clone()),
        },
        other => return Err(type_mismatch("a temporal value", other)),
    })
}

fn int_field(map: &BTreeMap<String, Value>, key: &str) -> ExecResult<Option<i64>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Int(i)) => Ok(Some(*i)),
        Some(other) => Err(type_mismatch("Integer", other)),
    }
}

fn u32_field(map: &BTreeMap<String, Value>, key: &str) -> ExecResult<Option<u32>> {
    int_field(map, key)?
        .map(|v| u32::try_from(v).map_err(|_| invalid(&format!("{key} {v}"))))
        .transpose()
}

const DATE_KEYS: [&str; 8] = [
    "year",
    "month",
    "day",
    "week",
    "dayOfWeek",
    "ordinalDay",
    "quarter",
    "dayOfQuarter",
];
const TIME_KEYS: [&str; 7] = [
    "hour",
    "minute",
    "second",
    "millisecond",
    "microsecond",
    "nanosecond",
    "timezone",
];

/// Resolves the date fields over an optional base date.
fn resolve_date(map: &BTreeMap<String, Value>, base: Option<NaiveDate>) -> ExecResult<NaiveDate> {
    let year = int_field(map, "year")?.map(|y| y as i32);
    let bad = || invalid("date fields out of range");
    if map.contains_key("week") || map.contains_key("dayOfWeek") {
        let week_year = year.or(base.map(|b| b.iso_week().year())).ok_or_else(bad)?;
        let week = u32_field(map, "week")?
            .or(base.map(|b| b.iso_week().week()))
            .unwrap_or(1);
        let dow = u32_field(map, "dayOfWeek")?
            .or(base.map(|b| b.weekday().number_from_monday()))
            .unwrap_or(1);
        return parse::week_date(week_year, week, dow).ok_or_else(bad);
    }
    let year = year.or(base.map(|b| b.year())).ok_or_else(bad)?;
    if let Some(ordinal) = u32_field(map, "ordinalDay")? {
        return NaiveDate::from_yo_opt(year, ordinal).ok_or_else(bad);
    }
    if map.contains_key("quarter") || map.contains_key("dayOfQuarter") {
        let quarter = u32_field(map, "quarter")?
            .or(base.map(|b| b.month0() / 3 + 1))
            .unwrap_or(1);
        let day_of_quarter = match u32_field(map, "dayOfQuarter")? {
            Some(d) => d,
            None => match base {
                Some(b) => {
                    b.ordinal()
                        - quarter_start(b.year(), b.month0() / 3 + 1)
                            .ok_or_else(bad)?
                            .ordinal()
                        + 1
                }
                None => 1,
            },
        };
        if !(1..=4).contains(&quarter) || day_of_quarter == 0 {
            return Err(bad());
        }
        let start = quarter_start(year, quarter).ok_or_else(bad)?;
        let date =
            start + nereid_values::temporal::chrono::Duration::days(i64::from(day_of_quarter) - 1);
        if date.month0() / 3 + 1 != quarter {
            return Err(bad());
        }
        return Ok(date);
    }
    let month = u32_field(map, "month")?
        .or(base.map(|b| b.month()))
        .unwrap_or(1);
    let day = u32_field(map, "day")?
        .or(base.map(|b| b.day()))
        .unwrap_or(1);
    NaiveDate::from_ymd_opt(year, month, day).ok_or_else(bad)
}

pub fn quarter_start(year: i32, quarter: u32) -> Option<NaiveDate> {
    NaiveDate::from_ymd_opt(year, (quarter - 1) * 3 + 1, 1)
}

/// Resolves the time fields over an optional base time.
fn resolve_time(map: &BTreeMap<String, Value>, base: Option<NaiveTime>) -> ExecResult<NaiveTime> {
    let bad = || invalid("time fields out of range");
    let hour = u32_field(map, "hour")?
        .or(base.map(|b| b.hour()))
        .unwrap_or(0);
    let minute = u32_field(map, "minute")?
        .or(base.map(|b| b.minute()))
        .unwrap_or(0);
    let second = u32_field(map, "second")?
        .or(base.map(|b| b.second()))
        .unwrap_or(0);
    let (ms, us, ns) = (
        int_field(map, "millisecond")?,
        int_field(map, "microsecond")?,
        int_field(map, "nanosecond")?,
    );
    let nanos = if ms.is_none() && us.is_none() && ns.is_none() {
        i64::from(base.map(|b| b.nanosecond()).unwrap_or(0))
    } else {
        let base_nanos = i64::from(base.map(|b| b.nanosecond()).unwrap_or(0));
        let ms = ms.unwrap_or(base_nanos / 1_000_000);
        let us = us.unwrap_or(if ms != base_nanos / 1_000_000 {
            0
        } else {
            base_nanos / 1_000 % 1_000
        });
        let ns = ns.unwrap_or(0);
        if !(0..1000).contains(&ms)
            || !(0..1_000_000).contains(&us)
            || !(0..1_000_000_000).contains(&ns)
        {
            return Err(bad());
        }
        ms * 1_000_000 + us * 1_000 + ns
    };
    if nanos >= 1_000_000_000 {
        return Err(bad());
    }
    NaiveTime::from_hms_nano_opt(hour, minute, second, nanos as u32).ok_or_else(bad)
}

fn from_map(
    kind: TemporalKind,
    map: &BTreeMap<String, Value>,
    today: NaiveDateTime,
) -> ExecResult<Value> {
    for key in map.keys() {
        let known = DATE_KEYS.contains(&key.as_str())
            || TIME_KEYS.contains(&key.as_str())
            || matches!(
                key.as_str(),
                "date" | "time" | "datetime" | "epochSeconds" | "epochMillis"
            );
        if !known {
            return Err(invalid(&format!("unknown field {key}")));
        }
    }
    let timezone = match map.get("timezone") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(zone::spec_from_text(s)?),
        Some(other) => return Err(type_mismatch("String", other)),
    };
    if let Some(secs) = int_field(map, "epochSeconds")?
        .or(int_field(map, "epochMillis")?.map(|m| m.div_euclid(1000)))
    {
        let extra = int_field(map, "epochMillis")?
            .map(|m| m.rem_euclid(1000) * 1_000_000)
            .unwrap_or(0)
            + int_field(map, "nanosecond")?.unwrap_or(0);
        let zoned = zone::from_epoch(secs, extra as u32, &timezone.unwrap_or(ZoneSpec::Offset(0)))?;
        return Ok(Value::DateTime(Box::new(zoned)));
    }
    let datetime_base = map
        .get("datetime")
        .filter(|v| !v.is_null())
        .map(parts)
        .transpose()?;
    let date_base = match map.get("date").filter(|v| !v.is_null()) {
        Some(v) => Some(parts(v)?),
        None => None,
    };
    let time_base = match map.get("time").filter(|v| !v.is_null()) {
        Some(v) => Some(parts(v)?),
        None => None,
    };
    let date_src = date_base
        .as_ref()
        .or(datetime_base.as_ref())
        .and_then(|p| p.date);
    let time_parts = time_base.as_ref().or(datetime_base.as_ref());
    let time_src = time_parts.and_then(|p| p.time);

    let has_date = matches!(
        kind,
        TemporalKind::Date | TemporalKind::LocalDateTime | TemporalKind::DateTime
    );
    let has_time = !matches!(kind, TemporalKind::Date);
    let date = if has_date {
        resolve_date(map, date_src)?
    } else {
        // A time in a named zone takes the zone's offset on the statement's date.
        today.date()
    };
    let time = if has_time {
        resolve_time(map, time_src)?
    } else {
        NaiveTime::MIN
    };
    let local = date.and_time(time);
    match kind {
        TemporalKind::DateTime | TemporalKind::Time => {
            // The zone the base value had, if any: a new zone then converts
            // the instant; otherwise it is simply assigned.
            let base_zone = time_parts.and_then(|p| match (&p.zoned, p.offset) {
                (Some(z), _) => Some(zone::of(z)),
                (None, Some(o)) => Some(ZoneSpec::Offset(o)),
                _ => None,
            });
            let value = match (base_zone, timezone) {
                (Some(from), Some(to)) => {
                    let zoned = zone::at_local(local, &from)?;
                    zone::at_instant(&zoned, &to)?
                }
                (Some(z), None) | (None, Some(z)) => zone::at_local(local, &z)?,
                (None, None) => zone::at_local(local, &ZoneSpec::Offset(0))?,
            };
            Ok(if kind == TemporalKind::Time {
                Value::Time(OffsetTime {
                    time: value.local.time(),
                    offset: value.offset,
                })
            } else {
                Value::DateTime(Box::new(value))
            })
        }
        _ => build(kind, local, ZoneSpec::Offset(0)),
    }
}
