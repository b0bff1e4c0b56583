//! Reading into values: property access, label tests, list/map subscripts,
//! list slices and path construction.

use crate::error::{deleted_entity, type_mismatch, type_mismatch_as, ExecError, ExecResult};
use crate::graph::GraphRead;
use nereid_values::{NodeId, PathValue, RelId, Value};
use std::collections::BTreeMap;

/// `base.key` on a node, relationship or map. A missing property is null;
/// on an entity this transaction deleted it is `DeletedEntityAccess`.
pub fn property(graph: &dyn GraphRead, base: &Value, key: &str) -> ExecResult<Value> {
    let found = match base {
        Value::Null => None,
        Value::Node(id) => return node_property_found(graph, *id, graph.node_property(*id, key)),
        Value::Relationship(id) => {
            return rel_property_found(graph, *id, graph.rel_property(*id, key))
        }
        Value::Map(map) => map.get(key).cloned(),
        Value::VirtualNode(node) => node.properties.get(key).cloned(),
        Value::VirtualRelationship(rel) => rel.properties.get(key).cloned(),
        temporal if temporal.is_temporal() => Some(super::temporal::component(temporal, key)?),
        Value::Point(point) => Some(super::spatial::component(point, key)?),
        other => return Err(type_mismatch("Map, Node or Relationship", other)),
    };
    Ok(found.unwrap_or(Value::Null))
}

/// [`property`] over a batch's column: the nodes' values are read together
/// ([`GraphRead::node_property_column`]), and so are the relationships'
/// ([`GraphRead::rel_property_column`]); every other base row by row.
pub fn property_column(
    graph: &dyn GraphRead,
    bases: &[Value],
    key: &str,
) -> ExecResult<Vec<Value>> {
    property_column_with(graph, bases, key, |nodes| {
        graph.node_property_column(nodes, key)
    })
}

/// [`property_column`] with the nodes' values read by `read_nodes`
/// (aligned with its input): a nested plan's remembered values
/// (`node_facts_memo.rs`).
pub(crate) fn property_column_with(
    graph: &dyn GraphRead,
    bases: &[Value],
    key: &str,
    read_nodes: impl FnOnce(&[NodeId]) -> Vec<Option<Value>>,
) -> ExecResult<Vec<Value>> {
    let mut nodes = Vec::new();
    let mut rels = Vec::new();
    for base in bases {
        match base {
            Value::Node(id) => nodes.push(*id),
            Value::Relationship(id) => rels.push(*id),
            _ => {}
        }
    }
    if nodes.len() + rels.len() < 2 {
        return bases
            .iter()
            .map(|base| property(graph, base, key))
            .collect();
    }
    let mut node_values = read_nodes(&nodes).into_iter();
    let mut rel_values = graph.rel_property_column(&rels, key).into_iter();
    bases
        .iter()
        .map(|base| match base {
            Value::Node(id) => node_property_found(graph, *id, node_values.next().flatten()),
            Value::Relationship(id) => rel_property_found(graph, *id, rel_values.next().flatten()),
            other => property(graph, other, key),
        })
        .collect()
}

/// A node's property as read: absent reads as null, unless this
/// transaction deleted the node (then reading it is an error).
fn node_property_found(
    graph: &dyn GraphRead,
    id: NodeId,
    found: Option<Value>,
) -> ExecResult<Value> {
    match found {
        Some(value) => Ok(value),
        None if graph.node_deleted(id) => Err(deleted_entity("properties", &Value::Node(id))),
        None => Ok(Value::Null),
    }
}

/// [`node_property_found`] for a relationship.
fn rel_property_found(graph: &dyn GraphRead, id: RelId, found: Option<Value>) -> ExecResult<Value> {
    match found {
        Some(value) => Ok(value),
        None if graph.rel_deleted(id) => {
            Err(deleted_entity("properties", &Value::Relationship(id)))
        }
        None => Ok(Value::Null),
    }
}

/// `base:A:B`: true when the node carries every label.
pub fn has_labels(graph: &dyn GraphRead, base: &Value, labels: &[String]) -> ExecResult<Value> {
    match base {
        Value::Null => Ok(Value::Null),
        Value::Node(id) => Ok(Value::Bool(
            labels.iter().all(|label| graph.node_has_label(*id, label)),
        )),
        Value::VirtualNode(node) => Ok(Value::Bool(
            labels.iter().all(|label| node.labels.contains(label)),
        )),
        // `r:T` tests the one type (Cypher 5's label expressions), so
        // `r:A:B` holds for no relationship.
        Value::Relationship(id) => {
            let found = graph.rel_type(*id);
            Ok(Value::Bool(
                labels.iter().all(|label| found.as_ref() == Some(label)),
            ))
        }
        Value::VirtualRelationship(rel) => Ok(Value::Bool(
            labels.iter().all(|label| rel.rel_type == *label),
        )),
        other => Err(type_mismatch("Node", other)),
    }
}

