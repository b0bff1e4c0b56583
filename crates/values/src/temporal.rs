//! Temporal values: the openCypher date, time, datetime and duration types.
//!
//! Wall-clock parts use `chrono`'s naive types; offsets are whole seconds
//! east of UTC. A [`ZonedDateTime`] keeps its local wall time, the offset in
//! force at that moment and, when it was built from an IANA name, the zone
//! id: the offset is always consistent with the zone (constructors resolve
//! it), so comparisons may use the offset alone.
//!
//! Display follows the notation the openCypher TCK (and Neo4j) use: seconds
//! are omitted when they and the fraction are zero, fractions show 3, 6 or 9
//! digits, offsets print as `Z` or `+HH:MM[:SS]`.

pub use chrono;
pub use chrono_tz;

use chrono::{Datelike, NaiveDate, NaiveDateTime, NaiveTime, Timelike};
use std::cmp::Ordering;
use std::fmt;

/// Nanoseconds per second.
pub const NANOS_PER_SECOND: i64 = 1_000_000_000;
/// Seconds in a day (durations treat days as 86,400 s only when converting).
pub const SECONDS_PER_DAY: i64 = 86_400;
/// The average Gregorian month in seconds (365.2425 days / 12), used to
/// spread fractional months into days and seconds.
pub const SECONDS_PER_MONTH: i64 = 2_629_746;

/// A time of day with a fixed UTC offset.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct OffsetTime {
    pub time: NaiveTime,
    /// Seconds east of UTC.
    pub offset: i32,
}

/// A date and time in a time zone: an offset and optionally an IANA zone id.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ZonedDateTime {
    /// Local wall-clock time.
    pub local: NaiveDateTime,
    /// Seconds east of UTC in force at `local`.
    pub offset: i32,
    /// The IANA zone id when the value was given one (`Europe/Stockholm`).
    pub zone: Option<String>,
}

/// A Cypher duration. Invariant: `0 <= nanos < 1_000_000_000`; the sign of
/// the sub-day part lives in `seconds`. Months, days and seconds are kept
/// apart because their lengths in absolute time vary.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Duration {
    pub months: i64,
    pub days: i64,
    pub seconds: i64,
    pub nanos: i32,
}

impl OffsetTime {
    /// Nanoseconds since midnight UTC (may be negative or exceed a day);
    /// used for equality and ordering.
    pub fn utc_nanos(&self) -> i64 {
        nanos_of_day(self.time) - i64::from(self.offset) * NANOS_PER_SECOND
    }
}

impl ZonedDateTime {
    /// The instant as (seconds, nanos) since the Unix epoch.
    pub fn epoch(&self) -> (i64, u32) {
        let utc = self.local.and_utc();
        (
            utc.timestamp() - i64::from(self.offset),
            utc.timestamp_subsec_nanos(),
        )
    }
}

impl Duration {
    /// Builds a duration from a total of nanoseconds for the sub-day part,
    /// normalising `nanos` into `0..1e9`.
    pub fn new(months: i64, days: i64, total_nanos: i128) -> Option<Duration> {
        let per = i128::from(NANOS_PER_SECOND);
        let seconds = i64::try_from(total_nanos.div_euclid(per)).ok()?;
        let nanos = total_nanos.rem_euclid(per) as i32;
        Some(Duration {
            months,
            days,
            seconds,
            nanos,
        })
    }

    /// The sub-day part in nanoseconds.
    pub fn total_nanos(&self) -> i128 {
        i128::from(self.seconds) * i128::from(NANOS_PER_SECOND) + i128::from(self.nanos)
    }

    /// An approximate length, used only to order durations in `ORDER BY`.
    fn approximate_nanos(&self) -> i128 {
        (i128::from(self.months) * i128::from(SECONDS_PER_MONTH)
            + i128::from(self.days) * i128::from(SECONDS_PER_DAY))
            * i128::from(NANOS_PER_SECOND)
            + self.total_nanos()
    }
}

/// Nanoseconds since midnight (leap-second nanos above 1e9 are clamped in).
pub fn nanos_of_day(t: NaiveTime) -> i64 {
    i64::from(t.num_seconds_from_midnight()) * NANOS_PER_SECOND + i64::from(t.nanosecond())
}

