//! Index keys: values encoded into bytes whose order (memcmp) follows the
//! order of `ORDER BY` (`nereid_values::compare_for_order`) class by class,
//! so that an ordered map of byte strings is an ordered index of values.
//!
//! The encoding only has to make every Cypher-equal pair of values share a
//! *seek group* and keep each class contiguous: seeks read a superset of the
//! answer (whole groups, whole classes for open ends) and module `seek`
//! decides each candidate with Cypher's own comparison. So:
//! - numbers (integers and floats together) are the class byte and the
//!   order bits of the value as `f64` (the group: `1 = 1.0`, and Cypher
//!   compares mixed numbers as floats), then, at the top level only, two
//!   bytes of exact part: an integer's distance from the float it rounds
//!   to (at most 512 either way; 0 for every float), so that large
//!   integers that share a float still sort. Two bytes rather than the
//!   integer's eight keep an integer's entry (key and entity id) within
//!   the 24 bytes an index entry holds inline (module `index`). Only
//!   integers beyond 2^53 that equal a float they are not tell their keys
//!   apart from it, so after an equality on such a number the next key of
//!   a composite index is not in order across them;
//! - strings and byte arrays are escaped (`00` → `00 FF`) and end `00 00`,
//!   so they delimit themselves inside composite keys and a string's
//!   encoding without its end is a prefix of every string it starts;
//! - temporals by their instant or position, durations by their fields,
//!   lists element by element; points by their class alone;
//! - a date outside chrono's range (`WideLocal`) goes to a class of its
//!   own that only equality serves (module `seek` refuses ranges over
//!   dates while any is indexed).
//!
//! Class bytes follow the ranks of `compare_for_order`, so an index read
//! in key order lists values in `ORDER BY` order across classes too.

use nereid_values::{value_codec, Value};

pub(crate) const LIST: u8 = 0x03;
pub(crate) const DATE_TIME: u8 = 0x05;
pub(crate) const LOCAL_DATE_TIME: u8 = 0x06;
pub(crate) const DATE: u8 = 0x07;
pub(crate) const TIME: u8 = 0x08;
pub(crate) const LOCAL_TIME: u8 = 0x09;
pub(crate) const DURATION: u8 = 0x0a;
pub(crate) const POINT: u8 = 0x0b;
pub(crate) const BYTES: u8 = 0x0c;
pub(crate) const STRING: u8 = 0x0d;
pub(crate) const BOOLEAN: u8 = 0x0e;
pub(crate) const NUMBER: u8 = 0x0f;
pub(crate) const WIDE: u8 = 0x20;

/// Appends the key of `value`; `false` (and nothing appended that matters)
/// for values no index holds: null, maps, entities, paths.
pub(crate) fn encode(value: &Value, out: &mut Vec<u8>) -> bool {
    encode_at(value, out, true)
}