/// `e:%`: a node with at least one label, or any relationship.
pub fn has_any_label(graph: &dyn GraphRead, base: &Value) -> ExecResult<Value> {
    match base {
        Value::Null => Ok(Value::Null),
        Value::Node(id) => Ok(Value::Bool(!graph.node_labels(*id).is_empty())),
        Value::VirtualNode(node) => Ok(Value::Bool(!node.labels.is_empty())),
        Value::Relationship(_) | Value::VirtualRelationship(_) => Ok(Value::Bool(true)),
        other => Err(type_mismatch("Node", other)),
    }
}

/// [`has_labels`] of each of `bases`: the nodes' labels read a batch at a
/// time (a label test after an expand reads one label of every node it
/// reached, and row by row each read waited for its own cache misses).
pub fn has_labels_column(
    graph: &dyn GraphRead,
    bases: &[Value],
    labels: &[String],
) -> ExecResult<Vec<Value>> {
    has_labels_column_with(graph, bases, labels, |nodes, label| {
        graph.node_has_label_column(nodes, label)
    })
}

/// [`has_labels_column`] with each label's test of the nodes read by
/// `read_label` (aligned with its input): a nested plan's remembered
/// answers (`node_facts_memo.rs`).
pub(crate) fn has_labels_column_with(
    graph: &dyn GraphRead,
    bases: &[Value],
    labels: &[String],
    mut read_label: impl FnMut(&[NodeId], &str) -> Vec<bool>,
) -> ExecResult<Vec<Value>> {
    let nodes: Vec<NodeId> = bases
        .iter()
        .filter_map(|base| match base {
            Value::Node(id) => Some(*id),
            _ => None,
        })
        .collect();
    if nodes.len() < 2 {
        return bases
            .iter()
            .map(|base| has_labels(graph, base, labels))
            .collect();
    }
    let mut all = vec![true; nodes.len()];
    for label in labels {
        for (has, found) in all.iter_mut().zip(read_label(&nodes, label)) {
            *has &= found;
        }
    }
    let mut found = all.into_iter();
    bases
        .iter()
        .map(|base| match base {
            Value::Node(_) => Ok(Value::Bool(found.next().unwrap_or(false))),
            other => has_labels(graph, other, labels),
        })
        .collect()
}

/// Resolves a possibly negative list index against `len`; `None` when out
/// of range.
fn list_position(index: i64, len: usize) -> Option<usize> {
    let len = i64::try_from(len).ok()?;
    let position = if index < 0 { index + len } else { index };
    if (0..len).contains(&position) {
        usize::try_from(position).ok()
    } else {
        None
    }
}

/// `base[index]`: list element (negative counts from the end, out of range
/// is null), map entry, or entity property by name.
pub fn index(graph: &dyn GraphRead, base: &Value, index: &Value) -> ExecResult<Value> {
    match (base, index) {
        (Value::Null, _) | (_, Value::Null) => Ok(Value::Null),
        (Value::List(items), Value::Int(i)) => Ok(list_position(*i, items.len())
            .and_then(|p| items.get(p).cloned())
            .unwrap_or(Value::Null)),
        (Value::List(_), other) => Err(type_mismatch("Integer", other)),
        (
            Value::Map(_)
            | Value::Node(_)
            | Value::Relationship(_)
            | Value::VirtualNode(_)
            | Value::VirtualRelationship(_),
            Value::String(key),
        ) => property(graph, base, key),
        (
            Value::Map(_)
            | Value::Node(_)
            | Value::Relationship(_)
            | Value::VirtualNode(_)
            | Value::VirtualRelationship(_),
            other,
        ) => Err(type_mismatch_as(
            "MapElementAccessByNonString",
            "String",
            other,
        )),
        (other, _) => Err(type_mismatch("List or Map", other)),
    }
}

/// Clamps a slice bound (negative counts from the end) into `0..=len`.
fn slice_bound(bound: i64, len: usize) -> usize {
    let len_i = i64::try_from(len).unwrap_or(i64::MAX);
    let position = if bound < 0 {
        bound.saturating_add(len_i)
    } else {
        bound
    };
    usize::try_from(position.clamp(0, len_i)).unwrap_or(len)
}

/// `base[from..to]`; an absent bound is open, a null bound gives null.
pub fn slice(base: &Value, from: Option<&Value>, to: Option<&Value>) -> ExecResult<Value> {
    if base.is_null() || from.is_some_and(Value::is_null) || to.is_some_and(Value::is_null) {
        return Ok(Value::Null);
    }
    let Value::List(items) = base else {
        return Err(type_mismatch("List", base));
    };
    let bound = |value: Option<&Value>, default: usize| -> ExecResult<usize> {
        match value {
            None => Ok(default),
            Some(Value::Int(i)) => Ok(slice_bound(*i, items.len())),
            Some(other) => Err(type_mismatch("Integer", other)),
        }
    };
    let start = bound(from, 0)?;
    let end = bound(to, items.len())?;
    Ok(Value::List(
        items
            .get(start..end)
            .map(<[Value]>::to_vec)
            .unwrap_or_default()
            .into(),
    ))
}

