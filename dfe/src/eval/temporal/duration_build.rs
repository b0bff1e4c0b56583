//! Accumulates duration components (`years`, `days`, `seconds`, ...) into a
//! [`Duration`]. Fractions cascade downwards: a fractional month becomes
//! days and seconds by the average month length, a fractional day becomes
//! seconds; sub-day units never roll up into days.

use nereid_values::temporal::{NANOS_PER_SECOND, SECONDS_PER_DAY, SECONDS_PER_MONTH};
use nereid_values::Duration;

use super::decimal::{Decimal, Rounding};

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
    /// Adds `value` of `unit`, exactly: a fractional month becomes days and
    /// nanoseconds by the average month, a fractional day nanoseconds, and
    /// a sub-day fraction is rounded to the nearest nanosecond.
    pub fn add(&mut self, unit: &str, value: Decimal) -> Option<()> {
        if value.is_integer() {
            return self.add_int(unit, value.trunc()?);
        }
        match unit {
            "years" => self.add_months(value.mul(Decimal::from_int(12))?),
            "quarters" => self.add_months(value.mul(Decimal::from_int(3))?),
            "months" => self.add_months(value),
            "weeks" => self.add_days(value.mul(Decimal::from_int(7))?),
            "days" => self.add_days(value),
            other => {
                let per = sub_day_unit(other)?;
                self.nanos = self
                    .nanos
                    .checked_add(value.times(per, Rounding::Nearest)?)?;
                Some(())
            }
        }
    }

    /// Adds a float amount of `unit` (a map value, a product), read as the
    /// decimal it prints as.
    pub fn add_f64(&mut self, unit: &str, value: f64) -> Option<()> {
        self.add(unit, Decimal::from_f64(value)?)
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

    fn add_months(&mut self, months: Decimal) -> Option<()> {
        self.months = self.months.checked_add(months.trunc()?)?;
        let per_month = i128::from(SECONDS_PER_MONTH) * i128::from(NANOS_PER_SECOND);
        let rest = months.fraction().times(per_month, Rounding::Nearest)?;
        self.days = self
            .days
            .checked_add(i64::try_from(rest / NANOS_PER_DAY).ok()?)?;
        self.nanos += rest % NANOS_PER_DAY;
        Some(())
    }

    fn add_days(&mut self, days: Decimal) -> Option<()> {
        self.days = self.days.checked_add(days.trunc()?)?;
        self.nanos += days.fraction().times(NANOS_PER_DAY, Rounding::Nearest)?;
        Some(())
    }

    pub fn finish(self) -> Option<Duration> {
        Duration::new(self.months, self.days, self.nanos)
    }
}
