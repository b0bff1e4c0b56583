//! The stable binary form of the values that have no primitive storage
//! representation of their own: temporal values (kinds 1-6, see
//! [`crate::temporal_codec`]) and points (kinds 7-8, below). Storage and the
//! log persist property values through [`encode`] / [`decode`], so a new
//! kind of value becomes storable by adding a kind here.
//!
//! Point layout (little-endian): kind 7 (2D) or 8 (3D), u16 srid, then the
//! coordinates as f64 bits (x, y[, z]).
//!
//! Invariant: the form is stable (it is written to disk); add kinds, never
//! change existing ones, and never reuse a kind byte.

use crate::spatial::{Crs, Point};
use crate::{temporal_codec, Value};

const K_POINT_2D: u8 = 7;
const K_POINT_3D: u8 = 8;

/// The binary form of `value`; `None` for values outside this codec
/// (primitives, lists, maps, entities).
pub fn encode(value: &Value) -> Option<Vec<u8>> {
    match value {
        Value::Point(p) => {
            let mut out = Vec::with_capacity(27);
            out.push(if p.z().is_some() {
                K_POINT_3D
            } else {
                K_POINT_2D
            });
            out.extend_from_slice(&u16::try_from(p.crs().srid()).ok()?.to_le_bytes());
            for c in p.coordinates() {
                out.extend_from_slice(&c.to_bits().to_le_bytes());
            }
            Some(out)
        }
        other => temporal_codec::encode(other),
    }
}

/// Reads a form written by [`encode`]; `None` if it is malformed.
pub fn decode(form: &[u8]) -> Option<Value> {
    let (&kind, rest) = form.split_first()?;
    let dims = match kind {
        K_POINT_2D => 2,
        K_POINT_3D => 3,
        _ => return temporal_codec::decode(form),
    };
    if rest.len() != 2 + 8 * dims {
        return None;
    }
    let (srid, coords) = rest.split_at(2);
    let crs = Crs::from_srid(i64::from(u16::from_le_bytes(srid.try_into().ok()?)))?;
    let mut c = coords
        .chunks_exact(8)
        .map(|b| b.try_into().map(|b| f64::from_bits(u64::from_le_bytes(b))));
    let x = c.next()?.ok()?;
    let y = c.next()?.ok()?;
    let z = c.next().transpose().ok()?;
    Point::new(crs, x, y, z).map(Value::Point)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_and_temporals_round_trip() {
        let values = [
            Value::Point(Point::new(Crs::Cartesian, 1.5, -2.0, None).unwrap()),
            Value::Point(Point::new(Crs::Wgs84_3D, 12.5, 56.0, Some(100.0)).unwrap()),
            Value::Duration(crate::Duration {
                months: 1,
                days: 2,
                seconds: 3,
                nanos: 4,
            }),
        ];
        for v in values {
            assert!(v.has_binary_form());
            let form = encode(&v).unwrap();
            assert_eq!(decode(&form), Some(v.clone()), "{v:?}");
            assert_eq!(decode(&form[..form.len() - 1]), None);
        }
    }

    #[test]
    fn malformed_points_are_refused() {
        // Unknown srid 1234.
        let mut form = vec![K_POINT_2D];
        form.extend_from_slice(&1234u16.to_le_bytes());
        form.extend_from_slice(&[0; 16]);
        assert_eq!(decode(&form), None);
        // A 3D srid in a 2D form.
        form[1..3].copy_from_slice(&9157u16.to_le_bytes());
        assert_eq!(decode(&form), None);
        assert_eq!(encode(&Value::Int(1)), None);
    }
}
