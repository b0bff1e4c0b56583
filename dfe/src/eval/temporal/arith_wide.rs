//! `temporal ± duration` for local dates and date-times whose result (or
//! operand) lies in a year chrono cannot hold, up to ±999,999,999: the same
//! rule as `arith.rs` (months first, the day clamped to the month's end,
//! then days, then the sub-day part; a date takes only whole days), done on
//! whole 400-year cycles plus an in-cycle wall clock
//! (`nereid_values::temporal_wide`).

use super::between_wide::{at_month, month_number};
use crate::error::{ExecError, ExecResult};
use nereid_values::temporal::chrono::{self, Datelike, NaiveDate, NaiveDateTime};
use nereid_values::temporal::{NANOS_PER_SECOND, SECONDS_PER_DAY};
use nereid_values::temporal_wide::{DAYS_PER_CYCLE, YEARS_PER_CYCLE};
use nereid_values::{Duration, Value, WideLocal};

const NANOS_PER_DAY: i128 = SECONDS_PER_DAY as i128 * NANOS_PER_SECOND as i128;
const NANOS_PER_CYCLE: i128 = DAYS_PER_CYCLE as i128 * NANOS_PER_DAY;
/// The largest year openCypher allows (either sign).
const MAX_YEAR: i64 = 999_999_999;

fn out_of_range() -> ExecError {
    ExecError::Arithmetic("Temporal value out of range".to_string())
}

/// `t + d` for a Date, LocalDateTime or wide value; `None` for other kinds.
pub fn shift_wide(t: &Value, d: &Duration) -> Option<ExecResult<Value>> {
    let (cycles, local, has_time) = WideLocal::parts_of(t)?;
    Some(shifted(cycles, local, has_time, d))
}

fn shifted(cycles: i64, local: NaiveDateTime, has_time: bool, d: &Duration) -> ExecResult<Value> {
    let target = month_number(cycles, local) + i128::from(d.months);
    let (cycles, local) = at_month(local, target).map_err(|_| out_of_range())?;
    let sub_day = if has_time {
        d.total_nanos()
    } else {
        d.total_nanos() / NANOS_PER_DAY * NANOS_PER_DAY
    };
    let cycle_start = NaiveDate::from_ymd_opt(0, 1, 1)
        .and_then(|date| date.and_hms_opt(0, 0, 0))
        .ok_or_else(out_of_range)?;
    // A cycle holds more nanoseconds than an i64: count seconds and the rest.
    let within = local - cycle_start;
    let within = i128::from(within.num_seconds()) * i128::from(NANOS_PER_SECOND)
        + i128::from(within.subsec_nanos());
    let total = i128::from(cycles) * NANOS_PER_CYCLE
        + within
        + i128::from(d.days) * NANOS_PER_DAY
        + sub_day;
    let new_cycles =
        i64::try_from(total.div_euclid(NANOS_PER_CYCLE)).map_err(|_| out_of_range())?;
    let rest = total.rem_euclid(NANOS_PER_CYCLE);
    let per = i128::from(NANOS_PER_SECOND);
    let local = cycle_start
        + chrono::Duration::try_seconds(i64::try_from(rest / per).map_err(|_| out_of_range())?)
            .ok_or_else(out_of_range)?
        + chrono::Duration::nanoseconds((rest % per) as i64);
    let year = i64::from(local.year()) + new_cycles * YEARS_PER_CYCLE;
    if year.abs() > MAX_YEAR {
        return Err(out_of_range());
    }
    WideLocal::into_value(local, new_cycles, has_time).ok_or_else(out_of_range)
}
