//! `duration.between` & co. when a side lies in a year chrono cannot hold
//! (a `Value::WideLocal`, up to ±999,999,999). Both sides are then local
//! dates or date-times, kept as whole 400-year cycles plus an in-cycle wall
//! clock (`nereid_values::temporal_wide`); the calendar repeats every cycle,
//! so month lengths come from chrono on the in-cycle year and whole cycles
//! add exactly 4,800 months or 146,097 days. The result follows the same
//! rules as `between.rs`: whole calendar months from `a` (towards zero),
//! then days and sub-day time.

use super::between::Unit;
use crate::error::{type_mismatch, ExecError, ExecResult};
use nereid_values::temporal::chrono::{Datelike, NaiveDate, NaiveDateTime};
use nereid_values::temporal::{NANOS_PER_SECOND, SECONDS_PER_DAY};
use nereid_values::temporal_wide::{DAYS_PER_CYCLE, YEARS_PER_CYCLE};
use nereid_values::{Duration, Value, WideLocal};

const NANOS_PER_DAY: i128 = SECONDS_PER_DAY as i128 * NANOS_PER_SECOND as i128;

fn overflow() -> ExecError {
    ExecError::Arithmetic("Duration out of range".to_string())
}

/// A side: whole cycles and the in-cycle wall clock.
fn side(v: &Value) -> ExecResult<(i64, NaiveDateTime)> {
    WideLocal::parts_of(v)
        .map(|(cycles, local, _)| (cycles, local))
        .ok_or_else(|| type_mismatch("a Date or LocalDateTime", v))
}

/// The absolute month number (year * 12 + month0) of a side.
pub(super) fn month_number(cycles: i64, local: NaiveDateTime) -> i128 {
    let year = i128::from(local.year()) + i128::from(cycles) * i128::from(YEARS_PER_CYCLE);
    year * 12 + i128::from(local.month0())
}

/// Nanoseconds from `a` to `b`.
fn nanos_between(a: (i64, NaiveDateTime), b: (i64, NaiveDateTime)) -> i128 {
    let within = b.1 - a.1;
    let cycle_days = i128::from(b.0 - a.0) * i128::from(DAYS_PER_CYCLE);
    cycle_days * NANOS_PER_DAY
        + i128::from(within.num_seconds()) * i128::from(NANOS_PER_SECOND)
        + i128::from(within.subsec_nanos())
}

/// `a` moved to absolute month number `month`, its day clamped to that
/// month's length (as adding months to a date does).
pub(super) fn at_month(a: NaiveDateTime, month: i128) -> ExecResult<(i64, NaiveDateTime)> {
    let year = month.div_euclid(12);
    let month0 = u32::try_from(month.rem_euclid(12)).map_err(|_| overflow())?;
    let cycles =
        i64::try_from(year.div_euclid(i128::from(YEARS_PER_CYCLE))).map_err(|_| overflow())?;
    let in_cycle =
        i32::try_from(year.rem_euclid(i128::from(YEARS_PER_CYCLE))).map_err(|_| overflow())?;
    let date = (a.day().min(28)..=a.day())
        .rev()
        .find_map(|day| NaiveDate::from_ymd_opt(in_cycle, month0 + 1, day))
        .ok_or_else(overflow)?;
    Ok((cycles, date.and_time(a.time())))
}

pub fn between_wide(a: &Value, b: &Value, unit: Unit) -> ExecResult<Value> {
    let (x, y) = (side(a)?, side(b)?);
    let months = if unit == Unit::Days || unit == Unit::Seconds {
        0
    } else {
        let mut m = month_number(y.0, y.1) - month_number(x.0, x.1);
        let key = |v: NaiveDateTime| (v.day(), v.time());
        if m > 0 && key(y.1) < key(x.1) {
            m -= 1;
        } else if m < 0 && key(y.1) > key(x.1) {
            m += 1;
        }
        m
    };
    let mid = at_month(x.1, month_number(x.0, x.1) + months)?;
    let rest = nanos_between(mid, y);
    let months = i64::try_from(months).map_err(|_| overflow())?;
    let days = i64::try_from(rest / NANOS_PER_DAY).map_err(|_| overflow())?;
    let nanos = rest % NANOS_PER_DAY;
    let d = match unit {
        Unit::All => Duration::new(months, days, nanos),
        Unit::Months => Duration::new(months, 0, 0),
        Unit::Days => Duration::new(0, days, 0),
        Unit::Seconds => Duration::new(0, 0, rest),
    };
    d.map(Value::Duration).ok_or_else(overflow)
}
