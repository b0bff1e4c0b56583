//! Property types and the parsing of one field into a [`Value`].
//!
//! Both header vocabularies name the same few types (Neptune's `Int`,
//! neo4j-admin's `int`), so names are matched without regard to case. Every
//! integer type gives `Value::Int` and every float type `Value::Float`
//! (the value model has one of each); the narrower integer types still
//! refuse values outside their range, as the tools that define them do.

use nereid_values::{Crs, Point, Value};

use crate::temporal;

/// The type of a property column.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ValueType {
    String,
    Bool,
    Byte,
    Short,
    Int,
    Long,
    Float,
    Double,
    Date,
    LocalTime,
    Time,
    LocalDateTime,
    DateTime,
    Duration,
    Point,
}

/// Why a field did not parse.
pub(crate) enum FieldError {
    Invalid,
    Utf8,
}

impl ValueType {
    /// Reads a type name of either vocabulary (case-insensitive).
    pub fn from_name(name: &str) -> Option<ValueType> {
        const NAMES: &[(&str, ValueType)] = &[
            ("string", ValueType::String),
            ("char", ValueType::String),
            ("bool", ValueType::Bool),
            ("boolean", ValueType::Bool),
            ("byte", ValueType::Byte),
            ("short", ValueType::Short),
            ("int", ValueType::Int),
            ("long", ValueType::Long),
            ("float", ValueType::Float),
            ("double", ValueType::Double),
            ("date", ValueType::Date),
            ("localtime", ValueType::LocalTime),
            ("time", ValueType::Time),
            ("localdatetime", ValueType::LocalDateTime),
            ("datetime", ValueType::DateTime),
            ("duration", ValueType::Duration),
            ("point", ValueType::Point),
        ];
        NAMES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, t)| *t)
    }

    /// The name used in error messages.
    pub fn name(self) -> &'static str {
        match self {
            ValueType::String => "String",
            ValueType::Bool => "Boolean",
            ValueType::Byte => "Byte",
            ValueType::Short => "Short",
            ValueType::Int => "Int",
            ValueType::Long => "Long",
            ValueType::Float => "Float",
            ValueType::Double => "Double",
            ValueType::Date => "Date",
            ValueType::LocalTime => "LocalTime",
            ValueType::Time => "Time",
            ValueType::LocalDateTime => "LocalDateTime",
            ValueType::DateTime => "DateTime",
            ValueType::Duration => "Duration",
            ValueType::Point => "Point",
        }
    }

    /// Parses one non-empty field (or array element).
    pub(crate) fn parse(self, bytes: &[u8]) -> Result<Value, FieldError> {
        let invalid = |_| FieldError::Invalid;
        match self {
            ValueType::String => Ok(Value::String(text(bytes)?.to_owned())),
            ValueType::Bool => parse_bool(bytes).map(Value::Bool),
            ValueType::Byte => ranged(bytes, i8::MIN.into(), i8::MAX.into()),
            ValueType::Short => ranged(bytes, i16::MIN.into(), i16::MAX.into()),
            ValueType::Int => ranged(bytes, i32::MIN.into(), i32::MAX.into()),
            ValueType::Long => parse_int(bytes).map(Value::Int),
            ValueType::Float | ValueType::Double => {
                let t = text(bytes)?;
                t.trim().parse::<f64>().map(Value::Float).map_err(invalid)
            }
            ValueType::Date => temporal::date(bytes).map(Value::Date),
            ValueType::LocalTime => temporal::local_time(bytes).map(Value::LocalTime),
            ValueType::Time => temporal::time(bytes).map(Value::Time),
            ValueType::LocalDateTime => temporal::local_datetime(bytes).map(Value::LocalDateTime),
            ValueType::DateTime => temporal::datetime(bytes).map(|d| Value::DateTime(Box::new(d))),
            ValueType::Duration => temporal::duration(bytes).map(Value::Duration),
            ValueType::Point => point(text(bytes)?).map(Value::Point),
        }
    }
}

fn text(bytes: &[u8]) -> Result<&str, FieldError> {
    std::str::from_utf8(bytes).map_err(|_| FieldError::Utf8)
}

fn parse_bool(bytes: &[u8]) -> Result<bool, FieldError> {
    let b = bytes.trim_ascii();
    if b.eq_ignore_ascii_case(b"true") {
        Ok(true)
    } else if b.eq_ignore_ascii_case(b"false") {
        Ok(false)
    } else {
        Err(FieldError::Invalid)
    }
}

/// A decimal integer straight from bytes (an optional sign, digits; spaces
/// around it are forgiven as neo4j-admin trims them).
fn parse_int(bytes: &[u8]) -> Result<i64, FieldError> {
    let b = bytes.trim_ascii();
    let (negative, digits) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        Some(b'+') => (false, &b[1..]),
        _ => (false, b),
    };
    if digits.is_empty() || digits.len() > 19 {
        return Err(FieldError::Invalid);
    }
    // Accumulate negatively so that i64::MIN fits. Any 18 digits fit
    // (10^18 < 2^63): only a 19th is checked for overflow, so the usual
    // value (SNB's dates and ids: 12-14 digits) costs no check per digit.
    let (head, last) = digits.split_at(digits.len().min(18));
    let mut n: i64 = 0;
    for &d in head {
        let d = d.wrapping_sub(b'0');
        if d > 9 {
            return Err(FieldError::Invalid);
        }
        n = n * 10 - i64::from(d);
    }
    for &d in last {
        let d = d.wrapping_sub(b'0');
        if d > 9 {
            return Err(FieldError::Invalid);
        }
        n = n
            .checked_mul(10)
            .and_then(|n| n.checked_sub(i64::from(d)))
            .ok_or(FieldError::Invalid)?;
    }
    if negative {
        Ok(n)
    } else {
        n.checked_neg().ok_or(FieldError::Invalid)
    }
}

