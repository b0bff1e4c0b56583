//! Points on the wire: the Bolt Point2D (`X`: srid, x, y) and Point3D
//! (`Y`: srid, x, y, z) structures, identical in every Bolt version.
//!
//! Only the four srids Neo4j knows (7203, 9157, 4326, 4979) are accepted
//! from clients, and the structure's dimension must match the srid's.

use crate::encode::{write_float, write_int, write_struct_header};
use crate::marker::tag;
use crate::{EncodeError, PackValue, ParamError};
use nereid_values::{Crs, Point, Value};

/// Writes a point as its Bolt structure; `Ok(false)` for any other value.
pub fn write(value: &Value, out: &mut Vec<u8>) -> Result<bool, EncodeError> {
    let Value::Point(p) = value else {
        return Ok(false);
    };
    match p.z() {
        Some(z) => {
            write_struct_header(out, tag::POINT_3D, 4)?;
            write_int(out, p.crs().srid());
            write_float(out, p.x());
            write_float(out, p.y());
            write_float(out, z);
        }
        None => {
            write_struct_header(out, tag::POINT_2D, 3)?;
            write_int(out, p.crs().srid());
            write_float(out, p.x());
            write_float(out, p.y());
        }
    }
    Ok(true)
}

/// A point as a [`PackValue`] structure; `None` for any other value.
pub fn to_pack(value: &Value) -> Option<PackValue> {
    let Value::Point(p) = value else {
        return None;
    };
    let mut fields = vec![
        PackValue::Int(p.crs().srid()),
        PackValue::Float(p.x()),
        PackValue::Float(p.y()),
    ];
    let t = match p.z() {
        Some(z) => {
            fields.push(PackValue::Float(z));
            tag::POINT_3D
        }
        None => tag::POINT_2D,
    };
    Some(PackValue::Struct { tag: t, fields })
}

/// Converts a client-sent point structure; `None` when `t` is not a point
/// tag. Integer coordinates are accepted as floats (some clients send them).
pub fn from_struct(t: u8, fields: &[PackValue]) -> Option<Result<Value, ParamError>> {
    let dims = match t {
        tag::POINT_2D => 2,
        tag::POINT_3D => 3,
        _ => return None,
    };
    let coordinate = |i: usize| match fields.get(i) {
        Some(PackValue::Float(f)) => Some(*f),
        Some(PackValue::Int(n)) => Some(*n as f64),
        _ => None,
    };
    let point = (|| {
        if fields.len() != dims + 1 {
            return None;
        }
        let PackValue::Int(srid) = fields.first()? else {
            return None;
        };
        let crs = Crs::from_srid(*srid)?;
        let z = if dims == 3 {
            Some(coordinate(3)?)
        } else {
            None
        };
        Point::new(crs, coordinate(1)?, coordinate(2)?, z)
    })();
    Some(
        point
            .map(Value::Point)
            .ok_or(ParamError::UnsupportedStructure {
            tag: t,
            name: "malformed point (srid must be 7203, 9157, 4326 or 4979 and match the dimension)",
        }),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::from_slice;

    #[test]
    fn points_round_trip_as_their_structures() {
        let points = [
            Point::new(Crs::Cartesian, 1.0, -2.5, None).unwrap(),
            Point::new(Crs::Wgs84, 12.5, 56.25, None).unwrap(),
            Point::new(Crs::Cartesian3D, 1.0, 2.0, Some(3.0)).unwrap(),
            Point::new(Crs::Wgs84_3D, 12.5, 56.25, Some(100.0)).unwrap(),
        ];
        for p in points {
            let v = Value::Point(p);
            let mut out = Vec::new();
            assert!(write(&v, &mut out).unwrap());
            let PackValue::Struct { tag: t, fields } = from_slice(&out).unwrap() else {
                panic!("not a structure")
            };
            assert_eq!(
                Some(PackValue::Struct {
                    tag: t,
                    fields: fields.clone()
                }),
                to_pack(&v)
            );
            assert_eq!(from_struct(t, &fields).unwrap(), Ok(v));
        }
    }

    #[test]
    fn point2d_has_the_documented_bytes() {
        let mut out = Vec::new();
        let p = Point::new(Crs::Cartesian, 1.0, 2.0, None).unwrap();
        write(&Value::Point(p), &mut out).unwrap();
        let mut expected = vec![0xB3, 0x58, 0xC9, 0x1C, 0x23, 0xC1];
        expected.extend_from_slice(&1.0f64.to_be_bytes());
        expected.push(0xC1);
        expected.extend_from_slice(&2.0f64.to_be_bytes());
        assert_eq!(out, expected);
    }

    #[test]
    fn unknown_srids_and_wrong_dimensions_are_refused() {
        let f = |x: f64| PackValue::Float(x);
        let bad = [
            (tag::POINT_2D, vec![PackValue::Int(1234), f(1.0), f(2.0)]),
            (tag::POINT_2D, vec![PackValue::Int(9157), f(1.0), f(2.0)]),
            (tag::POINT_3D, vec![PackValue::Int(9157), f(1.0), f(2.0)]),
            (tag::POINT_2D, vec![f(7203.0), f(1.0), f(2.0)]),
            (
                tag::POINT_2D,
                vec![PackValue::Int(7203), PackValue::Null, f(2.0)],
            ),
        ];
        for (t, fields) in bad {
            assert!(matches!(
                from_struct(t, &fields),
                Some(Err(ParamError::UnsupportedStructure { .. }))
            ));
        }
        assert!(from_struct(tag::DATE, &[]).is_none());
    }
}