fn encode_at(value: &Value, out: &mut Vec<u8>, top: bool) -> bool {
    match value {
        Value::Int(i) => {
            out.push(NUMBER);
            out.extend_from_slice(&float_bits(*i as f64).to_be_bytes());
            if top {
                out.extend_from_slice(&exact_bits(off_float(*i)).to_be_bytes());
            }
        }
        Value::Float(f) => {
            out.push(NUMBER);
            out.extend_from_slice(&float_bits(*f).to_be_bytes());
            if top {
                // A float is its own float: exact part 0, so that `1.0`
                // and `1` make one key (and what follows them in a
                // composite key sorts across both). A float that shares
                // its bits with an integer is integral, so the integers of
                // its group sort around it by their distance.
                out.extend_from_slice(&exact_bits(0).to_be_bytes());
            }
        }
        Value::String(s) => {
            out.push(STRING);
            escaped(s.as_bytes(), out);
        }
        Value::Bytes(b) => {
            out.push(BYTES);
            escaped(b, out);
        }
        Value::Bool(b) => {
            out.push(BOOLEAN);
            out.push(u8::from(*b));
        }
        Value::Date(d) => {
            out.push(DATE);
            out.extend_from_slice(&int_bits(i64::from(d.num_days_from_ce_())).to_be_bytes());
        }
        Value::LocalTime(t) => {
            out.push(LOCAL_TIME);
            out.extend_from_slice(&int_bits(nanos_of_day(t)).to_be_bytes());
        }
        Value::Time(t) => {
            out.push(TIME);
            out.extend_from_slice(&int_bits(t.utc_nanos()).to_be_bytes());
        }
        Value::LocalDateTime(dt) => {
            let utc = dt.and_utc();
            out.push(LOCAL_DATE_TIME);
            out.extend_from_slice(&int_bits(utc.timestamp()).to_be_bytes());
            out.extend_from_slice(&utc.timestamp_subsec_nanos().to_be_bytes());
        }
        Value::DateTime(dt) => {
            let (seconds, nanos) = dt.epoch();
            out.push(DATE_TIME);
            out.extend_from_slice(&int_bits(seconds).to_be_bytes());
            out.extend_from_slice(&nanos.to_be_bytes());
        }
        Value::Duration(d) => {
            out.push(DURATION);
            for field in [d.months, d.days, d.seconds, i64::from(d.nanos)] {
                out.extend_from_slice(&int_bits(field).to_be_bytes());
            }
        }
        // Points are equal across coordinate forms (`-0.0 = 0.0`) that
        // their binary forms tell apart: the class alone, and every point
        // is a candidate that the seek's own comparison decides.
        Value::Point(_) => out.push(POINT),
        Value::WideLocal(_) => {
            // Equality only: the canonical binary form, escaped.
            let Some(form) = value_codec::encode(value) else {
                return false;
            };
            out.push(WIDE);
            escaped(&form, out);
        }
        Value::List(items) => {
            out.push(LIST);
            for item in items {
                out.push(1);
                if !encode_at(item, out, false) {
                    return false;
                }
            }
            out.push(0);
        }
        Value::Null | Value::Map(_) | Value::Node(_) | Value::Relationship(_) | Value::Path(_) => {
            return false
        }
        // `Value` may grow: an unknown kind is no index key.
        #[allow(unreachable_patterns)]
        _ => return false,
    }
    true
}

/// The bytes every key of `value`'s seek group starts with: the key
/// itself, except that a top-level number stops before its exact part and
/// a string before its end (a `STARTS WITH` prefix is such a group).
pub(crate) fn group(value: &Value) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    match value {
        Value::Int(_) | Value::Float(_) => {
            encode_at(value, &mut out, false);
        }
        Value::String(s) => {
            out.push(STRING);
            escaped_open(s.as_bytes(), &mut out);
        }
        _ => {
            if !encode(value, &mut out) {
                return None;
            }
        }
    }
    Some(out)
}

/// The class byte a value's key starts with (`None` for unindexable ones).
pub(crate) fn class_of(value: &Value) -> Option<u8> {
    Some(match value {
        Value::Int(_) | Value::Float(_) => NUMBER,
        Value::String(_) => STRING,
        Value::Bytes(_) => BYTES,
        Value::Bool(_) => BOOLEAN,
        Value::Date(_) => DATE,
        Value::LocalTime(_) => LOCAL_TIME,
        Value::Time(_) => TIME,
        Value::LocalDateTime(_) => LOCAL_DATE_TIME,
        Value::DateTime(_) => DATE_TIME,
        Value::Duration(_) => DURATION,
        Value::Point(_) => POINT,
        Value::WideLocal(_) => WIDE,
        Value::List(_) => LIST,
        _ => return None,
    })
}

/// The length of the encoded value at the start of `key` (for splitting a
/// composite key into its parts).
pub(crate) fn encoded_len(key: &[u8], top: bool) -> Option<usize> {
    let class = *key.first()?;
    let body = &key[1..];
    let len = match class {
        NUMBER => 8 + if top { EXACT } else { 0 },
        BOOLEAN => 1,
        DATE | LOCAL_TIME | TIME => 8,
        LOCAL_DATE_TIME | DATE_TIME => 12,
        DURATION => 32,
        POINT => 0,
        STRING | BYTES | WIDE => escaped_len(body)?,
        LIST => {
            let mut at = 0;
            loop {
                match body.get(at)? {
                    0 => break at + 1,
                    _ => at += 1 + encoded_len(&body[at + 1..], false)?,
                }
            }
        }
        _ => return None,
    };
    (body.len() >= len).then_some(len + 1)
}

