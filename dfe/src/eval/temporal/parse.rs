//! ISO-8601 text forms of the temporal types, as `date('2015-W30-2')`,
//! `time('214032.142+0100')`, `datetime('...[Europe/Stockholm]')` and
//! `duration('P14DT16H12M')` accept them (extended and basic formats).

use super::decimal::Decimal;
use super::duration_build::DurationBuilder;
use nereid_values::temporal::chrono::{NaiveDate, NaiveDateTime, NaiveTime, Weekday};
use nereid_values::temporal_wide::YEARS_PER_CYCLE;
use nereid_values::{Duration, Value, WideLocal};

/// A time zone as written in text or a `timezone` map entry.
#[derive(Clone, Debug, PartialEq)]
pub enum ZoneSpec {
    Offset(i32),
    /// An IANA name, with the offset the text stated (if any).
    Named(String, Option<i32>),
}

fn digits(s: &str) -> Option<i64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

fn small(s: &str) -> Option<u32> {
    digits(s).and_then(|v| u32::try_from(v).ok())
}

/// Parses a date: `2015-07-21`, `20150721`, `2015-07`, `201507`,
/// `2015-W30-2`, `2015W302`, `2015-W30`, `2015W30`, `2015-202`, `2015202`, `2015`.
/// `None` for a year chrono cannot hold (see [`date_wide`]).
pub fn date(s: &str) -> Option<NaiveDate> {
    let (cycles, in_cycle) = date_wide(s)?;
    match WideLocal::into_value(in_cycle.and_time(NaiveTime::MIN), cycles, false)? {
        Value::Date(d) => Some(d),
        _ => None,
    }
}

/// The largest year openCypher allows (either sign).
const MAX_YEAR: i64 = 999_999_999;

/// [`date`] for any year up to ±999,999,999: whole 400-year cycles and the
/// date within the cycle starting at year 0 (it may spill into year -1 or
/// 400 for a week date), per `nereid_values::temporal_wide`.
pub fn date_wide(s: &str) -> Option<(i64, NaiveDate)> {
    let (sign, body) = match s.as_bytes().first()? {
        b'+' => (1, &s[1..]),
        b'-' => (-1, &s[1..]),
        _ => (1, s),
    };
    let year_len = if sign == 1 && s == body {
        4
    } else {
        body.find(|c: char| !c.is_ascii_digit())
            .unwrap_or(body.len())
            .max(4)
    };
    if body.len() < year_len {
        return None;
    }
    let full_year = digits(&body[..year_len])? * sign;
    if full_year.abs() > MAX_YEAR {
        return None;
    }
    let cycles = full_year.div_euclid(YEARS_PER_CYCLE);
    let year = i32::try_from(full_year.rem_euclid(YEARS_PER_CYCLE)).ok()?;
    let rest = &body[year_len..];
    let in_cycle =
        if let Some(week_part) = rest.strip_prefix("-W").or_else(|| rest.strip_prefix('W')) {
            let (week, day) = match week_part.split_once('-') {
                Some((w, d)) => (w, Some(d)),
                None if week_part.len() == 3 => (&week_part[..2], Some(&week_part[2..])),
                None => (week_part, None),
            };
            if week.len() != 2 {
                return None;
            }
            let dow = match day {
                Some(d) if d.len() == 1 => small(d)?,
                Some(_) => return None,
                None => 1,
            };
            week_date(year, small(week)?, dow)
        } else {
            let rest = rest.strip_prefix('-').unwrap_or(rest);
            match rest.len() {
                0 => NaiveDate::from_ymd_opt(year, 1, 1),
                2 => NaiveDate::from_ymd_opt(year, small(rest)?, 1),
                3 => NaiveDate::from_yo_opt(year, small(rest)?),
                4 => NaiveDate::from_ymd_opt(year, small(&rest[..2])?, small(&rest[2..])?),
                5 if &rest[2..3] == "-" => {
                    NaiveDate::from_ymd_opt(year, small(&rest[..2])?, small(&rest[3..])?)
                }
                _ => None,
            }
        }?;
    Some((cycles, in_cycle))
}

