//! Names of the temporal functions (`date(...)`, `datetime.truncate(...)`,
//! `duration.between(...)`, ...). The executor implements them; the planner
//! only resolves names and checks argument counts.

/// The five temporal instant types.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TemporalKind {
    Date,
    LocalTime,
    Time,
    LocalDateTime,
    DateTime,
}

/// A temporal function.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TemporalFunction {
    /// `date(x)`, `datetime()`, ...: from a map, a string, another temporal, or now.
    Construct(TemporalKind),
    /// `date.truncate(unit, x [, map])`.
    Truncate(TemporalKind),
    /// `date.transaction()`, `.statement()`, `.realtime()`: the current time.
    Now(TemporalKind),
    /// `datetime.fromEpoch(seconds, nanos)`.
    FromEpoch,
    /// `datetime.fromEpochMillis(millis)`.
    FromEpochMillis,
    /// `duration(x)` from a map or an ISO-8601 string.
    Duration,
    DurationBetween,
    DurationInMonths,
    DurationInDays,
    DurationInSeconds,
}

impl TemporalFunction {
    /// Resolves a lower-cased function name.
    pub fn from_lower_name(name: &str) -> Option<TemporalFunction> {
        use TemporalFunction as F;
        let (base, member) = match name.split_once('.') {
            Some((b, m)) => (b, Some(m)),
            None => (name, None),
        };
        if base == "duration" {
            return Some(match member {
                None => F::Duration,
                Some("between") => F::DurationBetween,
                Some("inmonths") => F::DurationInMonths,
                Some("indays") => F::DurationInDays,
                Some("inseconds") => F::DurationInSeconds,
                _ => return None,
            });
        }
        let kind = match base {
            "date" => TemporalKind::Date,
            "localtime" => TemporalKind::LocalTime,
            "time" => TemporalKind::Time,
            "localdatetime" => TemporalKind::LocalDateTime,
            "datetime" => TemporalKind::DateTime,
            _ => return None,
        };
        Some(match member {
            None => F::Construct(kind),
            Some("truncate") => F::Truncate(kind),
            Some("transaction" | "statement" | "realtime") => F::Now(kind),
            Some("fromepoch") if kind == TemporalKind::DateTime => F::FromEpoch,
            Some("fromepochmillis") if kind == TemporalKind::DateTime => F::FromEpochMillis,
            _ => return None,
        })
    }

    /// Allowed argument counts (inclusive).
    pub fn arity(self) -> (usize, usize) {
        use TemporalFunction as F;
        match self {
            F::Construct(_) | F::Now(_) => (0, 1),
            F::Truncate(_) => (2, 3),
            F::FromEpoch
            | F::DurationBetween
            | F::DurationInMonths
            | F::DurationInDays
            | F::DurationInSeconds => (2, 2),
            F::FromEpochMillis | F::Duration => (1, 1),
        }
    }
}