/// `key` (a whole, possibly composite key) with the exact part of each
/// top-level number cleared: keys of Cypher-equal values are then equal
/// (and values that are not equal may share one: large integers that
/// round to the same float, which callers compare again).
pub(crate) fn equality_key(key: &[u8]) -> Vec<u8> {
    let mut out = key.to_vec();
    clear_exact(&mut out);
    out
}

/// [`equality_key`] in place.
pub(crate) fn clear_exact(key: &mut [u8]) {
    let mut at = 0;
    while at < key.len() {
        let Some(len) = encoded_len(&key[at..], true) else {
            break;
        };
        if key[at] == NUMBER {
            key[at + 9..at + 9 + EXACT].fill(0);
        }
        at += len;
    }
}

/// Whether no other key shares `key`'s equality key: no top-level number
/// in it is an integral float at or beyond 2^53, whose group alone holds
/// several exact parts.
pub(crate) fn alone_in_group(key: &[u8]) -> bool {
    let mut at = 0;
    while at < key.len() {
        let Some(len) = encoded_len(&key[at..], true) else {
            return false;
        };
        if key[at] == NUMBER {
            let mut bits = [0u8; 8];
            bits.copy_from_slice(&key[at + 1..at + 9]);
            let bits = u64::from_be_bytes(bits);
            let f = f64::from_bits(if bits >> 63 == 1 {
                bits ^ 1 << 63
            } else {
                !bits
            });
            if f.is_finite() && f.abs() >= (1u64 << 53) as f64 {
                return false;
            }
        }
        at += len;
    }
    true
}

/// The smallest byte string above every string that starts with `prefix`.
pub(crate) fn successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut next = prefix.to_vec();
    while let Some(last) = next.pop() {
        if last < 0xff {
            next.push(last + 1);
            return Some(next);
        }
    }
    None
}

fn escaped(bytes: &[u8], out: &mut Vec<u8>) {
    escaped_open(bytes, out);
    out.extend_from_slice(&[0, 0]);
}

fn escaped_open(bytes: &[u8], out: &mut Vec<u8>) {
    for &b in bytes {
        out.push(b);
        if b == 0 {
            out.push(0xff);
        }
    }
}

fn escaped_len(body: &[u8]) -> Option<usize> {
    let mut at = 0;
    loop {
        match (body.get(at)?, body.get(at + 1)) {
            (0, Some(0)) => return Some(at + 2),
            (0, Some(0xff)) => at += 2,
            (0, _) => return None,
            _ => at += 1,
        }
    }
}

/// IEEE order bits: negative floats reversed below positives; `-0.0` is
/// `0.0` and every NaN one NaN, above infinity (NaN sorts last).
fn float_bits(f: f64) -> u64 {
    let f = if f == 0.0 {
        0.0
    } else if f.is_nan() {
        f64::NAN
    } else {
        f
    };
    let bits = f.to_bits();
    if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    }
}

/// Bytes of a top-level number's exact part.
const EXACT: usize = 2;

/// How far `i` lies from the `f64` it rounds to: within half the spacing
/// of floats at 2^63 (1,024), so an `i16`.
fn off_float(i: i64) -> i16 {
    let base = i as f64 as i128;
    (i128::from(i) - base) as i16
}

/// An exact part's order bits (sign flipped).
fn exact_bits(off: i16) -> u16 {
    (off as u16) ^ (1 << 15)
}

fn int_bits(i: i64) -> u64 {
    (i as u64) ^ (1 << 63)
}

fn nanos_of_day(t: &nereid_values::temporal::chrono::NaiveTime) -> i64 {
    use nereid_values::temporal::chrono::Timelike;
    i64::from(t.num_seconds_from_midnight()) * 1_000_000_000 + i64::from(t.nanosecond())
}

trait DaysFromCe {
    fn num_days_from_ce_(&self) -> i32;
}