/// A path from alternating node and relationship values. Any null part
/// (e.g. from an OPTIONAL MATCH that found nothing) makes the path null. A
/// relationship position may hold a list of relationships (a
/// variable-length segment): each leads on from the node reached so far.
pub fn path(graph: &dyn GraphRead, parts: Vec<Value>) -> ExecResult<Value> {
    if parts.iter().any(Value::is_null) {
        return Ok(Value::Null);
    }
    if parts.len().is_multiple_of(2) {
        return Err(ExecError::Type(
            "A path must alternate nodes and relationships, starting and ending with a node"
                .to_string(),
        ));
    }
    let mut nodes: Vec<NodeId> = Vec::with_capacity(parts.len() / 2 + 1);
    let mut rels = Vec::with_capacity(parts.len() / 2);
    // After a segment, the node that follows it was already reached.
    let mut node_reached = false;
    for (position, part) in parts.iter().enumerate() {
        match (position % 2, part) {
            (0, Value::Node(id)) => {
                if !node_reached {
                    nodes.push(*id);
                }
                node_reached = false;
            }
            (1, Value::Relationship(id)) => rels.push(*id),
            (1, Value::List(segment)) => {
                for item in segment {
                    let &Value::Relationship(rel) = item else {
                        return Err(type_mismatch("Relationship", item));
                    };
                    let current = nodes.last().copied();
                    let next = graph
                        .rel_endpoints(rel)
                        .and_then(|(s, e, _)| match current {
                            Some(c) if c == s => Some(e),
                            Some(_) => Some(s),
                            None => None,
                        });
                    rels.push(rel);
                    nodes.extend(next);
                }
                node_reached = true;
            }
            (0, other) => return Err(type_mismatch("Node", other)),
            (_, other) => return Err(type_mismatch("Relationship", other)),
        }
    }
    Ok(Value::Path(Box::new(PathValue { nodes, rels })))
}

/// `base {.*, key: value, ...}`: null for a null base; `items` (already
/// evaluated into `values`) overlay the properties in order.
pub fn map_projection(
    graph: &dyn GraphRead,
    base: Value,
    all_properties: bool,
    items: &[(String, nereid_planner::Expr)],
    values: Vec<Value>,
) -> ExecResult<Value> {
    let mut map = match (&base, all_properties) {
        (Value::Null, _) => return Ok(Value::Null),
        (Value::Node(n), true) => graph.node_properties(*n),
        (Value::Relationship(r), true) => graph.rel_properties(*r),
        (Value::Map(m), true) => m.clone(),
        (Value::VirtualNode(n), true) => n.properties.clone(),
        (Value::VirtualRelationship(r), true) => r.properties.clone(),
        (
            Value::Node(_)
            | Value::Relationship(_)
            | Value::Map(_)
            | Value::VirtualNode(_)
            | Value::VirtualRelationship(_),
            false,
        ) => BTreeMap::new(),
        (other, _) => return Err(type_mismatch("Map, Node or Relationship", other)),
    };
    for ((key, _), value) in items.iter().zip(values) {
        map.insert(key.clone(), value);
    }
    Ok(Value::Map(map))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ints(values: &[i64]) -> Value {
        Value::List(values.iter().map(|&i| Value::Int(i)).collect())
    }

    #[test]
    fn slices_follow_the_tck() {
        let list = ints(&[1, 2, 3]);
        let s = |from: Option<i64>, to: Option<i64>| {
            slice(
                &list,
                from.map(Value::Int).as_ref(),
                to.map(Value::Int).as_ref(),
            )
            .unwrap()
        };
        assert_eq!(s(Some(1), Some(3)), ints(&[2, 3]));
        assert_eq!(s(Some(-3), Some(-1)), ints(&[1, 2]));
        assert_eq!(s(Some(3), Some(1)), ints(&[]));
        assert_eq!(s(Some(-5), Some(5)), ints(&[1, 2, 3]));
        assert_eq!(s(None, Some(2)), ints(&[1, 2]));
        assert_eq!(s(Some(i64::MIN), Some(i64::MAX)), ints(&[1, 2, 3]));
        assert_eq!(slice(&list, Some(&Value::Null), None).unwrap(), Value::Null);
    }

    #[test]
    fn list_positions_count_from_the_end_when_negative() {
        assert_eq!(list_position(-1, 3), Some(2));
        assert_eq!(list_position(-4, 3), None);
        assert_eq!(list_position(3, 3), None);
        assert_eq!(list_position(i64::MIN, 3), None);
    }
}
