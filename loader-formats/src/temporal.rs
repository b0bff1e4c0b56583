//! ISO 8601 temporal fields, parsed from bytes.
//!
//! The forms accepted are the extended calendar forms both tools document:
//! `2024-02-29`, `12:30[:15[.123456789]]`, a date and a time joined by `T`
//! (or a space), offsets `Z` / `+01:00` / `+0100` / `+01`, and durations
//! `P1Y2M3W4DT5H6M7.5S`. A date-time without an offset is UTC, as Neptune
//! stores it and as neo4j-admin does with its default zone. Named zones
//! (`[Europe/Paris]`), week and ordinal dates are refused rather than
//! guessed.

use chrono::{NaiveDate, NaiveDateTime, NaiveTime};
use nereid_values::{Duration, OffsetTime, ZonedDateTime};

use crate::value_type::FieldError;

type Parsed<T> = Result<T, FieldError>;

const INVALID: FieldError = FieldError::Invalid;

/// Reads `n` ASCII digits at the start of `b`.
fn digits(b: &[u8], n: usize) -> Option<u32> {
    if b.len() < n {
        return None;
    }
    b[..n].iter().try_fold(0u32, |acc, &d| {
        let d = d.wrapping_sub(b'0');
        (d <= 9).then_some(acc * 10 + u32::from(d))
    })
}

/// `[+-]YYYY-MM-DD` at the start of `b`; returns the rest.
fn date_prefix(b: &[u8]) -> Option<(NaiveDate, &[u8])> {
    let (sign, b) = match b.first() {
        Some(b'-') => (-1, &b[1..]),
        Some(b'+') => (1, &b[1..]),
        _ => (1, b),
    };
    let year_len = b.iter().take_while(|c| c.is_ascii_digit()).count();
    if !(4..=9).contains(&year_len) {
        return None;
    }
    let year = sign * i32::try_from(digits(b, year_len)?).ok()?;
    let b = &b[year_len..];
    if b.len() < 6 || b[0] != b'-' || b[3] != b'-' {
        return None;
    }
    let month = digits(&b[1..], 2)?;
    let day = digits(&b[4..], 2)?;
    Some((NaiveDate::from_ymd_opt(year, month, day)?, &b[6..]))
}

/// `HH:MM[:SS[.f{1,9}]]` at the start of `b`; returns the rest.
fn time_prefix(b: &[u8]) -> Option<(NaiveTime, &[u8])> {
    let hour = digits(b, 2)?;
    if b.get(2) != Some(&b':') {
        return None;
    }
    let minute = digits(&b[3..], 2)?;
    let mut rest = &b[5..];
    let (mut second, mut nanos) = (0, 0);
    if rest.first() == Some(&b':') {
        second = digits(&rest[1..], 2)?;
        rest = &rest[3..];
        if matches!(rest.first(), Some(b'.') | Some(b',')) {
            let n = rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
            if !(1..=9).contains(&n) {
                return None;
            }
            nanos = digits(&rest[1..], n)? * 10u32.pow(9 - n as u32);
            rest = &rest[1 + n..];
        }
    }
    Some((
        NaiveTime::from_hms_nano_opt(hour, minute, second, nanos)?,
        rest,
    ))
}

/// The whole of `b` as an offset in seconds east of UTC; `None` inside for
/// no offset at all.
fn offset(b: &[u8]) -> Option<Option<i32>> {
    let sign = match b.first() {
        None => return Some(None),
        Some(b'Z') | Some(b'z') if b.len() == 1 => return Some(Some(0)),
        Some(b'+') => 1,
        Some(b'-') => -1,
        _ => return None,
    };
    let b = &b[1..];
    let hours = digits(b, 2)?;
    let minutes = match &b[2..] {
        [] => 0,
        [b':', m @ ..] | m if m.len() == 2 => digits(m, 2)?,
        _ => return None,
    };
    if hours > 18 || minutes > 59 {
        return None;
    }
    Some(Some(sign * (hours * 3600 + minutes * 60) as i32))
}

pub(crate) fn date(b: &[u8]) -> Parsed<NaiveDate> {
    match date_prefix(b.trim_ascii()) {
        Some((d, [])) => Ok(d),
        _ => Err(INVALID),
    }
}

pub(crate) fn local_time(b: &[u8]) -> Parsed<NaiveTime> {
    match time_prefix(b.trim_ascii()) {
        Some((t, [])) => Ok(t),
        _ => Err(INVALID),
    }
}

pub(crate) fn time(b: &[u8]) -> Parsed<OffsetTime> {
    let (time, rest) = time_prefix(b.trim_ascii()).ok_or(INVALID)?;
    let offset = offset(rest).ok_or(INVALID)?.unwrap_or(0);
    Ok(OffsetTime { time, offset })
}

/// A date, then `T` or a space and a time; returns the rest.
fn datetime_prefix(b: &[u8]) -> Option<(NaiveDateTime, &[u8])> {
    let (date, rest) = date_prefix(b)?;
    match rest.first() {
        Some(b'T') | Some(b't') | Some(b' ') => {
            let (time, rest) = time_prefix(&rest[1..])?;
            Some((date.and_time(time), rest))
        }
        _ => Some((date.and_time(NaiveTime::MIN), rest)),
    }
}