impl DaysFromCe for nereid_values::temporal::chrono::NaiveDate {
    fn num_days_from_ce_(&self) -> i32 {
        use nereid_values::temporal::chrono::Datelike;
        self.num_days_from_ce()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nereid_values::compare_for_order;
    use proptest::prelude::*;
    use std::cmp::Ordering;

    fn key(v: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        assert!(encode(v, &mut out));
        out
    }

    fn scalar() -> impl Strategy<Value = Value> {
        prop_oneof![
            any::<i64>().prop_map(Value::Int),
            (-1000i64..1000).prop_map(Value::Int),
            any::<f64>().prop_map(Value::Float),
            (-1000i32..1000).prop_map(|i| Value::Float(f64::from(i) / 4.0)),
            "[a-c\u{0}\u{e9}]{0,4}".prop_map(Value::String),
            any::<bool>().prop_map(Value::Bool),
        ]
    }

    fn value() -> impl Strategy<Value = Value> {
        prop_oneof![
            scalar(),
            prop::collection::vec(scalar(), 0..3).prop_map(|items| Value::List(items.into()))
        ]
    }

    proptest! {
        /// Key order never contradicts `ORDER BY` order (lists may tie
        /// where integers beyond 2^53 inside them share a float), and
        /// equal values (Cypher `=`) share a seek group.
        #[test]
        fn keys_follow_order_by(a in value(), b in value()) {
            let (ka, kb) = (key(&a), key(&b));
            let by_value = compare_for_order(&a, &b);
            let lists = matches!((&a, &b), (Value::List(_), Value::List(_)));
            if by_value != Ordering::Equal && !(lists && ka == kb) {
                prop_assert_eq!(ka.cmp(&kb), by_value, "{:?} vs {:?}", a, b);
            }
            if a.cypher_eq(&b) == Some(true) {
                let g = group(&a).unwrap();
                prop_assert!(kb.starts_with(&g), "{:?} = {:?} but not in its group", a, b);
            }
        }

        /// Composite keys split back into their parts.
        #[test]
        fn parts_delimit_themselves(a in value(), b in value()) {
            let mut k = key(&a);
            let first = k.len();
            k.extend(key(&b));
            prop_assert_eq!(encoded_len(&k, true), Some(first));
            prop_assert_eq!(encoded_len(&k[first..], true), Some(k.len() - first));
        }

        /// A string's group is a prefix of the key of every string it starts.
        #[test]
        fn string_groups_are_prefixes(a in "[a\u{0}b]{0,3}", rest in "[a\u{0}b]{0,3}") {
            let whole = Value::String(format!("{a}{rest}"));
            prop_assert!(key(&whole).starts_with(&group(&Value::String(a)).unwrap()));
        }
    }

    #[test]
    fn successor_of_prefixes() {
        assert_eq!(successor(&[1, 2]), Some(vec![1, 3]));
        assert_eq!(successor(&[1, 0xff]), Some(vec![2]));
        assert_eq!(successor(&[0xff]), None);
    }

    #[test]
    fn exact_parts_fit_two_bytes() {
        for i in [
            i64::MAX,
            i64::MAX - 511,
            i64::MIN,
            i64::MIN + 513,
            (1 << 62) + 511,
        ] {
            let off = i128::from(i) - (i as f64 as i128);
            assert!(i16::try_from(off).is_ok(), "{i}");
            assert_eq!(i128::from(off_float(i)), off);
        }
        assert!(key(&Value::Int(i64::MAX)) < key(&Value::Float(9.3e18)));
        assert!(key(&Value::Int(i64::MAX - 1)) < key(&Value::Int(i64::MAX)));
        assert_eq!(key(&Value::Int(7)), key(&Value::Float(7.0)));
        assert_eq!(key(&Value::Int(7)).len(), 11);
    }

    #[test]
    fn large_integers_sharing_a_float_still_sort() {
        let a = Value::Int((1 << 53) + 1);
        let b = Value::Int((1 << 53) + 2);
        assert_eq!(key(&a).cmp(&key(&b)), Ordering::Less);
        assert_eq!(group(&a), group(&Value::Float((1u64 << 53) as f64)));
    }
}
