//! Accumulates duration components (`years`, `days`, `seconds`, ...) into a
//! [`Duration`]. Fractions cascade downwards: a fractional month becomes
//! days and seconds by the average month length, a fractional day becomes
//! seconds; sub-day units never roll up into days.

use nereid_values::temporal::{NANOS_PER_SECOND, SECONDS_PER_DAY, SECONDS_PER_MONTH};
use nereid_values::Duration;

#[derive(Default)]
pub struct DurationBuilder {
    months: i64,
    days: i64,
    nanos: i128,
}

const NANOS_PER_DAY: i128 = SECONDS_PER_DAY as i128 * NANOS_PER_SECOND as i128;

/// Nanoseconds per unit for the sub-day units; `None` for other names.
fn sub_day_unit(unit: &str) -> Option<i128> {
    Some(match unit {
        "hours" => 3_600 * NANOS_PER_SECOND as i128,
        "minutes" => 60 * NANOS_PER_SECOND as i128,
        "seconds" => NANOS_PER_SECOND as i128,
        "milliseconds" => 1_000_000,
        "microseconds" => 1_000,
        "nanoseconds" => 1,
        _ => return None,
    })
}

/// True for the keys a duration map may hold.
pub fn is_duration_key(key: &str) -> bool {
    matches!(key, "years" | "quarters" | "months" | "weeks" | "days") || sub_day_unit(key).is_some()
}

impl DurationBuilder {
    /// Adds `value` of `unit`; `fractional` says whether it came as a float.
    pub fn add(&mut self, unit: &str, value: f64, fractional: bool) -> Option<()> {
        if !value.is_finite() {
            return None;
        }
        if !fractional {
            return self.add_int(unit, value as i64);
        }
        match unit {
            "years" => self.add_months_f(value * 12.0),
            "quarters" => self.add_months_f(value * 3.0),
            "months" => self.add_months_f(value),
            "weeks" => self.add_days_f(value * 7.0),
            "days" => self.add_days_f(value),
            other => {
                let per = sub_day_unit(other)?;
                self.nanos += (value * per as f64).round() as i128;
                Some(())
            }
        }
    }

    /// Adds an integral amount of `unit`.
    pub fn add_int(&mut self, unit: &str, value: i64) -> Option<()> {
        match unit {
            "years" => self.months = self.months.checked_add(value.checked_mul(12)?)?,
            "quarters" => self.months = self.months.checked_add(value.checked_mul(3)?)?,
            "months" => self.months = self.months.checked_add(value)?,
            "weeks" => self.days = self.days.checked_add(value.checked_mul(7)?)?,
            "days" => self.days = self.days.checked_add(value)?,
            other => self.nanos += i128::from(value) * sub_day_unit(other)?,
        }
        Some(())
    }

    fn add_months_f(&mut self, months: f64) -> Option<()> {
        let whole = months.trunc();
        self.months = self.months.checked_add(whole as i64)?;
        let rest = ((months - whole) * (SECONDS_PER_MONTH as f64) * NANOS_PER_SECOND as f64).round()
            as i128;
        self.days = self
            .days
            .checked_add(i64::try_from(rest / NANOS_PER_DAY).ok()?)?;
        self.nanos += rest % NANOS_PER_DAY;
        Some(())
    }

    fn add_days_f(&mut self, days: f64) -> Option<()> {
        let whole = days.trunc();
        self.days = self.days.checked_add(whole as i64)?;
        self.nanos += ((days - whole) * NANOS_PER_DAY as f64).round() as i128;
        Some(())
    }

    pub fn finish(self) -> Option<Duration> {
        Duration::new(self.months, self.days, self.nanos)
    }
}
