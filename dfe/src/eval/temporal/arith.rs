//! Arithmetic with durations: `temporal ± duration`, `duration ± duration`,
//! `duration * number`, `duration / number`.
//!
//! Adding a duration to an instant adds months first (clamping the day to
//! the month's end), then days, then the sub-day part. A date takes only
//! the whole days of the sub-day part; times wrap around midnight.

use super::decimal::{Decimal, Rounding};
use super::duration_build::DurationBuilder;
use super::zone;
use crate::error::{ExecError, ExecResult};
use nereid_values::temporal::chrono::{self, Months, NaiveDate, NaiveDateTime, NaiveTime};
use nereid_values::temporal::{nanos_of_day, NANOS_PER_SECOND, SECONDS_PER_DAY};
use nereid_values::{Duration, OffsetTime, Value};

fn out_of_range() -> ExecError {
    ExecError::Arithmetic("Temporal value out of range".to_string())
}

/// `a + b` when either side is temporal; `None` when neither applies.
pub fn add(a: &Value, b: &Value) -> Option<ExecResult<Value>> {
    match (a, b) {
        (Value::Duration(x), Value::Duration(y)) => Some(
            (|| {
                Duration::new(
                    x.months.checked_add(y.months)?,
                    x.days.checked_add(y.days)?,
                    x.total_nanos() + y.total_nanos(),
                )
            })()
            .map(Value::Duration)
            .ok_or_else(out_of_range),
        ),
        (Value::Duration(d), t) | (t, Value::Duration(d)) if t.is_temporal() => Some(shift(t, d)),
        _ => None,
    }
}

/// `a - b` when either side is temporal.
pub fn subtract(a: &Value, b: &Value) -> Option<ExecResult<Value>> {
    match (a, b) {
        (_, Value::Duration(d)) if a.is_temporal() => match negate(d) {
            Some(n) => add(a, &Value::Duration(n)),
            None => Some(Err(out_of_range())),
        },
        _ => None,
    }
}

fn negate(d: &Duration) -> Option<Duration> {
    Duration::new(
        d.months.checked_neg()?,
        d.days.checked_neg()?,
        -d.total_nanos(),
    )
}

/// `duration * factor` (or `/ divisor` when `divide`), in integers: a
/// float factor is taken as the decimal it prints as, and a division
/// computes each component's quotient to [`QUOTIENT_DIGITS`] places.
pub fn multiply_duration(d: &Duration, factor: &Value, divide: bool) -> Option<ExecResult<Value>> {
    let factor = match factor {
        Value::Int(i) => Decimal::from_int(*i),
        Value::Float(x) => match Decimal::from_f64(*x) {
            Some(f) => f,
            None => return Some(Err(out_of_range())),
        },
        _ => return None,
    };
    let mut builder = DurationBuilder::default();
    let ok = (|| {
        let (months, days, nanos) = if divide {
            (
                Decimal::from_int(d.months).div(factor, QUOTIENT_DIGITS)?,
                Decimal::from_int(d.days).div(factor, QUOTIENT_DIGITS)?,
                Decimal::from_i128(d.total_nanos()).div(factor, QUOTIENT_DIGITS)?,
            )
        } else {
            (
                Decimal::from_int(d.months).mul(factor)?,
                Decimal::from_int(d.days).mul(factor)?,
                Decimal::from_i128(d.total_nanos()).mul(factor)?,
            )
        };
        builder.add("months", months)?;
        builder.add("days", days)?;
        // Sub-nanosecond remainders are cut off, never rounded up.
        let nanos = nanos.times(1, Rounding::Truncate)?;
        builder.add_int("nanoseconds", i64::try_from(nanos).ok()?)
    })();
    Some(
        ok.and_then(|()| builder.finish())
            .map(Value::Duration)
            .ok_or_else(out_of_range),
    )
}

/// Decimal places of a duration component divided by a number.
const QUOTIENT_DIGITS: u32 = 18;

fn add_date(date: NaiveDate, months: i64, days: i64) -> Option<NaiveDate> {
    let m = Months::new(u32::try_from(months.unsigned_abs()).ok()?);
    let date = if months >= 0 {
        date.checked_add_months(m)?
    } else {
        date.checked_sub_months(m)?
    };
    date.checked_add_signed(chrono::Duration::try_days(days)?)
}

fn add_nanos(dt: NaiveDateTime, nanos: i128) -> Option<NaiveDateTime> {
    let per = i128::from(NANOS_PER_SECOND);
    let secs = chrono::Duration::try_seconds(i64::try_from(nanos.div_euclid(per)).ok()?)?;
    let rest = chrono::Duration::nanoseconds(nanos.rem_euclid(per) as i64);
    dt.checked_add_signed(secs)?.checked_add_signed(rest)
}

fn wrap_time(t: NaiveTime, nanos: i128) -> Option<NaiveTime> {
    let day = i128::from(SECONDS_PER_DAY) * i128::from(NANOS_PER_SECOND);
    let n = (i128::from(nanos_of_day(t)) + nanos).rem_euclid(day);
    let per = i128::from(NANOS_PER_SECOND);
    NaiveTime::from_num_seconds_from_midnight_opt((n / per) as u32, (n % per) as u32)
}

fn shift(t: &Value, d: &Duration) -> ExecResult<Value> {
    let nanos = d.total_nanos();
    let whole_days =
        i64::try_from(nanos / (i128::from(SECONDS_PER_DAY) * i128::from(NANOS_PER_SECOND))).ok();
    let result = match t {
        Value::Date(date) => whole_days
            .and_then(|w| add_date(*date, d.months, d.days.checked_add(w)?))
            .map(Value::Date),
        Value::LocalTime(time) => wrap_time(*time, nanos).map(Value::LocalTime),
        Value::Time(time) => wrap_time(time.time, nanos).map(|t2| {
            Value::Time(OffsetTime {
                time: t2,
                offset: time.offset,
            })
        }),
        Value::LocalDateTime(dt) => add_date(dt.date(), d.months, d.days)
            .and_then(|date| add_nanos(date.and_time(dt.time()), nanos))
            .map(Value::LocalDateTime),
        Value::DateTime(dt) => {
            let Some(date) = add_date(dt.local.date(), d.months, d.days) else {
                return Err(out_of_range());
            };
            let zone_spec = zone::of(dt);
            let moved = zone::at_local(date.and_time(dt.local.time()), &zone_spec)?;
            let (secs, sub) = moved.epoch();
            let total = i128::from(secs) * i128::from(NANOS_PER_SECOND) + i128::from(sub) + nanos;
            let per = i128::from(NANOS_PER_SECOND);
            let Ok(new_secs) = i64::try_from(total.div_euclid(per)) else {
                return Err(out_of_range());
            };
            let shifted = zone::from_epoch(new_secs, total.rem_euclid(per) as u32, &zone_spec)?;
            Some(Value::DateTime(Box::new(shifted)))
        }
        _ => None,
    };
    match result {
        Some(value) => Ok(value),
        // Beyond chrono's years (or starting there): the cycle arithmetic.
        None => super::arith_wide::shift_wide(t, d).unwrap_or_else(|| Err(out_of_range())),
    }
}
