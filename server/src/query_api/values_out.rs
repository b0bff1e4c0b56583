//! Result values as the Query API writes them: plain JSON (the default:
//! numbers, strings, lists, maps; entities as objects; temporals, durations
//! and points as strings) or typed JSON (`Accept:
//! application/vnd.neo4j.query`: every value `{"$type", "_value"}`, numbers
//! as strings so none loses precision), in the shapes Neo4j 5's Query API
//! answers with (checked against the reference Neo4j 5.26).

use base64::Engine;
use nereid_values::Point;
use nereid_values::{EntityResolver, PathValue, Value};
use serde_json::{json, Map, Value as Json};
use std::collections::BTreeMap;

/// Which of the two result formats a request asked for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Format {
    Plain,
    Typed,
}

/// How deep a value written as JSON may nest. serde_json serialises and
/// drops its values recursively, on the HTTP worker's stack, so a value a
/// query nested 20,000 levels deep overflowed it and killed the server;
/// Bolt streams such values (PackStream encoding is guarded), the Query
/// API refuses those past this bound: far past any real answer, and small
/// enough that typed JSON (two JSON levels per value level) serialises on
/// a 2 MiB worker stack in a debug build.
pub(crate) const MAX_DEPTH: usize = 200;

/// A value nested deeper than [`MAX_DEPTH`] levels.
#[derive(Debug)]
pub(crate) struct TooDeep;

/// One value in `format`; entities are read through `resolver` (the
/// statement's snapshot). An entity the snapshot no longer has (deleted by
/// the statement) is null, as a driver would see it.
pub(crate) fn to_json(
    value: &Value,
    resolver: &dyn EntityResolver,
    format: Format,
) -> Result<Json, TooDeep> {
    let out = Writer { resolver, format };
    out.value(value, 0)
}

struct Writer<'a> {
    resolver: &'a dyn EntityResolver,
    format: Format,
}

