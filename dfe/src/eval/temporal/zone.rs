//! Time zone resolution: IANA names through `chrono-tz`, offsets as given.

use super::parse::{self, ZoneSpec};
use crate::error::{ExecError, ExecResult};
use nereid_values::temporal::chrono::{NaiveDateTime, Offset, TimeZone, Utc};
use nereid_values::temporal::chrono_tz::Tz;
use nereid_values::ZonedDateTime;

/// Reads a `timezone` value (`'+01:00'`, `'Z'`, `'Europe/Stockholm'`).
pub fn spec_from_text(text: &str) -> ExecResult<ZoneSpec> {
    if let Some(o) = parse::offset(text) {
        return Ok(ZoneSpec::Offset(o));
    }
    named(text)?;
    Ok(ZoneSpec::Named(text.to_string(), None))
}

fn named(name: &str) -> ExecResult<Tz> {
    name.parse::<Tz>()
        .map_err(|_| ExecError::Argument(format!("Invalid value for TimeZone: Text '{name}'")))
}

/// The datetime with wall time `local` in `zone`. For a named zone the
/// offset is the one in force at `local` (the earlier one in an overlap,
/// the later wall time in a gap).
pub fn at_local(local: NaiveDateTime, zone: &ZoneSpec) -> ExecResult<ZonedDateTime> {
    match zone {
        ZoneSpec::Offset(o) => Ok(ZonedDateTime {
            local,
            offset: *o,
            zone: None,
        }),
        ZoneSpec::Named(name, stated) => {
            let tz = named(name)?;
            let resolved = tz.from_local_datetime(&local);
            let dt = match (resolved.earliest(), stated) {
                (Some(_), Some(o)) => {
                    // A stated offset picks between the two in an overlap.
                    let candidates = [resolved.earliest(), resolved.latest()];
                    candidates
                        .into_iter()
                        .flatten()
                        .find(|d| d.offset().fix().local_minus_utc() == *o)
                        .or(resolved.earliest())
                }
                (Some(d), None) => Some(d),
                (None, _) => tz
                    .from_local_datetime(
                        &(local + nereid_values::temporal::chrono::Duration::hours(1)),
                    )
                    .earliest(),
            };
            let dt = dt.ok_or_else(|| {
                ExecError::Argument(format!("Invalid local time {local} in {name}"))
            })?;
            Ok(ZonedDateTime {
                local: dt.naive_local(),
                offset: dt.offset().fix().local_minus_utc(),
                zone: Some(name.clone()),
            })
        }
    }
}

/// The same instant as `dt`, expressed in `zone`.
pub fn at_instant(dt: &ZonedDateTime, zone: &ZoneSpec) -> ExecResult<ZonedDateTime> {
    let (secs, nanos) = dt.epoch();
    from_epoch(secs, nanos, zone)
}

/// The instant `secs`.`nanos` after the Unix epoch in `zone`.
pub fn from_epoch(secs: i64, nanos: u32, zone: &ZoneSpec) -> ExecResult<ZonedDateTime> {
    let utc = Utc
        .timestamp_opt(secs, nanos)
        .single()
        .ok_or_else(|| ExecError::Argument("Instant out of range".to_string()))?;
    match zone {
        ZoneSpec::Offset(o) => Ok(ZonedDateTime {
            local: utc.naive_utc()
                + nereid_values::temporal::chrono::Duration::seconds(i64::from(*o)),
            offset: *o,
            zone: None,
        }),
        ZoneSpec::Named(name, _) => {
            let tz = named(name)?;
            let dt = utc.with_timezone(&tz);
            Ok(ZonedDateTime {
                local: dt.naive_local(),
                offset: dt.offset().fix().local_minus_utc(),
                zone: Some(name.clone()),
            })
        }
    }
}

/// The zone of an existing datetime, to carry it over to a new value.
pub fn of(dt: &ZonedDateTime) -> ZoneSpec {
    match &dt.zone {
        Some(name) => ZoneSpec::Named(name.clone(), None),
        None => ZoneSpec::Offset(dt.offset),
    }
}

/// The offset a zone has at `local` (for `time` values given a named zone).
pub fn offset_at(zone: &ZoneSpec, local: NaiveDateTime) -> ExecResult<i32> {
    Ok(at_local(local, zone)?.offset)
}
