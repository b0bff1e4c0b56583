//! The temporal functions (`date(...)`, `datetime.truncate(...)`,
//! `duration.between(...)`, ...): what each name resolves to. The executor
//! implements them; their names and argument counts are in the catalogue.

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
