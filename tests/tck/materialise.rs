//! Our values in TCK form: entities are read through the transaction's [`EntityResolver`]
//! while the row is at hand, so results compare by labels, types and properties, never by id.

use crate::value::{TckNode, TckPath, TckRel, TckValue};
use nereid_values::{EntityResolver, NodeId, RelId, Value};
use std::collections::BTreeMap;

/// `v` in TCK form. A value kind the TCK notation has no syntax for (temporal and spatial
/// values, byte arrays) becomes its display string without quotes, which is how the TCK's
/// tables write temporal results (`'1984-10-11'`).
pub fn from_value(v: &Value, r: &dyn EntityResolver) -> TckValue {
    match v {
        Value::Null => TckValue::Null,
        Value::Bool(b) => TckValue::Bool(*b),
        Value::Int(i) => TckValue::Int(*i),
        Value::Float(x) => TckValue::Float(*x),
        Value::String(s) => TckValue::String(s.clone()),
        Value::List(items) => TckValue::List(items.iter().map(|x| from_value(x, r)).collect()),
        Value::Map(m) => TckValue::Map(props(m, r)),
        Value::Node(id) => TckValue::Node(node(*id, r)),
        Value::Relationship(id) => TckValue::Rel(rel(*id, r)),
        Value::Path(p) => {
            let start = node(p.nodes[0], r);
            let steps = p
                .rels
                .iter()
                .zip(p.nodes.windows(2))
                .map(|(rid, pair)| {
                    let forward = r.relationship(*rid).is_none_or(|x| x.start == pair[0]);
                    (rel(*rid, r), forward, node(pair[1], r))
                })
                .collect();
            TckValue::Path(TckPath { start, steps })
        }
        #[allow(unreachable_patterns)]
        other => {
            let text = other.to_string();
            let unquoted = text
                .strip_prefix('\'')
                .and_then(|t| t.strip_suffix('\''))
                .unwrap_or(&text);
            TckValue::String(unquoted.to_string())
        }
    }
}

fn props(m: &BTreeMap<String, Value>, r: &dyn EntityResolver) -> BTreeMap<String, TckValue> {
    m.iter()
        .map(|(k, v)| (k.clone(), from_value(v, r)))
        .collect()
}

/// A node that the snapshot no longer holds (deleted in this transaction) shows as `()`.
fn node(id: NodeId, r: &dyn EntityResolver) -> TckNode {
    match r.node(id) {
        Some(n) => TckNode {
            labels: n.labels.iter().cloned().collect(),
            props: props(&n.properties, r),
        },
        None => TckNode {
            labels: Default::default(),
            props: Default::default(),
        },
    }
}

fn rel(id: RelId, r: &dyn EntityResolver) -> TckRel {
    match r.relationship(id) {
        Some(x) => TckRel {
            rel_type: x.rel_type,
            props: props(&x.properties, r),
        },
        None => TckRel {
            rel_type: String::new(),
            props: Default::default(),
        },
    }
}

/// A parameter value: the TCK only passes plain values (no entities) as parameters.
pub fn to_value(v: &TckValue) -> Result<Value, String> {
    Ok(match v {
        TckValue::Null => Value::Null,
        TckValue::Bool(b) => Value::Bool(*b),
        TckValue::Int(i) => Value::Int(*i),
        TckValue::Float(x) => Value::Float(*x),
        TckValue::String(s) => Value::String(s.clone()),
        TckValue::List(items) => Value::List(items.iter().map(to_value).collect::<Result<_, _>>()?),
        TckValue::Map(m) => Value::Map(
            m.iter()
                .map(|(k, v)| Ok((k.clone(), to_value(v)?)))
                .collect::<Result<_, String>>()?,
        ),
        TckValue::Node(_) | TckValue::Rel(_) | TckValue::Path(_) => {
            return Err(format!("an entity cannot be a parameter: {v}"))
        }
    })
}