impl Writer<'_> {
    fn value(&self, value: &Value, depth: usize) -> Result<Json, TooDeep> {
        if depth > MAX_DEPTH {
            return Err(TooDeep);
        }
        Ok(match value {
            Value::Null => self.typed("Null", Json::Null, Json::Null),
            Value::Bool(b) => self.typed("Boolean", json!(b), json!(b)),
            Value::Int(i) => self.typed("Integer", json!(i), json!(i.to_string())),
            Value::Float(x) => self.typed("Float", float(*x), json!(float_text(*x))),
            Value::String(s) => self.typed("String", json!(s), json!(s)),
            Value::Bytes(b) => {
                let text = base64::engine::general_purpose::STANDARD.encode(b);
                self.typed("Base64", json!(text), json!(text))
            }
            Value::List(items) => {
                let items = items
                    .iter()
                    .map(|v| nereid_stack::deeper(|| self.value(v, depth + 1)))
                    .collect::<Result<Vec<Json>, TooDeep>>()?;
                self.same_in_both("List", Json::Array(items))
            }
            Value::Map(map) => {
                let map = self.map(map, depth)?;
                self.same_in_both("Map", map)
            }
            Value::Node(id) => match self.resolver.node(*id) {
                Some(node) => self.node(&node.element_id, &node.labels, &node.properties, depth)?,
                None => self.value(&Value::Null, depth)?,
            },
            Value::VirtualNode(node) => {
                self.node(&node.element_id(), &node.labels, &node.properties, depth)?
            }
            Value::Relationship(id) => match self.resolver.relationship(*id) {
                Some(rel) => self.relationship(
                    [&rel.element_id, &rel.start_element_id, &rel.end_element_id],
                    &rel.rel_type,
                    &rel.properties,
                    depth,
                )?,
                None => self.value(&Value::Null, depth)?,
            },
            Value::VirtualRelationship(rel) => self.relationship(
                [
                    &rel.element_id(),
                    &rel.start_element_id(),
                    &rel.end_element_id(),
                ],
                &rel.rel_type,
                &rel.properties,
                depth,
            )?,
            Value::Path(path) => self.path(path, depth)?,
            Value::Date(_) => self.text("Date", value),
            Value::LocalTime(_) => self.text("LocalTime", value),
            Value::Time(_) => self.text("Time", value),
            Value::LocalDateTime(_) => self.text("LocalDateTime", value),
            Value::WideLocal(wide) => match wide.has_time {
                true => self.text("LocalDateTime", value),
                false => self.text("Date", value),
            },
            Value::DateTime(zoned) => {
                let full = with_seconds(&unquoted(value));
                match &zoned.zone {
                    // Plain JSON shows the offset only; typed JSON names the zone.
                    Some(_) => {
                        let offset_only = full.split('[').next().unwrap_or(&full).to_string();
                        self.typed("ZonedDateTime", json!(offset_only), json!(full))
                    }
                    None => self.typed("OffsetDateTime", json!(full), json!(full)),
                }
            }
            Value::Duration(_) => self.text("Duration", value),
            Value::Point(point) => {
                let wkt = wkt(point);
                self.typed("Point", json!(wkt), json!(wkt))
            }
            // Values added to the enum later are written as their text.
            other => self.text("String", other),
        })
    }

    /// `payload` in plain JSON, `{"$type": name, "_value": payload}` in
    /// typed (lists and maps, whose elements carry their own types).
    fn same_in_both(&self, name: &str, payload: Json) -> Json {
        match self.format {
            Format::Plain => payload,
            Format::Typed => json!({ "$type": name, "_value": payload }),
        }
    }

    /// `plain` in plain JSON, `{"$type": name, "_value": typed}` in typed.
    fn typed(&self, name: &str, plain: Json, typed: Json) -> Json {
        match self.format {
            Format::Plain => plain,
            Format::Typed => json!({ "$type": name, "_value": typed }),
        }
    }

    /// A value whose both forms are its ISO text.
    fn text(&self, name: &str, value: &Value) -> Json {
        let text = with_seconds(&unquoted(value));
        self.typed(name, json!(text), json!(text))
    }

    fn map(&self, map: &BTreeMap<String, Value>, depth: usize) -> Result<Json, TooDeep> {
        let entries = map
            .iter()
            .map(|(k, v)| {
                Ok((
                    k.clone(),
                    nereid_stack::deeper(|| self.value(v, depth + 1))?,
                ))
            })
            .collect::<Result<Map<String, Json>, TooDeep>>()?;
        Ok(Json::Object(entries))
    }

    /// A stored or virtual node, from its parts.
    fn node(
        &self,
        element_id: &str,
        labels: &[String],
        properties: &BTreeMap<String, Value>,
        depth: usize,
    ) -> Result<Json, TooDeep> {
        let properties = self.map(properties, depth)?;
        Ok(match self.format {
            Format::Plain => json!({
                "elementId": element_id,
                "labels": labels,
                "properties": properties,
            }),
            Format::Typed => json!({ "$type": "Node", "_value": {
                "_element_id": element_id,
                "_labels": labels,
                "_properties": properties,
            }}),
        })
    }

    /// A stored or virtual relationship, from its parts: the element ids
    /// are its own, its start node's and its end node's.
    fn relationship(
        &self,
        [element_id, start, end]: [&String; 3],
        rel_type: &str,
        properties: &BTreeMap<String, Value>,
        depth: usize,
    ) -> Result<Json, TooDeep> {
        let properties = self.map(properties, depth)?;
        Ok(match self.format {
            Format::Plain => json!({
                "elementId": element_id,
                "startNodeElementId": start,
                "endNodeElementId": end,
                "type": rel_type,
                "properties": properties,
            }),
            Format::Typed => json!({ "$type": "Relationship", "_value": {
                "_element_id": element_id,
                "_start_node_element_id": start,
                "_end_node_element_id": end,
                "_type": rel_type,
                "_properties": properties,
            }}),
        })
    }

    /// Nodes and relationships alternating, from the path's start.
    fn path(&self, path: &PathValue, depth: usize) -> Result<Json, TooDeep> {
        let mut items = Vec::with_capacity(path.nodes.len() + path.rels.len());
        for (i, node) in path.nodes.iter().enumerate() {
            if i > 0 {
                items.push(self.value(&Value::Relationship(path.rels[i - 1]), depth + 1)?);
            }
            items.push(self.value(&Value::Node(*node), depth + 1)?);
        }
        Ok(match self.format {
            Format::Plain => Json::Array(items),
            Format::Typed => json!({ "$type": "Path", "_value": items }),
        })
    }
}