fn ranged(bytes: &[u8], min: i64, max: i64) -> Result<Value, FieldError> {
    let n = parse_int(bytes)?;
    if (min..=max).contains(&n) {
        Ok(Value::Int(n))
    } else {
        Err(FieldError::Invalid)
    }
}

/// neo4j-admin's point notation: `{x: 1, y: 2[, z: 3][, crs: 'cartesian']}`
/// or `{latitude: .., longitude: ..[, height: ..]}`, with an optional
/// `srid`. Keys may be quoted; the CRS follows from the keys when absent.
fn point(text: &str) -> Result<Point, FieldError> {
    let body = text
        .trim()
        .strip_prefix('{')
        .and_then(|t| t.strip_suffix('}'))
        .ok_or(FieldError::Invalid)?;
    let (mut x, mut y, mut z) = (None, None, None);
    let mut geographic = false;
    let mut crs = None;
    for entry in body.split(',') {
        let (key, value) = entry.split_once(':').ok_or(FieldError::Invalid)?;
        let key = unquote(key.trim()).to_ascii_lowercase();
        let value = value.trim();
        let number = || value.parse::<f64>().map_err(|_| FieldError::Invalid);
        match key.as_str() {
            "x" => x = Some(number()?),
            "y" => y = Some(number()?),
            "z" => z = Some(number()?),
            "longitude" => (x, geographic) = (Some(number()?), true),
            "latitude" => (y, geographic) = (Some(number()?), true),
            "height" => (z, geographic) = (Some(number()?), true),
            "crs" => crs = Some(Crs::from_name(unquote(value)).ok_or(FieldError::Invalid)?),
            "srid" => {
                let srid = value.parse::<i64>().map_err(|_| FieldError::Invalid)?;
                crs = Some(Crs::from_srid(srid).ok_or(FieldError::Invalid)?);
            }
            _ => return Err(FieldError::Invalid),
        }
    }
    let crs = crs.unwrap_or(match (geographic, z.is_some()) {
        (false, false) => Crs::Cartesian,
        (false, true) => Crs::Cartesian3D,
        (true, false) => Crs::Wgs84,
        (true, true) => Crs::Wgs84_3D,
    });
    let (Some(x), Some(y)) = (x, y) else {
        return Err(FieldError::Invalid);
    };
    Point::new(crs, x, y, z).ok_or(FieldError::Invalid)
}

fn unquote(s: &str) -> &str {
    for q in ['\'', '"'] {
        if let Some(inner) = s.strip_prefix(q).and_then(|s| s.strip_suffix(q)) {
            return inner;
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(t: ValueType, s: &str) -> Value {
        match t.parse(s.as_bytes()) {
            Ok(v) => v,
            Err(_) => panic!("{s:?} should parse as {}", t.name()),
        }
    }

    #[test]
    fn integers_keep_their_type_ranges() {
        assert_eq!(
            ok(ValueType::Long, "-9223372036854775808"),
            Value::Int(i64::MIN)
        );
        assert_eq!(ok(ValueType::Long, " +42 "), Value::Int(42));
        assert!(ValueType::Long.parse(b"9223372036854775808").is_err());
        assert!(ValueType::Int.parse(b"2147483648").is_err());
        assert!(ValueType::Byte.parse(b"128").is_err());
        assert!(ValueType::Long.parse(b"1.0").is_err());
        assert!(ValueType::Long.parse(b"-").is_err());
    }

    /// Agrees with the standard parser on random texts around the limits
    /// (17-20 digits, both signs, spaces around, a non-digit anywhere):
    /// the same number, or an error where it errs or the digits exceed 19.
    #[test]
    fn longs_agree_with_the_standard_parser() {
        let mut below = crate::test_random::below(0x5851_f42d_4c95_7f2d);
        let noise = b"+- 1a.";
        for _ in 0..100_000 {
            let len = 1 + below(21) as usize;
            let mut text: Vec<u8> = (0..len).map(|_| b'0' + below(10) as u8).collect();
            match below(6) {
                0 => text.insert(0, b'-'),
                1 => text.insert(0, b'+'),
                2 => text[0] = noise[below(noise.len() as u64) as usize],
                3 => text.splice(0..0, *b" -").for_each(drop),
                4 if len >= 19 => text[..19].copy_from_slice(b"9223372036854775807"),
                _ => {}
            }
            let trimmed = std::str::from_utf8(&text).unwrap().trim_ascii();
            let digits = trimmed.trim_start_matches(['-', '+']).len();
            let expected = match digits > 19 {
                true => None,
                false => trimmed.parse::<i64>().ok(),
            };
            assert_eq!(parse_int(&text).ok(), expected, "{text:?}");
        }
    }

    #[test]
    fn points_take_either_key_set() {
        let p = ok(ValueType::Point, "{latitude: 55.6, longitude: 12.5}");
        let Value::Point(p) = p else { panic!() };
        assert_eq!((p.crs(), p.x(), p.y()), (Crs::Wgs84, 12.5, 55.6));
        let Value::Point(p) = ok(ValueType::Point, "{x:1,y:2,z:3,crs:'cartesian-3d'}") else {
            panic!()
        };
        assert_eq!(p.z(), Some(3.0));
        assert!(ValueType::Point.parse(b"{x:1}").is_err());
    }
}