/// The date of ISO week `week` (1-based) and weekday `dow` (1 = Monday).
pub fn week_date(year: i32, week: u32, dow: u32) -> Option<NaiveDate> {
    let weekday = match dow {
        1 => Weekday::Mon,
        2 => Weekday::Tue,
        3 => Weekday::Wed,
        4 => Weekday::Thu,
        5 => Weekday::Fri,
        6 => Weekday::Sat,
        7 => Weekday::Sun,
        _ => return None,
    };
    NaiveDate::from_isoywd_opt(year, week, weekday)
}

/// Parses a time of day without zone: `21:40:32.142`, `214032.142`,
/// `21:40`, `2140`, `21`.
pub fn local_time(s: &str) -> Option<NaiveTime> {
    let (main, frac) = match s.find(['.', ',']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let compact: String = if main.contains(':') {
        let parts: Vec<&str> = main.split(':').collect();
        if parts.iter().any(|p| p.len() != 2) {
            return None;
        }
        parts.concat()
    } else {
        main.to_string()
    };
    let (h, m, sec) = match compact.len() {
        2 => (small(&compact)?, 0, 0),
        4 => (small(&compact[..2])?, small(&compact[2..])?, 0),
        6 => (
            small(&compact[..2])?,
            small(&compact[2..4])?,
            small(&compact[4..])?,
        ),
        _ => return None,
    };
    let nanos = match frac {
        Some(f) if compact.len() == 6 && !f.is_empty() && f.len() <= 9 => {
            small(f)? * 10u32.pow(9 - f.len() as u32)
        }
        Some(_) => return None,
        None => 0,
    };
    NaiveTime::from_hms_nano_opt(h, m, sec, nanos)
}

/// Parses an offset: `Z`, `+01:00`, `+0100`, `+01`, `-01:30:15`.
pub fn offset(s: &str) -> Option<i32> {
    if s == "Z" || s == "z" {
        return Some(0);
    }
    let sign = match s.as_bytes().first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let body: String = s[1..].chars().filter(|c| *c != ':').collect();
    let (h, m, sec) = match body.len() {
        2 => (small(&body)?, 0, 0),
        4 => (small(&body[..2])?, small(&body[2..])?, 0),
        6 => (small(&body[..2])?, small(&body[2..4])?, small(&body[4..])?),
        _ => return None,
    };
    if h > 18 || m > 59 || sec > 59 {
        return None;
    }
    let total = i32::try_from(h * 3600 + m * 60 + sec).ok()?;
    if total > 18 * 3600 {
        return None;
    }
    Some(sign * total)
}

/// Splits `text` into its time part and zone (`Z`, offset and/or `[Zone]`).
pub fn split_zone(s: &str) -> Option<(&str, Option<ZoneSpec>)> {
    let (before_bracket, name) = match s.find('[') {
        Some(i) => (&s[..i], Some(s[i + 1..].strip_suffix(']')?.to_string())),
        None => (s, None),
    };
    let cut = before_bracket.find(['Z', 'z', '+', '-']);
    let (body, off) = match cut {
        Some(i) => (&before_bracket[..i], Some(offset(&before_bracket[i..])?)),
        None => (before_bracket, None),
    };
    let zone = match (name, off) {
        (Some(n), o) => Some(ZoneSpec::Named(n, o)),
        (None, Some(o)) => Some(ZoneSpec::Offset(o)),
        (None, None) => None,
    };
    Some((body, zone))
}

/// Parses a time with optional zone.
pub fn time(s: &str) -> Option<(NaiveTime, Option<ZoneSpec>)> {
    let (body, zone) = split_zone(s)?;
    Some((local_time(body)?, zone))
}

/// A local date-time for any year up to ±999,999,999 (see [`date_wide`]):
/// cycles and the in-cycle wall clock; the zone, if any, is not allowed.
pub fn local_datetime_wide(s: &str) -> Option<(i64, NaiveDateTime)> {
    match s.split_once('T') {
        Some((d, t)) => {
            let (t, zone) = time(t)?;
            if zone.is_some() {
                return None;
            }
            let (cycles, date) = date_wide(d)?;
            Some((cycles, date.and_time(t)))
        }
        None => date_wide(s).map(|(cycles, date)| (cycles, date.and_time(NaiveTime::MIN))),
    }
}

/// Parses a date-time with optional zone; the time part may be absent.
pub fn datetime(s: &str) -> Option<(NaiveDateTime, Option<ZoneSpec>)> {
    match s.split_once('T') {
        Some((d, t)) => {
            let (t, zone) = time(t)?;
            Some((date(d)?.and_time(t), zone))
        }
        None => Some((date(s)?.and_hms_opt(0, 0, 0)?, None)),
    }
}

/// Parses an ISO-8601 duration: `P12Y5M14DT16H12M70S`, fractions allowed
/// (`P0.75M`, `PT1.5S`), negative components, and the alternative
/// `P2012-02-02T14:37:21.545` form.
pub fn duration(s: &str) -> Option<Duration> {
    let (negate, s) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s),
    };
    let body = s.strip_prefix('P').or_else(|| s.strip_prefix('p'))?;
    let mut builder = DurationBuilder::default();
    let alternative = body.as_bytes().first().is_some_and(u8::is_ascii_digit)
        && body.as_bytes().get(4) == Some(&b'-');
    if alternative {
        let (d, t) = body.split_once('T').unwrap_or((body, "00:00:00"));
        let parts: Vec<&str> = d.split('-').collect();
        if parts.len() != 3 {
            return None;
        }
        builder.add_int("years", digits(parts[0])?)?;
        builder.add_int("months", digits(parts[1])?)?;
        builder.add_int("days", digits(parts[2])?)?;
        let tparts: Vec<&str> = t.split(':').collect();
        if tparts.len() != 3 {
            return None;
        }
        builder.add_int("hours", digits(tparts[0])?)?;
        builder.add_int("minutes", digits(tparts[1])?)?;
        builder.add("seconds", Decimal::parse(tparts[2])?)?;
    } else {
        let (date_part, time_part) = match body.split_once(['T', 't']) {
            Some((d, t)) => (d, Some(t)),
            None => (body, None),
        };
        designators(
            date_part,
            &[
                ('Y', "years"),
                ('M', "months"),
                ('W', "weeks"),
                ('D', "days"),
            ],
            &mut builder,
        )?;
        if let Some(t) = time_part {
            if t.is_empty() {
                return None;
            }
            designators(
                t,
                &[('H', "hours"), ('M', "minutes"), ('S', "seconds")],
                &mut builder,
            )?;
        }
    }
    let d = builder.finish()?;
    if negate {
        Duration::new(
            d.months.checked_neg()?,
            d.days.checked_neg()?,
            -d.total_nanos(),
        )
    } else {
        Some(d)
    }
}

/// Reads `<number><designator>` pairs in the given order.
fn designators(mut s: &str, units: &[(char, &str)], b: &mut DurationBuilder) -> Option<()> {
    let mut next = 0;
    while !s.is_empty() {
        let end = s.find(|c: char| c.is_ascii_alphabetic())?;
        let (number, rest) = s.split_at(end);
        let letter = rest.chars().next()?.to_ascii_uppercase();
        let at = units[next..].iter().position(|(c, _)| *c == letter)? + next;
        let text = number.replace(',', ".");
        b.add(units[at].1, Decimal::parse(&text)?)?;
        next = at + 1;
        s = &rest[1..];
    }
    Some(())
}