pub(crate) fn cmp_zoned(a: &ZonedDateTime, b: &ZonedDateTime) -> Ordering {
    a.epoch().cmp(&b.epoch())
}

pub(crate) fn cmp_duration(a: &Duration, b: &Duration) -> Ordering {
    a.approximate_nanos()
        .cmp(&b.approximate_nanos())
        .then_with(|| {
            (a.months, a.days, a.seconds, a.nanos).cmp(&(b.months, b.days, b.seconds, b.nanos))
        })
}

/// Writes a date as `YYYY-MM-DD` (years beyond four digits get a sign).
pub fn fmt_date(d: NaiveDate, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    let y = d.year();
    if (0..=9999).contains(&y) {
        write!(f, "{y:04}")?;
    } else if y > 9999 {
        write!(f, "+{y}")?;
    } else {
        write!(f, "-{:04}", -i64::from(y))?;
    }
    write!(f, "-{:02}-{:02}", d.month(), d.day())
}

/// Writes a time as `HH:MM[:SS[.fff[fff[fff]]]]`.
pub fn fmt_time(t: NaiveTime, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    write!(f, "{:02}:{:02}", t.hour(), t.minute())?;
    let nanos = t.nanosecond();
    if t.second() != 0 || nanos != 0 {
        write!(f, ":{:02}", t.second())?;
    }
    if nanos != 0 {
        if nanos.is_multiple_of(1_000_000) {
            write!(f, ".{:03}", nanos / 1_000_000)?;
        } else if nanos.is_multiple_of(1_000) {
            write!(f, ".{:06}", nanos / 1_000)?;
        } else {
            write!(f, ".{nanos:09}")?;
        }
    }
    Ok(())
}

/// Writes an offset as `Z` or `+HH:MM[:SS]`.
pub fn fmt_offset(offset: i32, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    if offset == 0 {
        return write!(f, "Z");
    }
    let sign = if offset < 0 { '-' } else { '+' };
    let abs = offset.unsigned_abs();
    write!(f, "{sign}{:02}:{:02}", abs / 3600, (abs / 60) % 60)?;
    if !abs.is_multiple_of(60) {
        write!(f, ":{:02}", abs % 60)?;
    }
    Ok(())
}

pub fn fmt_local_datetime(dt: NaiveDateTime, f: &mut fmt::Formatter<'_>) -> fmt::Result {
    fmt_date(dt.date(), f)?;
    write!(f, "T")?;
    fmt_time(dt.time(), f)
}

impl fmt::Display for OffsetTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_time(self.time, f)?;
        fmt_offset(self.offset, f)
    }
}

impl fmt::Display for ZonedDateTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt_local_datetime(self.local, f)?;
        fmt_offset(self.offset, f)?;
        if let Some(zone) = &self.zone {
            write!(f, "[{zone}]")?;
        }
        Ok(())
    }
}

/// ISO-8601 duration notation with signed components
/// (`P12Y5M-14DT16H`, `PT-1M-0.001S`, `PT0S`).
impl fmt::Display for Duration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "P")?;
        let (years, months) = (self.months / 12, self.months % 12);
        if years != 0 {
            write!(f, "{years}Y")?;
        }
        if months != 0 {
            write!(f, "{months}M")?;
        }
        if self.days != 0 {
            write!(f, "{}D", self.days)?;
        }
        let total = self.total_nanos();
        if total == 0 {
            if self.months == 0 && self.days == 0 {
                write!(f, "T0S")?;
            }
            return Ok(());
        }
        write!(f, "T")?;
        let per_second = i128::from(NANOS_PER_SECOND);
        let hours = total / (3600 * per_second);
        let minutes = (total % (3600 * per_second)) / (60 * per_second);
        let rest = total % (60 * per_second);
        if hours != 0 {
            write!(f, "{hours}H")?;
        }
        if minutes != 0 {
            write!(f, "{minutes}M")?;
        }
        if rest != 0 {
            let sign = if rest < 0 { "-" } else { "" };
            let abs = rest.unsigned_abs();
            let (secs, frac) = (abs / per_second as u128, abs % per_second as u128);
            write!(f, "{sign}{secs}")?;
            if frac != 0 {
                let digits = format!("{frac:09}");
                write!(f, ".{}", digits.trim_end_matches('0'))?;
            }
            write!(f, "S")?;
        }
        Ok(())
    }
}