pub(crate) fn local_datetime(b: &[u8]) -> Parsed<NaiveDateTime> {
    match datetime_prefix(b.trim_ascii()) {
        Some((d, [])) => Ok(d),
        _ => Err(INVALID),
    }
}

/// A date-time with an optional offset; a bare date is midnight (Neptune's
/// `DateTime` accepts `yyyy-MM-dd`).
pub(crate) fn datetime(b: &[u8]) -> Parsed<ZonedDateTime> {
    let (local, rest) = datetime_prefix(b.trim_ascii()).ok_or(INVALID)?;
    let offset = offset(rest).ok_or(INVALID)?.unwrap_or(0);
    Ok(ZonedDateTime {
        local,
        offset,
        zone: None,
    })
}

/// `[-]P[nY][nM][nW][nD][T[nH][nM][n[.f]S]]`; only seconds take a fraction.
pub(crate) fn duration(b: &[u8]) -> Parsed<Duration> {
    let b = b.trim_ascii();
    let (negative, b) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        _ => (false, b),
    };
    let mut b = match b.first() {
        Some(b'P') | Some(b'p') => &b[1..],
        _ => return Err(INVALID),
    };
    let (mut months, mut days, mut nanos): (i64, i64, i128) = (0, 0, 0);
    let mut in_time = false;
    let mut any = false;
    while !b.is_empty() {
        if matches!(b[0], b'T' | b't') && !in_time {
            in_time = true;
            b = &b[1..];
            continue;
        }
        let n = b.iter().take_while(|c| c.is_ascii_digit()).count();
        let whole: i64 = std::str::from_utf8(&b[..n])
            .ok()
            .and_then(|s| s.parse().ok())
            .ok_or(INVALID)?;
        b = &b[n..];
        let mut fraction: i128 = 0;
        if matches!(b.first(), Some(b'.') | Some(b',')) {
            let f = b[1..].iter().take_while(|c| c.is_ascii_digit()).count();
            if !(1..=9).contains(&f) {
                return Err(INVALID);
            }
            fraction = i128::from(digits(&b[1..], f).ok_or(INVALID)? * 10u32.pow(9 - f as u32));
            b = &b[1 + f..];
        }
        let unit = b.first().ok_or(INVALID)?.to_ascii_uppercase();
        b = &b[1..];
        if fraction != 0 && !(in_time && unit == b'S') {
            return Err(INVALID);
        }
        let whole128 = i128::from(whole);
        match (in_time, unit) {
            (false, b'Y') => {
                months = months
                    .checked_add(whole.checked_mul(12).ok_or(INVALID)?)
                    .ok_or(INVALID)?
            }
            (false, b'M') => months = months.checked_add(whole).ok_or(INVALID)?,
            (false, b'W') => {
                days = days
                    .checked_add(whole.checked_mul(7).ok_or(INVALID)?)
                    .ok_or(INVALID)?
            }
            (false, b'D') => days = days.checked_add(whole).ok_or(INVALID)?,
            (true, b'H') => nanos += whole128 * 3_600_000_000_000,
            (true, b'M') => nanos += whole128 * 60_000_000_000,
            (true, b'S') => nanos += whole128 * 1_000_000_000 + fraction,
            _ => return Err(INVALID),
        }
        any = true;
    }
    if !any {
        return Err(INVALID);
    }
    if negative {
        months = -months;
        days = -days;
        nanos = -nanos;
    }
    Duration::new(months, days, nanos).ok_or(INVALID)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn date_times_take_offsets_and_default_to_utc() {
        let d = datetime(b"2024-02-29T12:30:15.5+01:00").ok().unwrap();
        assert_eq!(d.offset, 3600);
        assert_eq!(d.local.to_string(), "2024-02-29 12:30:15.500");
        assert_eq!(datetime(b"2024-02-29").ok().unwrap().offset, 0);
        assert_eq!(
            datetime(b"2024-02-29T01:02Z")
                .ok()
                .unwrap()
                .local
                .to_string(),
            "2024-02-29 01:02:00"
        );
        assert!(datetime(b"2023-02-29").is_err());
        assert!(datetime(b"2024-02-29T12:30[Europe/Paris]").is_err());
        assert_eq!(
            time(b"10:00-0530").ok().unwrap().offset,
            -(5 * 3600 + 30 * 60)
        );
    }

    #[test]
    fn durations_split_months_days_and_nanos() {
        let d = duration(b"P1Y2M3W4DT5H6M7.25S").ok().unwrap();
        assert_eq!(
            (d.months, d.days, d.seconds, d.nanos),
            (14, 25, 5 * 3600 + 6 * 60 + 7, 250_000_000)
        );
        let n = duration(b"-PT1.5S").ok().unwrap();
        assert_eq!((n.seconds, n.nanos), (-2, 500_000_000));
        assert!(duration(b"P").is_err());
        assert!(duration(b"P1.5D").is_err());
        assert!(duration(b"PT1D").is_err());
    }
}
