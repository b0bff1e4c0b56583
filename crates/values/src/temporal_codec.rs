//! A compact, self-describing binary form of temporal values, shared by the
//! places that persist them (property storage, the write-ahead log).
//!
//! Layout (little-endian): a kind byte, then
//! - 1 date: i32 days from 0001-01-01 (CE day 1);
//! - 2 local time: u64 nanoseconds of day;
//! - 3 time: u64 nanoseconds of day, i32 offset seconds;
//! - 4 local datetime: i64 seconds since the epoch (wall time as if UTC), u32 nanos;
//! - 5 datetime: as 4 (local wall time), i32 offset, u16 zone-id length, zone-id bytes;
//! - 6 duration: i64 months, i64 days, i64 seconds, i32 nanos.
//!
//! Invariant: the form is stable (it is written to disk); add kinds, never
//! change existing ones.

use crate::temporal::{nanos_of_day, Duration, OffsetTime, ZonedDateTime, NANOS_PER_SECOND};
use crate::Value;
use chrono::{DateTime, Datelike, NaiveDate, NaiveTime};

const K_DATE: u8 = 1;
const K_LOCAL_TIME: u8 = 2;
const K_TIME: u8 = 3;
const K_LOCAL_DATETIME: u8 = 4;
const K_DATETIME: u8 = 5;
const K_DURATION: u8 = 6;

/// The binary form of a temporal value; `None` for other values.
pub fn encode(value: &Value) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(16);
    match value {
        Value::Date(d) => {
            out.push(K_DATE);
            out.extend_from_slice(&d.num_days_from_ce().to_le_bytes());
        }
        Value::LocalTime(t) => {
            out.push(K_LOCAL_TIME);
            out.extend_from_slice(&(nanos_of_day(*t) as u64).to_le_bytes());
        }
        Value::Time(t) => {
            out.push(K_TIME);
            out.extend_from_slice(&(nanos_of_day(t.time) as u64).to_le_bytes());
            out.extend_from_slice(&t.offset.to_le_bytes());
        }
        Value::LocalDateTime(dt) => {
            out.push(K_LOCAL_DATETIME);
            let utc = dt.and_utc();
            out.extend_from_slice(&utc.timestamp().to_le_bytes());
            out.extend_from_slice(&utc.timestamp_subsec_nanos().to_le_bytes());
        }
        Value::DateTime(dt) => {
            out.push(K_DATETIME);
            let utc = dt.local.and_utc();
            out.extend_from_slice(&utc.timestamp().to_le_bytes());
            out.extend_from_slice(&utc.timestamp_subsec_nanos().to_le_bytes());
            out.extend_from_slice(&dt.offset.to_le_bytes());
            let zone = dt.zone.as_deref().unwrap_or("");
            out.extend_from_slice(&u16::try_from(zone.len()).ok()?.to_le_bytes());
            out.extend_from_slice(zone.as_bytes());
        }
        Value::Duration(d) => {
            out.push(K_DURATION);
            out.extend_from_slice(&d.months.to_le_bytes());
            out.extend_from_slice(&d.days.to_le_bytes());
            out.extend_from_slice(&d.seconds.to_le_bytes());
            out.extend_from_slice(&d.nanos.to_le_bytes());
        }
        _ => return None,
    }
    Some(out)
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        if self.0.len() < N {
            return None;
        }
        let (head, rest) = self.0.split_at(N);
        self.0 = rest;
        head.try_into().ok()
    }
    fn i32(&mut self) -> Option<i32> {
        self.take::<4>().map(i32::from_le_bytes)
    }
    fn u32(&mut self) -> Option<u32> {
        self.take::<4>().map(u32::from_le_bytes)
    }
    fn i64(&mut self) -> Option<i64> {
        self.take::<8>().map(i64::from_le_bytes)
    }
    fn time(&mut self) -> Option<NaiveTime> {
        let n = u64::from_le_bytes(self.take::<8>()?);
        let per = NANOS_PER_SECOND as u64;
        NaiveTime::from_num_seconds_from_midnight_opt(
            u32::try_from(n / per).ok()?,
            (n % per) as u32,
        )
    }
    fn local_datetime(&mut self) -> Option<chrono::NaiveDateTime> {
        let secs = self.i64()?;
        let nanos = self.u32()?;
        Some(DateTime::from_timestamp(secs, nanos)?.naive_utc())
    }
}

/// Reads a form written by [`encode`]; `None` if it is malformed.
pub fn decode(form: &[u8]) -> Option<Value> {
    let (&kind, rest) = form.split_first()?;
    let mut r = Reader(rest);
    let value = match kind {
        K_DATE => Value::Date(NaiveDate::from_num_days_from_ce_opt(r.i32()?)?),
        K_LOCAL_TIME => Value::LocalTime(r.time()?),
        K_TIME => Value::Time(OffsetTime {
            time: r.time()?,
            offset: r.i32()?,
        }),
        K_LOCAL_DATETIME => Value::LocalDateTime(r.local_datetime()?),
        K_DATETIME => {
            let local = r.local_datetime()?;
            let offset = r.i32()?;
            let len = usize::from(u16::from_le_bytes(r.take::<2>()?));
            if r.0.len() < len {
                return None;
            }
            let (zone, rest) = r.0.split_at(len);
            let zone = String::from_utf8(zone.to_vec()).ok()?;
            r.0 = rest;
            Value::DateTime(Box::new(ZonedDateTime {
                local,
                offset,
                zone: (!zone.is_empty()).then_some(zone),
            }))
        }
        K_DURATION => Value::Duration(Duration {
            months: r.i64()?,
            days: r.i64()?,
            seconds: r.i64()?,
            nanos: r.i32()?,
        }),
        _ => return None,
    };
    r.0.is_empty().then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_round_trips() {
        let date = NaiveDate::from_ymd_opt(1984, 10, 11).unwrap();
        let time = NaiveTime::from_hms_nano_opt(12, 31, 14, 645_876_123).unwrap();
        let values = [
            Value::Date(date),
            Value::LocalTime(time),
            Value::Time(OffsetTime { time, offset: 3600 }),
            Value::LocalDateTime(date.and_time(time)),
            Value::DateTime(Box::new(ZonedDateTime {
                local: date.and_time(time),
                offset: 3600,
                zone: Some("Europe/Stockholm".into()),
            })),
            Value::DateTime(Box::new(ZonedDateTime {
                local: date.and_time(time),
                offset: -5400,
                zone: None,
            })),
            Value::Duration(Duration {
                months: 14,
                days: -3,
                seconds: -2,
                nanos: 999_000_000,
            }),
        ];
        for v in values {
            let form = encode(&v).unwrap();
            assert_eq!(decode(&form), Some(v.clone()), "{v:?}");
            assert_eq!(decode(&form[..form.len() - 1]), None);
        }
    }

    #[test]
    fn non_temporal_values_have_no_form() {
        assert_eq!(encode(&Value::Int(1)), None);
        assert_eq!(decode(&[99]), None);
    }
}
