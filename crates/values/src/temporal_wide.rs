//! Dates and local date-times beyond chrono's years.
//!
//! openCypher allows years up to ±999,999,999; chrono stops near ±262,000.
//! The Gregorian calendar repeats exactly every 400 years (146,097 days, a
//! whole number of weeks, so weekdays and ISO weeks repeat too), so a far
//! value is kept as a wall clock inside the cycle starting at year 0 plus a
//! whole number of 400-year cycles. Every calendar rule (month lengths, leap
//! years, week dates) is then chrono's, applied to the in-cycle part.
//!
//! Invariant: a `WideLocal` value exists only for a year chrono cannot hold;
//! anything chrono can hold is a plain `Value::Date` / `Value::LocalDateTime`
//! (see [`WideLocal::into_value`]), so each instant has one representation
//! and derived equality is Cypher equality.

use crate::temporal::fmt_time;
use crate::Value;
use chrono::{Datelike, NaiveDate, NaiveDateTime, NaiveTime};
use std::fmt;

/// Years in one Gregorian cycle.
pub const YEARS_PER_CYCLE: i64 = 400;
/// Months in one Gregorian cycle.
pub const MONTHS_PER_CYCLE: i64 = 4_800;
/// Days in one Gregorian cycle.
pub const DAYS_PER_CYCLE: i64 = 146_097;

/// A date (`has_time == false`, time midnight) or local date-time whose
/// year is `local.year() + 400 * cycles`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct WideLocal {
    /// The wall clock within the cycle: `0 <= local.year() < 400`.
    pub local: NaiveDateTime,
    pub cycles: i64,
    pub has_time: bool,
}

impl WideLocal {
    /// Splits a chrono wall clock into (cycles, in-cycle wall clock).
    pub fn split(local: NaiveDateTime) -> (i64, NaiveDateTime) {
        let year = i64::from(local.year());
        let cycles = year.div_euclid(YEARS_PER_CYCLE);
        let shifted = shift_years(local, -cycles * YEARS_PER_CYCLE)
            .expect("a year in 0..400 is within chrono's range");
        (cycles, shifted)
    }

    /// `year-month-day` at `time`, for any `i64` year; `None` for an
    /// invalid day or a year beyond `i64` arithmetic.
    pub fn from_ymd(
        year: i64,
        month: u32,
        day: u32,
        time: NaiveTime,
    ) -> Option<(i64, NaiveDateTime)> {
        let cycles = year.div_euclid(YEARS_PER_CYCLE);
        let in_cycle = i32::try_from(year.rem_euclid(YEARS_PER_CYCLE)).ok()?;
        let date = NaiveDate::from_ymd_opt(in_cycle, month, day)?;
        Some((cycles, date.and_time(time)))
    }

    /// The value for `cycles` cycles after the in-cycle wall clock `local`
    /// (which may lie in any year chrono holds): a plain date / local
    /// date-time when chrono can hold it, a wide one otherwise.
    pub fn into_value(local: NaiveDateTime, cycles: i64, has_time: bool) -> Option<Value> {
        let (extra, local) = WideLocal::split(local);
        let cycles = cycles.checked_add(extra)?;
        let years = cycles.checked_mul(YEARS_PER_CYCLE)?;
        if let Some(plain) = shift_years(local, years) {
            return Some(if has_time {
                Value::LocalDateTime(plain)
            } else {
                Value::Date(plain.date())
            });
        }
        Some(Value::WideLocal(Box::new(WideLocal {
            local,
            cycles,
            has_time,
        })))
    }

    /// The year.
    pub fn year(&self) -> i64 {
        i64::from(self.local.year()) + YEARS_PER_CYCLE * self.cycles
    }

    /// (cycles, in-cycle wall clock) of a date, local date-time or wide
    /// value; whether it has a time; `None` for anything else.
    pub fn parts_of(value: &Value) -> Option<(i64, NaiveDateTime, bool)> {
        match value {
            Value::Date(d) => {
                let (cycles, local) = WideLocal::split(d.and_time(NaiveTime::MIN));
                Some((cycles, local, false))
            }
            Value::LocalDateTime(dt) => {
                let (cycles, local) = WideLocal::split(*dt);
                Some((cycles, local, true))
            }
            Value::WideLocal(w) => Some((w.cycles, w.local, w.has_time)),
            _ => None,
        }
    }

    /// Days since 1970-01-01 of the date part.
    pub fn epoch_days(&self) -> i64 {
        let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).expect("valid date");
        (self.local.date() - epoch).num_days() + self.cycles * DAYS_PER_CYCLE
    }
}

/// `local` moved by a whole number of 400-year cycles' worth of years
/// (the day and month stay valid because the calendar repeats).
fn shift_years(local: NaiveDateTime, years: i64) -> Option<NaiveDateTime> {
    let year = i32::try_from(i64::from(local.year()).checked_add(years)?).ok()?;
    local.with_year(year)
}

impl fmt::Display for WideLocal {
    /// The TCK's notation: `+999999999-12-31`, `-999999999-01-01T00:00`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let year = self.year();
        if year > 9999 {
            write!(f, "+{year}")?;
        } else {
            write!(f, "-{:04}", year.unsigned_abs())?;
        }
        write!(f, "-{:02}-{:02}", self.local.month(), self.local.day())?;
        if self.has_time {
            write!(f, "T")?;
            fmt_time(self.local.time(), f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn midnight() -> NaiveTime {
        NaiveTime::MIN
    }

    #[test]
    fn far_years_stay_wide_and_near_years_plain() {
        let (c, local) = WideLocal::from_ymd(999_999_999, 12, 31, midnight()).unwrap();
        let far = WideLocal::into_value(local, c, false).unwrap();
        assert_eq!(far.to_string(), "'+999999999-12-31'");
        let (c, local) = WideLocal::from_ymd(2024, 2, 29, midnight()).unwrap();
        let near = WideLocal::into_value(local, c, false).unwrap();
        assert_eq!(
            near,
            Value::Date(NaiveDate::from_ymd_opt(2024, 2, 29).unwrap())
        );
    }

    #[test]
    fn leap_days_follow_the_cycle() {
        // 999,999,600 is a multiple of 400: a leap year like year 0; 999,999,900 is not.
        assert!(WideLocal::from_ymd(999_999_600, 2, 29, midnight()).is_some());
        assert!(WideLocal::from_ymd(999_999_900, 2, 29, midnight()).is_none());
        assert!(WideLocal::from_ymd(-999_999_999, 1, 1, midnight()).is_some());
    }

    #[test]
    fn epoch_days_count_whole_cycles() {
        let (c, local) = WideLocal::from_ymd(2370, 1, 1, midnight()).unwrap();
        let w = WideLocal {
            local,
            cycles: c,
            has_time: false,
        };
        let plain = NaiveDate::from_ymd_opt(2370, 1, 1).unwrap();
        let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).unwrap();
        assert_eq!(w.epoch_days(), (plain - epoch).num_days());
    }
}
