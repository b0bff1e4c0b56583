//! Temporal values on the wire: the Bolt Date, Time, LocalTime, DateTime,
//! DateTimeZoneId, LocalDateTime and Duration structures, both ways.
//!
//! DateTime structures come in two shapes: Bolt 5 (and 4.3/4.4 with the
//! `utc` patch) send seconds since the UTC epoch (tags `I`/`i`); older
//! versions send the local wall time as epoch seconds (`F`/`f`). Parameters
//! are accepted in either shape.

use crate::encode::{write_int, write_string, write_struct_header};
use crate::marker::tag;
use crate::{EncodeError, PackValue, ParamError};
use nereid_values::temporal::chrono::{
    DateTime, NaiveDate, NaiveDateTime, NaiveTime, Offset, TimeZone, Timelike,
};
use nereid_values::temporal::chrono_tz::Tz;
use nereid_values::temporal::{nanos_of_day, NANOS_PER_SECOND};
use nereid_values::{Duration, OffsetTime, Value, ZonedDateTime};

fn epoch_date() -> NaiveDate {
    NaiveDate::from_ymd_opt(1970, 1, 1).unwrap_or_default()
}

/// Writes a temporal `value` as its Bolt structure; `Ok(false)` when the
/// value is not temporal.
pub fn write(value: &Value, utc_datetime: bool, out: &mut Vec<u8>) -> Result<bool, EncodeError> {
    match value {
        Value::Date(d) => {
            write_struct_header(out, tag::DATE, 1)?;
            write_int(out, (*d - epoch_date()).num_days());
        }
        Value::LocalTime(t) => {
            write_struct_header(out, tag::LOCAL_TIME, 1)?;
            write_int(out, nanos_of_day(*t));
        }
        Value::Time(t) => {
            write_struct_header(out, tag::TIME, 2)?;
            write_int(out, nanos_of_day(t.time));
            write_int(out, i64::from(t.offset));
        }
        Value::LocalDateTime(dt) => {
            let utc = dt.and_utc();
            write_struct_header(out, tag::LOCAL_DATE_TIME, 2)?;
            write_int(out, utc.timestamp());
            write_int(out, i64::from(utc.timestamp_subsec_nanos()));
        }
        Value::DateTime(dt) => {
            let local = dt.local.and_utc();
            let seconds = if utc_datetime {
                local.timestamp() - i64::from(dt.offset)
            } else {
                local.timestamp()
            };
            let struct_tag = match (&dt.zone, utc_datetime) {
                (None, true) => tag::DATE_TIME,
                (None, false) => tag::LEGACY_DATE_TIME,
                (Some(_), true) => tag::DATE_TIME_ZONE_ID,
                (Some(_), false) => tag::LEGACY_DATE_TIME_ZONE_ID,
            };
            write_struct_header(out, struct_tag, 3)?;
            write_int(out, seconds);
            write_int(out, i64::from(local.timestamp_subsec_nanos()));
            match &dt.zone {
                Some(zone) => write_string(out, zone)?,
                None => write_int(out, i64::from(dt.offset)),
            }
        }
        // A year chrono cannot hold still fits the wire's epoch days/seconds.
        Value::WideLocal(w) if w.has_time => {
            let seconds = w.epoch_days() * 86_400 + i64::from(w.local.num_seconds_from_midnight());
            write_struct_header(out, tag::LOCAL_DATE_TIME, 2)?;
            write_int(out, seconds);
            write_int(out, i64::from(w.local.nanosecond()));
        }
        Value::WideLocal(w) => {
            write_struct_header(out, tag::DATE, 1)?;
            write_int(out, w.epoch_days());
        }
        Value::Duration(d) => {
            write_struct_header(out, tag::DURATION, 4)?;
            write_int(out, d.months);
            write_int(out, d.days);
            write_int(out, d.seconds);
            write_int(out, i64::from(d.nanos));
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// A temporal value as a [`PackValue`] structure (Bolt 5 shape); `None`
/// when the value is not temporal.
pub fn to_pack(value: &Value) -> Option<PackValue> {
    let mut bytes = Vec::new();
    if !write(value, true, &mut bytes).ok()? {
        return None;
    }
    crate::from_slice(&bytes).ok()
}

fn malformed(t: u8) -> ParamError {
    ParamError::UnsupportedStructure {
        tag: t,
        name: "malformed temporal",
    }
}

fn time_of(nanos: i64) -> Option<NaiveTime> {
    let per = NANOS_PER_SECOND;
    if !(0..86_400 * per).contains(&nanos) {
        return None;
    }
    NaiveTime::from_num_seconds_from_midnight_opt((nanos / per) as u32, (nanos % per) as u32)
}

fn wall(seconds: i64, nanos: i64) -> Option<NaiveDateTime> {
    Some(DateTime::from_timestamp(seconds, u32::try_from(nanos).ok()?)?.naive_utc())
}

fn offset(v: i64) -> Option<i32> {
    i32::try_from(v).ok().filter(|o| o.abs() <= 18 * 3600)
}

/// Converts a client-sent temporal structure; `None` when `t` is not a
/// temporal tag.
pub fn from_struct(t: u8, fields: &[PackValue]) -> Option<Result<Value, ParamError>> {
    let ints: Vec<Option<i64>> = fields
        .iter()
        .map(|f| match f {
            PackValue::Int(i) => Some(*i),
            _ => None,
        })
        .collect();
    let int = |i: usize| ints.get(i).copied().flatten();
    let zone_id = || match fields.get(2) {
        Some(PackValue::String(s)) => s.parse::<Tz>().ok().map(|tz| (s.clone(), tz)),
        _ => None,
    };
    let value = match t {
        tag::DATE if fields.len() == 1 => int(0)
            .and_then(|d| {
                epoch_date()
                    .checked_add_signed(nereid_values::temporal::chrono::Duration::try_days(d)?)
            })
            .map(Value::Date),
        tag::LOCAL_TIME if fields.len() == 1 => int(0).and_then(time_of).map(Value::LocalTime),
        tag::TIME if fields.len() == 2 => (|| {
            Some(Value::Time(OffsetTime {
                time: time_of(int(0)?)?,
                offset: offset(int(1)?)?,
            }))
        })(),
        tag::LOCAL_DATE_TIME if fields.len() == 2 => {
            (|| wall(int(0)?, int(1)?).map(Value::LocalDateTime))()
        }
        tag::DATE_TIME | tag::LEGACY_DATE_TIME if fields.len() == 3 => (|| {
            let off = offset(int(2)?)?;
            let seconds = int(0)?;
            let local_seconds = if t == tag::DATE_TIME {
                seconds.checked_add(i64::from(off))?
            } else {
                seconds
            };
            Some(Value::DateTime(Box::new(ZonedDateTime {
                local: wall(local_seconds, int(1)?)?,
                offset: off,
                zone: None,
            })))
        })(),
        tag::DATE_TIME_ZONE_ID | tag::LEGACY_DATE_TIME_ZONE_ID if fields.len() == 3 => (|| {
            let (name, tz) = zone_id()?;
            let nanos = u32::try_from(int(1)?).ok()?;
            let dt = if t == tag::DATE_TIME_ZONE_ID {
                tz.timestamp_opt(int(0)?, nanos).single()?
            } else {
                tz.from_local_datetime(&wall(int(0)?, i64::from(nanos))?)
                    .earliest()?
            };
            Some(Value::DateTime(Box::new(ZonedDateTime {
                local: dt.naive_local(),
                offset: dt.offset().fix().local_minus_utc(),
                zone: Some(name),
            })))
        })(),
        tag::DURATION if fields.len() == 4 => (|| {
            let total = i128::from(int(2)?) * i128::from(NANOS_PER_SECOND) + i128::from(int(3)?);
            Duration::new(int(0)?, int(1)?, total).map(Value::Duration)
        })(),
        tag::DATE
        | tag::LOCAL_TIME
        | tag::TIME
        | tag::LOCAL_DATE_TIME
        | tag::DATE_TIME
        | tag::LEGACY_DATE_TIME
        | tag::DATE_TIME_ZONE_ID
        | tag::LEGACY_DATE_TIME_ZONE_ID
        | tag::DURATION => None,
        _ => return None,
    };
    Some(value.ok_or_else(|| malformed(t)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::from_slice;

    fn round_trip(v: Value, utc: bool) -> Value {
        let mut out = Vec::new();
        assert!(write(&v, utc, &mut out).unwrap());
        let PackValue::Struct { tag: t, fields } = from_slice(&out).unwrap() else {
            panic!("not a structure")
        };
        from_struct(t, &fields).unwrap().unwrap()
    }

    #[test]
    fn temporal_values_round_trip_in_both_datetime_shapes() {
        let date = NaiveDate::from_ymd_opt(1984, 10, 11).unwrap();
        let time = NaiveTime::from_hms_nano_opt(12, 31, 14, 645_876_123).unwrap();
        let values = [
            Value::Date(date),
            Value::LocalTime(time),
            Value::Time(OffsetTime { time, offset: 3600 }),
            Value::LocalDateTime(date.and_time(time)),
            Value::DateTime(Box::new(ZonedDateTime {
                local: date.and_time(time),
                offset: -5400,
                zone: None,
            })),
            Value::DateTime(Box::new(ZonedDateTime {
                local: date.and_time(time),
                offset: 3600,
                zone: Some("Europe/Stockholm".into()),
            })),
            Value::Duration(Duration {
                months: 14,
                days: -3,
                seconds: -2,
                nanos: 5,
            }),
        ];
        for v in values {
            assert_eq!(round_trip(v.clone(), true), v);
            assert_eq!(round_trip(v.clone(), false), v);
        }
    }

    #[test]
    fn utc_datetime_sends_utc_seconds() {
        let local = NaiveDate::from_ymd_opt(1970, 1, 1)
            .unwrap()
            .and_hms_opt(1, 0, 0)
            .unwrap();
        let v = Value::DateTime(Box::new(ZonedDateTime {
            local,
            offset: 3600,
            zone: None,
        }));
        let mut out = Vec::new();
        write(&v, true, &mut out).unwrap();
        assert_eq!(
            from_slice(&out).unwrap(),
            PackValue::Struct {
                tag: tag::DATE_TIME,
                fields: vec![PackValue::Int(0), PackValue::Int(0), PackValue::Int(3600)],
            }
        );
    }

    #[test]
    fn malformed_structures_are_refused() {
        assert!(from_struct(tag::DATE, &[PackValue::from("x")])
            .unwrap()
            .is_err());
        assert!(from_struct(tag::LOCAL_TIME, &[PackValue::Int(-1)])
            .unwrap()
            .is_err());
        assert!(from_struct(tag::NODE, &[]).is_none());
    }
}
