//! `duration.between(a, b)`, `duration.inMonths`, `inDays`, `inSeconds`.
//!
//! When both values carry a zone, `b` is first expressed in `a`'s zone; a
//! local value against a zoned datetime is read in the datetime's zone; a
//! local value against a time with offset compares wall-clock times. Months count whole
//! calendar months from `a`; the rest is days and sub-day time. Two zoned
//! datetimes take the sub-month rest in absolute time (so a day with a
//! daylight-saving shift counts its real length).

use super::zone;
use crate::error::{type_mismatch, ExecError, ExecResult};
use nereid_values::temporal::chrono::{Datelike, Months, NaiveDate, NaiveDateTime, NaiveTime};
use nereid_values::temporal::{nanos_of_day, NANOS_PER_SECOND, SECONDS_PER_DAY};
use nereid_values::{Duration, Value, ZonedDateTime};

#[derive(Copy, Clone, PartialEq, Eq)]
pub enum Unit {
    All,
    Months,
    Days,
    Seconds,
}

const NANOS_PER_DAY: i128 = SECONDS_PER_DAY as i128 * NANOS_PER_SECOND as i128;

struct Side {
    date: Option<NaiveDate>,
    time: NaiveTime,
    offset: Option<i32>,
    zoned: Option<ZonedDateTime>,
}

fn side(v: &Value) -> ExecResult<Side> {
    Ok(match v {
        Value::Date(d) => Side {
            date: Some(*d),
            time: NaiveTime::MIN,
            offset: None,
            zoned: None,
        },
        Value::LocalTime(t) => Side {
            date: None,
            time: *t,
            offset: None,
            zoned: None,
        },
        Value::Time(t) => Side {
            date: None,
            time: t.time,
            offset: Some(t.offset),
            zoned: None,
        },
        Value::LocalDateTime(dt) => Side {
            date: Some(dt.date()),
            time: dt.time(),
            offset: None,
            zoned: None,
        },
        Value::DateTime(dt) => Side {
            date: Some(dt.local.date()),
            time: dt.local.time(),
            offset: Some(dt.offset),
            zoned: Some((**dt).clone()),
        },
        other => return Err(type_mismatch("a temporal value", other)),
    })
}

fn in_zone_of(local: &Side, zoned: &ZonedDateTime) -> ExecResult<Side> {
    let date = local.date.unwrap_or(zoned.local.date());
    let z = zone::at_local(date.and_time(local.time), &zone::of(zoned))?;
    Ok(Side {
        date: Some(z.local.date()),
        time: z.local.time(),
        offset: Some(z.offset),
        zoned: Some(z),
    })
}

fn overflow() -> ExecError {
    ExecError::Arithmetic("Duration out of range".to_string())
}

fn nanos_between(a: NaiveDateTime, b: NaiveDateTime) -> i128 {
    let d = b - a;
    i128::from(d.num_seconds()) * i128::from(NANOS_PER_SECOND) + i128::from(d.subsec_nanos())
}

/// Whole calendar months from `a` to `b` (towards zero).
fn months_between(a: NaiveDateTime, b: NaiveDateTime) -> i64 {
    let mut m = (i64::from(b.year()) * 12 + i64::from(b.month0()))
        - (i64::from(a.year()) * 12 + i64::from(a.month0()));
    let key = |x: NaiveDateTime| (x.day(), x.time());
    if m > 0 && key(b) < key(a) {
        m -= 1;
    } else if m < 0 && key(b) > key(a) {
        m += 1;
    }
    m
}

fn add_months(a: NaiveDateTime, m: i64) -> Option<NaiveDateTime> {
    let months = Months::new(u32::try_from(m.unsigned_abs()).ok()?);
    if m >= 0 {
        a.checked_add_months(months)
    } else {
        a.checked_sub_months(months)
    }
}

pub fn between(a: &Value, b: &Value, unit: Unit) -> ExecResult<Value> {
    if a.is_null() || b.is_null() {
        return Ok(Value::Null);
    }
    if matches!(a, Value::WideLocal(_)) || matches!(b, Value::WideLocal(_)) {
        return super::between_wide::between_wide(a, b, unit);
    }
    let (mut x, mut y) = (side(a)?, side(b)?);
    // A local value measured against a zoned datetime is read in that zone
    // (on that date, if it has none), so daylight-saving shifts count.
    if let (Some(z), None) = (&x.zoned, y.offset) {
        y = in_zone_of(&y, z)?;
    } else if let (None, Some(z)) = (x.offset, &y.zoned) {
        x = in_zone_of(&x, z)?;
    }
    // Express `b` in `a`'s zone when both have one.
    if let (Some(xo), Some(yo)) = (x.offset, y.offset) {
        match (&x.zoned, &y.zoned) {
            (Some(xz), Some(yz)) => {
                let moved = zone::at_instant(yz, &zone::of(xz))?;
                y.date = Some(moved.local.date());
                y.time = moved.local.time();
                y.zoned = Some(moved);
            }
            _ => {
                let shift = i128::from(xo - yo) * i128::from(NANOS_PER_SECOND);
                let base = y.date.unwrap_or(NaiveDate::MIN).and_time(y.time);
                let moved =
                    base + nereid_values::temporal::chrono::Duration::nanoseconds(shift as i64);
                if y.date.is_some() {
                    y.date = Some(moved.date());
                }
                y.time = moved.time();
            }
        }
    }
    let (months, days, nanos) = match (x.date, y.date) {
        (Some(xd), Some(yd)) => {
            let (start, end) = (xd.and_time(x.time), yd.and_time(y.time));
            let months = if unit == Unit::Days || unit == Unit::Seconds {
                0
            } else {
                months_between(start, end)
            };
            let mid = add_months(start, months).ok_or_else(overflow)?;
            let rest = match (&x.zoned, &y.zoned) {
                (Some(xz), Some(yz)) => {
                    let mid_z = zone::at_local(mid, &zone::of(xz))?;
                    let (ms, mn) = mid_z.epoch();
                    let (es, en) = yz.epoch();
                    (i128::from(es) - i128::from(ms)) * i128::from(NANOS_PER_SECOND)
                        + i128::from(en)
                        - i128::from(mn)
                }
                _ => nanos_between(mid, end),
            };
            (months, rest / NANOS_PER_DAY, rest % NANOS_PER_DAY)
        }
        _ => (
            0,
            0,
            i128::from(nanos_of_day(y.time)) - i128::from(nanos_of_day(x.time)),
        ),
    };
    let days = i64::try_from(days).map_err(|_| overflow())?;
    let d = match unit {
        Unit::All => Duration::new(months, days, nanos),
        Unit::Months => Duration::new(months, 0, 0),
        Unit::Days => Duration::new(0, days, 0),
        Unit::Seconds => Duration::new(0, 0, i128::from(days) * NANOS_PER_DAY + nanos),
    };
    d.map(Value::Duration).ok_or_else(overflow)
}