/// A float as a JSON number; the non-finite ones (which JSON cannot hold)
/// as their names.
fn float(x: f64) -> Json {
    serde_json::Number::from_f64(x).map_or_else(|| json!(float_text(x)), Json::Number)
}

/// Java's spelling of a double for typed JSON (`1.0`, `0.5`, `NaN`).
fn float_text(x: f64) -> String {
    if x.is_nan() {
        "NaN".into()
    } else if x.is_infinite() {
        if x > 0.0 { "Infinity" } else { "-Infinity" }.into()
    } else if x == x.trunc() && x.abs() < 1e16 {
        format!("{x:.1}")
    } else {
        format!("{x}")
    }
}

/// A time of day always with its seconds and with no trailing zeros in
/// their fraction (`10:00` -> `10:00:00`, `32.500` -> `32.5`), as Neo4j's
/// Query API writes temporals; Cypher's `toString` text drops zero seconds
/// and keeps millisecond groups. Text without a time is unchanged.
fn with_seconds(text: &str) -> String {
    let (text, zone) = text.split_at(text.find('[').unwrap_or(text.len()));
    let time_from = match text.find('T') {
        Some(t) => t + 1,
        None if text.len() > 2 && text.as_bytes()[2] == b':' => 0,
        None => return format!("{text}{zone}"),
    };
    let (date, time) = text.split_at(time_from);
    let bytes = time.as_bytes();
    // `HH:MM` then seconds, a fraction, an offset or the end (a duration's
    // `PT4H` is not a time of day).
    if text.starts_with('P') || bytes.len() < 5 || bytes[2] != b':' {
        return format!("{text}{zone}");
    }
    let mut out = format!("{date}{}", &time[..5]);
    let mut rest = &time[5..];
    if let Some(seconds) = rest.strip_prefix(':') {
        let digits = seconds.bytes().take_while(u8::is_ascii_digit).count();
        out.push(':');
        out.push_str(&seconds[..digits]);
        rest = &seconds[digits..];
        if let Some(fraction) = rest.strip_prefix('.') {
            let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
            let kept = fraction[..digits].trim_end_matches('0');
            if !kept.is_empty() {
                out.push('.');
                out.push_str(kept);
            }
            rest = &fraction[digits..];
        }
    } else {
        out.push_str(":00");
    }
    format!("{out}{rest}{zone}")
}

/// A value's Cypher text without the quotes temporals print with.
fn unquoted(value: &Value) -> String {
    let text = value.to_string();
    text.trim_matches('\'').to_string()
}

/// Well-known text with the SRID, as Neo4j writes points:
/// `SRID=7203;POINT (1.0 2.0)`, `SRID=4979;POINT Z (2.0 1.5 3.0)`.
pub(crate) fn wkt(point: &Point) -> String {
    let srid = point.crs().srid();
    match point.z() {
        Some(z) => format!(
            "SRID={srid};POINT Z ({} {} {})",
            float_text(point.x()),
            float_text(point.y()),
            float_text(z)
        ),
        None => format!(
            "SRID={srid};POINT ({} {})",
            float_text(point.x()),
            float_text(point.y())
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::with_seconds;

    #[test]
    fn times_always_show_seconds_and_no_trailing_zeros() {
        for (cypher, neo4j) in [
            ("2024-01-02", "2024-01-02"),
            ("10:00", "10:00:00"),
            ("10:00+01:00", "10:00:00+01:00"),
            ("10:00:01", "10:00:01"),
            (
                "2024-01-01T00:00+01:00[Europe/Paris]",
                "2024-01-01T00:00:00+01:00[Europe/Paris]",
            ),
            (
                "2024-01-01T21:40:32.500-01:00",
                "2024-01-01T21:40:32.5-01:00",
            ),
            ("2024-01-01T21:40:32.000Z", "2024-01-01T21:40:32Z"),
            ("2024-01-01T10:00", "2024-01-01T10:00:00"),
            ("P1Y2M3DT4H5M6.5S", "P1Y2M3DT4H5M6.5S"),
        ] {
            assert_eq!(with_seconds(cypher), neo4j, "{cypher}");
        }
    }
}
