//! The spatial functions (`point`, `point.distance`, `point.withinBBox`) and
//! point component access (`p.x`, `p.latitude`, `p.crs`, ...), with Neo4j's
//! rules: a null argument or coordinate gives null, points of different
//! coordinate reference systems have no distance (null), and a map naming
//! no valid CRS is an argument error.

use crate::error::{type_mismatch, ExecError, ExecResult};
use nereid_planner::SpatialFunction;
use nereid_values::{Crs, Point, Value};
use std::collections::BTreeMap;

/// Calls `func` on one row's (already arity-checked) arguments.
pub fn call(func: SpatialFunction, args: &[Value]) -> ExecResult<Value> {
    if args.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    match func {
        SpatialFunction::Point => match args.first() {
            Some(Value::Map(map)) => from_map(map),
            Some(other) => Err(type_mismatch("Map", other)),
            None => Ok(Value::Null),
        },
        SpatialFunction::Distance => {
            let [a, b] = points::<2>(args)?;
            Ok(a.distance(&b).map_or(Value::Null, Value::Float))
        }
        SpatialFunction::WithinBBox => {
            let [p, lower_left, upper_right] = points::<3>(args)?;
            Ok(p.within_bbox(&lower_left, &upper_right)
                .map_or(Value::Null, Value::Bool))
        }
    }
}

fn points<const N: usize>(args: &[Value]) -> ExecResult<[Point; N]> {
    let mut out = [Point::new(Crs::Cartesian, 0.0, 0.0, None).ok_or_else(internal)?; N];
    for (slot, arg) in out.iter_mut().zip(args) {
        *slot = match arg {
            Value::Point(p) => *p,
            other => return Err(type_mismatch("Point", other)),
        };
    }
    Ok(out)
}

fn internal() -> ExecError {
    ExecError::Argument("internal: invalid default point".to_string())
}

fn argument(message: String) -> ExecError {
    ExecError::Argument(message)
}

/// `point({x, y[, z][, crs | srid]})` or `point({longitude, latitude[,
/// height][, crs | srid]})`. Keys are matched case-insensitively, as Neo4j
/// does.
fn from_map(map: &BTreeMap<String, Value>) -> ExecResult<Value> {
    let get = |key: &str| {
        map.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v)
    };
    let cartesian_keys = [get("x"), get("y"), get("z")];
    let geographic_keys = [get("longitude"), get("latitude"), get("height")];
    let geographic = geographic_keys[0].is_some() || geographic_keys[1].is_some();
    if geographic && (cartesian_keys[0].is_some() || cartesian_keys[1].is_some()) {
        return Err(argument(
            "A point must be given either x and y or longitude and latitude, not both".into(),
        ));
    }
    let [x, y, z] = if geographic {
        geographic_keys
    } else {
        cartesian_keys
    };
    let (Some(x), Some(y)) = (x, y) else {
        return Err(argument(format!(
            "A map with keys {:?} is not describing a valid point, a point is described either by using cartesian coordinates e.g. {{x: 2.3, y: 4.5, crs: 'cartesian'}} or using geographic coordinates e.g. {{latitude: 12.78, longitude: 56.7, crs: 'WGS-84'}}.",
            map.keys().collect::<Vec<_>>()
        )));
    };
    if [Some(x), Some(y), z]
        .into_iter()
        .flatten()
        .any(Value::is_null)
    {
        return Ok(Value::Null);
    }
    let number = |v: &Value| match v {
        Value::Int(i) => Ok(*i as f64),
        Value::Float(f) => Ok(*f),
        other => Err(type_mismatch("Float", other)),
    };
    let (x, y) = (number(x)?, number(y)?);
    let z = z.map(number).transpose()?;
    let crs = match (get("crs"), get("srid")) {
        (Some(_), Some(_)) => {
            return Err(argument(
                "`crs` and `srid` cannot both be given for a point".into(),
            ))
        }
        (Some(Value::String(name)), None) => Crs::from_name(name)
            .ok_or_else(|| argument(format!("Unknown coordinate reference system: {name}")))?,
        (None, Some(Value::Int(srid))) => Crs::from_srid(*srid)
            .ok_or_else(|| argument(format!("Unknown coordinate reference system code: {srid}")))?,
        (Some(Value::Null), None) | (None, Some(Value::Null)) => return Ok(Value::Null),
        (Some(other), None) => return Err(type_mismatch("String", other)),
        (None, Some(other)) => return Err(type_mismatch("Integer", other)),
        (None, None) => match (geographic, z.is_some()) {
            (false, false) => Crs::Cartesian,
            (false, true) => Crs::Cartesian3D,
            (true, false) => Crs::Wgs84,
            (true, true) => Crs::Wgs84_3D,
        },
    };
    if crs.is_geographic() && !(-90.0..=90.0).contains(&y) {
        return Err(argument(format!(
            "Cannot create WGS84 point with invalid coordinate: [{x}, {y}]. Valid range for Y coordinate is [-90, 90]."
        )));
    }
    if crs.is_geographic() && !(-180.0..=180.0).contains(&x) {
        return Err(argument(format!(
            "Cannot create WGS84 point with invalid coordinate: [{x}, {y}]. Valid range for X coordinate is [-180, 180]."
        )));
    }
    Point::new(crs, x, y, z).map(Value::Point).ok_or_else(|| {
        argument(format!(
            "Cannot create a point with {} coordinates in the {}-dimensional coordinate reference system '{}'",
            if z.is_some() { 3 } else { 2 },
            if crs.is_3d() { 3 } else { 2 },
            crs.name()
        ))
    })
}

