//! Conversion between wire values and [`Value`]s, for query parameters.
//!
//! Graph structures are refused as parameters: an entity is identified by
//! the server's snapshot, and a client-built Node structure would be a
//! forgery with no meaning in the query.

use crate::marker::tag;
use crate::{PackMap, PackValue, ParamError};
use nereid_values::Value;
use std::collections::BTreeMap;

/// Converts a client-sent value into a query parameter value.
pub fn pack_to_value(value: PackValue) -> Result<Value, ParamError> {
    Ok(match value {
        PackValue::Null => Value::Null,
        PackValue::Bool(b) => Value::Bool(b),
        PackValue::Int(i) => Value::Int(i),
        PackValue::Float(f) => Value::Float(f),
        PackValue::Bytes(b) => Value::Bytes(b),
        PackValue::String(s) => Value::String(s),
        PackValue::List(items) => Value::List(
            items
                .into_iter()
                .map(pack_to_value)
                .collect::<Result<_, _>>()?,
        ),
        PackValue::Map(map) => Value::Map(
            map.into_iter()
                .map(|(k, v)| Ok((k, pack_to_value(v)?)))
                .collect::<Result<BTreeMap<_, _>, ParamError>>()?,
        ),
        PackValue::Struct { tag: t, fields } => match crate::temporal::from_struct(t, &fields)
            .or_else(|| crate::spatial::from_struct(t, &fields))
        {
            Some(value) => value?,
            None => return Err(structure_error(t)),
        },
    })
}

fn structure_error(t: u8) -> ParamError {
    match t {
        tag::NODE => ParamError::Entity("Node"),
        tag::RELATIONSHIP => ParamError::Entity("Relationship"),
        tag::UNBOUND_RELATIONSHIP => ParamError::Entity("UnboundRelationship"),
        tag::PATH => ParamError::Entity("Path"),
        other => ParamError::UnsupportedStructure {
            tag: other,
            name: structure_name(other),
        },
    }
}

/// The Bolt name of a structure tag, for messages.
pub fn structure_name(t: u8) -> &'static str {
    match t {
        tag::DATE => "Date",
        tag::TIME => "Time",
        tag::LOCAL_TIME => "LocalTime",
        tag::DATE_TIME | tag::LEGACY_DATE_TIME => "DateTime",
        tag::DATE_TIME_ZONE_ID | tag::LEGACY_DATE_TIME_ZONE_ID => "DateTimeZoneId",
        tag::LOCAL_DATE_TIME => "LocalDateTime",
        tag::DURATION => "Duration",
        tag::POINT_2D => "Point2D",
        tag::POINT_3D => "Point3D",
        tag::NODE => "Node",
        tag::RELATIONSHIP => "Relationship",
        tag::UNBOUND_RELATIONSHIP => "UnboundRelationship",
        tag::PATH => "Path",
        _ => "unknown",
    }
}

/// Converts an entity-free value to its wire form. Entities need a resolver
/// (see [`crate::result`]) and are refused here.
pub fn value_to_pack(value: &Value) -> Result<PackValue, ParamError> {
    Ok(match value {
        Value::Null => PackValue::Null,
        Value::Bool(b) => PackValue::Bool(*b),
        Value::Int(i) => PackValue::Int(*i),
        Value::Float(f) => PackValue::Float(*f),
        Value::String(s) => PackValue::String(s.clone()),
        Value::Bytes(b) => PackValue::Bytes(b.clone()),
        Value::List(items) => {
            PackValue::List(items.iter().map(value_to_pack).collect::<Result<_, _>>()?)
        }
        Value::Map(map) => {
            let mut out = PackMap::new();
            for (k, v) in map {
                out.insert(k.clone(), value_to_pack(v)?);
            }
            PackValue::Map(out)
        }
        Value::Node(_) | Value::VirtualNode(_) => return Err(ParamError::Entity("Node")),
        Value::Relationship(_) | Value::VirtualRelationship(_) => {
            return Err(ParamError::Entity("Relationship"))
        }
        Value::Path(_) => return Err(ParamError::Entity("Path")),
        other => match crate::temporal::to_pack(other).or_else(|| crate::spatial::to_pack(other)) {
            Some(structure) => structure,
            None => return Err(ParamError::Unsupported(other.type_name())),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_parameters_convert_and_entities_are_refused() {
        let map = PackMap::new()
            .with(
                "xs",
                PackValue::List(vec![PackValue::Int(1), PackValue::Null]),
            )
            .with("name", "a");
        let value = pack_to_value(PackValue::Map(map)).unwrap();
        let Value::Map(m) = &value else {
            panic!("expected a map, got {value:?}")
        };
        assert_eq!(m.get("name"), Some(&Value::from("a")));
        assert_eq!(
            m.get("xs"),
            Some(&Value::List(vec![Value::Int(1), Value::Null].into()))
        );
        assert_eq!(
            value_to_pack(&value).map(pack_to_value),
            Ok(Ok(value.clone()))
        );

        let node = PackValue::Struct {
            tag: tag::NODE,
            fields: vec![PackValue::Int(0)],
        };
        let err = pack_to_value(PackValue::List(vec![node])).unwrap_err();
        assert_eq!(err, ParamError::Entity("Node"));
        assert!(err
            .to_string()
            .contains("Node cannot be used as a parameter"));
        let date = PackValue::Struct {
            tag: tag::DATE,
            fields: vec![PackValue::Int(1)],
        };
        assert_eq!(
            pack_to_value(date).map(|v| v.to_string()),
            Ok("'1970-01-02'".to_string())
        );
        let point = PackValue::Struct {
            tag: tag::POINT_2D,
            fields: vec![
                PackValue::Int(7203),
                PackValue::Float(1.0),
                PackValue::Float(2.0),
            ],
        };
        assert_eq!(
            pack_to_value(point).map(|v| v.to_string()),
            Ok("point({x: 1.0, y: 2.0, crs: 'cartesian'})".to_string())
        );
        let unknown = PackValue::Struct {
            tag: 0x21,
            fields: vec![],
        };
        assert!(matches!(
            pack_to_value(unknown),
            Err(ParamError::UnsupportedStructure {
                name: "unknown",
                ..
            })
        ));
        assert_eq!(
            value_to_pack(&Value::Node(nereid_values::NodeId(1))),
            Err(ParamError::Entity("Node"))
        );
    }
}