/// `p.x`, `p.longitude`, `p.crs`, ...: a component the point does not have
/// (`z` of a 2D point, `latitude` of a Cartesian one) is an error, as in
/// Neo4j.
pub fn component(point: &Point, key: &str) -> ExecResult<Value> {
    let crs = point.crs();
    let found = match key {
        "x" => Some(point.x()),
        "y" => Some(point.y()),
        "z" => point.z(),
        "longitude" if crs.is_geographic() => Some(point.x()),
        "latitude" if crs.is_geographic() => Some(point.y()),
        "height" if crs.is_geographic() => point.z(),
        "crs" => return Ok(Value::String(crs.name().to_string())),
        "srid" => return Ok(Value::Int(crs.srid())),
        _ => None,
    };
    found.map(Value::Float).ok_or_else(|| {
        argument(format!(
            "InvalidArgumentType: Field: {key} is not available on point {point}"
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(entries: &[(&str, Value)]) -> Value {
        Value::Map(
            entries
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    fn point(entries: &[(&str, Value)]) -> ExecResult<Value> {
        call(SpatialFunction::Point, &[map(entries)])
    }

    #[test]
    fn point_picks_the_crs_from_the_keys() {
        let p = point(&[("x", Value::Int(1)), ("y", Value::Float(2.5))]).unwrap();
        assert_eq!(p.to_string(), "point({x: 1.0, y: 2.5, crs: 'cartesian'})");
        let p = point(&[
            ("longitude", Value::Int(12)),
            ("latitude", Value::Int(56)),
            ("height", Value::Int(100)),
        ])
        .unwrap();
        let Value::Point(p) = p else { panic!("{p:?}") };
        assert_eq!(p.crs(), Crs::Wgs84_3D);
        let p = point(&[
            ("x", Value::Int(1)),
            ("y", Value::Int(2)),
            ("srid", Value::Int(4326)),
        ])
        .unwrap();
        assert_eq!(component_of(&p, "crs"), Value::from("wgs-84"));
        assert_eq!(component_of(&p, "latitude"), Value::Float(2.0));
    }

    fn component_of(v: &Value, key: &str) -> Value {
        match v {
            Value::Point(p) => component(p, key).unwrap(),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn invalid_points_are_argument_errors_and_nulls_propagate() {
        let bad = [
            vec![("x", Value::Int(1))],
            vec![
                ("x", Value::Int(1)),
                ("y", Value::Int(2)),
                ("crs", Value::from("mars")),
            ],
            vec![
                ("x", Value::Int(1)),
                ("y", Value::Int(2)),
                ("srid", Value::Int(9157)),
            ],
            vec![("longitude", Value::Int(1)), ("latitude", Value::Int(91))],
            vec![("x", Value::Int(1)), ("latitude", Value::Int(1))],
        ];
        for entries in bad {
            assert!(
                matches!(point(&entries), Err(ExecError::Argument(_))),
                "{entries:?}"
            );
        }
        assert!(matches!(
            point(&[("x", Value::from("1")), ("y", Value::Int(2))]),
            Err(ExecError::Type(_))
        ));
        assert_eq!(
            point(&[("x", Value::Null), ("y", Value::Int(2))]).unwrap(),
            Value::Null
        );
        assert_eq!(
            call(SpatialFunction::Point, &[Value::Null]).unwrap(),
            Value::Null
        );
    }

    #[test]
    fn distance_and_bbox_need_points_of_one_crs() {
        let a = point(&[("x", Value::Int(0)), ("y", Value::Int(0))]).unwrap();
        let b = point(&[("x", Value::Int(3)), ("y", Value::Int(4))]).unwrap();
        let g = point(&[("longitude", Value::Int(3)), ("latitude", Value::Int(4))]).unwrap();
        assert_eq!(
            call(SpatialFunction::Distance, &[a.clone(), b.clone()]).unwrap(),
            Value::Float(5.0)
        );
        assert_eq!(
            call(SpatialFunction::Distance, &[a.clone(), g.clone()]).unwrap(),
            Value::Null
        );
        assert_eq!(
            call(
                SpatialFunction::WithinBBox,
                &[a.clone(), a.clone(), b.clone()]
            )
            .unwrap(),
            Value::Bool(true)
        );
        assert!(call(SpatialFunction::Distance, &[a, Value::Int(1)]).is_err());
        let Value::Point(p) = b else { panic!() };
        assert!(component(&p, "z").is_err());
        assert!(component(&p, "latitude").is_err());
    }
}
