//! Encoding query results: values straight to bytes, with node,
//! relationship and path references materialised through an
//! [`EntityResolver`] in the structure shape of the Bolt version.
//!
//! An entity the resolver cannot see (deleted in the same transaction, for
//! instance) is encoded as null; a path with any invisible member is null
//! as a whole, because a partial path would be a different path.

use crate::encode::{
    write_bool, write_bytes, write_float, write_int, write_list_header, write_map_header,
    write_null, write_string, write_struct_header, MAX_ENCODE_DEPTH,
};
use crate::marker::tag;
use crate::EncodeError;
use nereid_values::{EntityResolver, NodeData, NodeId, PathValue, RelData, RelId, Value};
use std::collections::{BTreeMap, HashMap};

/// The structure shapes a Bolt version expects.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StructFormat {
    /// Bolt 5.x: Node/Relationship/UnboundRelationship carry element ids.
    pub element_ids: bool,
    /// Bolt 5.x, or 4.3/4.4 with the `utc` patch: DateTime uses tags
    /// `49`/`69` (UTC seconds) instead of `46`/`66` (local seconds).
    pub utc_datetime: bool,
}

impl StructFormat {
    /// The format for Bolt `major.minor`; `utc_patch` is whether the `utc`
    /// patch was agreed in HELLO (meaningful on 4.3/4.4 only).
    pub fn for_version(major: u8, minor: u8, utc_patch: bool) -> Self {
        let v5 = major >= 5;
        StructFormat {
            element_ids: v5,
            utc_datetime: v5 || (major == 4 && minor >= 3 && utc_patch),
        }
    }
}

/// Appends the encoding of a result value to `out`.
pub fn encode_result_value(
    value: &Value,
    resolver: &dyn EntityResolver,
    format: StructFormat,
    out: &mut Vec<u8>,
) -> Result<(), EncodeError> {
    encode_at(value, resolver, format, out, 0)
}

fn encode_at(
    value: &Value,
    resolver: &dyn EntityResolver,
    format: StructFormat,
    out: &mut Vec<u8>,
    depth: usize,
) -> Result<(), EncodeError> {
    if depth > MAX_ENCODE_DEPTH {
        return Err(EncodeError::TooDeep(MAX_ENCODE_DEPTH));
    }
    match value {
        Value::Null => write_null(out),
        Value::Bool(b) => write_bool(out, *b),
        Value::Int(i) => write_int(out, *i),
        Value::Float(f) => write_float(out, *f),
        Value::String(s) => write_string(out, s)?,
        Value::Bytes(b) => write_bytes(out, b)?,
        Value::List(items) => {
            write_list_header(out, items.len())?;
            for item in items {
                encode_at(item, resolver, format, out, depth + 1)?;
            }
        }
        Value::Map(map) => encode_properties(map, resolver, format, out, depth + 1)?,
        Value::Node(id) => match resolver.node(*id) {
            Some(node) => encode_node(&node, resolver, format, out, depth)?,
            None => write_null(out),
        },
        Value::VirtualNode(node) => {
            let parts = EntityParts {
                id: node.id,
                element_id: &node.element_id(),
                properties: &node.properties,
            };
            write_node(parts, &node.labels, resolver, format, out, depth)?
        }
        Value::VirtualRelationship(rel) => {
            let parts = EntityParts {
                id: rel.id,
                element_id: &rel.element_id(),
                properties: &rel.properties,
            };
            let (start, end) = (rel.start_element_id(), rel.end_element_id());
            let ends = [(rel.start.id, start.as_str()), (rel.end.id, end.as_str())];
            write_relationship(parts, &rel.rel_type, ends, resolver, format, out, depth)?
        }
        Value::Relationship(id) => match resolver.relationship(*id) {
            Some(rel) => encode_relationship(&rel, resolver, format, out, depth)?,
            None => write_null(out),
        },
        Value::Path(path) => encode_path(path, resolver, format, out, depth)?,
        other if crate::temporal::write(other, format.utc_datetime, out)? => {}
        other if crate::spatial::write(other, out)? => {}
        other => return Err(EncodeError::Unsupported(other.type_name())),
    }
    Ok(())
}

fn encode_properties(
    map: &BTreeMap<String, Value>,
    resolver: &dyn EntityResolver,
    format: StructFormat,
    out: &mut Vec<u8>,
    depth: usize,
) -> Result<(), EncodeError> {
    write_map_header(out, map.len())?;
    for (k, v) in map {
        write_string(out, k)?;
        encode_at(v, resolver, format, out, depth + 1)?;
    }
    Ok(())
}

/// What a stored (materialised) and a virtual entity both have: the id
/// Bolt sends (negative for a virtual one), the element id, the properties.
struct EntityParts<'a> {
    id: i64,
    element_id: &'a str,
    properties: &'a BTreeMap<String, Value>,
}

fn encode_node(
    node: &NodeData,
    resolver: &dyn EntityResolver,
    format: StructFormat,
    out: &mut Vec<u8>,
    depth: usize,
) -> Result<(), EncodeError> {
    let parts = EntityParts {
        id: node.id.external(),
        element_id: &node.element_id,
        properties: &node.properties,
    };
    write_node(parts, &node.labels, resolver, format, out, depth)
}

fn write_node(
    node: EntityParts<'_>,
    labels: &[String],
    resolver: &dyn EntityResolver,
    format: StructFormat,
    out: &mut Vec<u8>,
    depth: usize,
) -> Result<(), EncodeError> {
    write_struct_header(out, tag::NODE, if format.element_ids { 4 } else { 3 })?;
    write_int(out, node.id);
    write_list_header(out, labels.len())?;
    for label in labels {
        write_string(out, label)?;
    }
    encode_properties(node.properties, resolver, format, out, depth + 1)?;
    if format.element_ids {
        write_string(out, node.element_id)?;
    }
    Ok(())
}

fn encode_relationship(
    rel: &RelData,
    resolver: &dyn EntityResolver,
    format: StructFormat,
    out: &mut Vec<u8>,
    depth: usize,
) -> Result<(), EncodeError> {
    let parts = EntityParts {
        id: rel.id.external(),
        element_id: &rel.element_id,
        properties: &rel.properties,
    };
    let ends = [
        (rel.start.external(), rel.start_element_id.as_str()),
        (rel.end.external(), rel.end_element_id.as_str()),
    ];
    write_relationship(parts, &rel.rel_type, ends, resolver, format, out, depth)
}

/// A Relationship structure; `ends` are the start and end nodes' ids and
/// element ids.
fn write_relationship(
    rel: EntityParts<'_>,
    rel_type: &str,
    ends: [(i64, &str); 2],
    resolver: &dyn EntityResolver,
    format: StructFormat,
    out: &mut Vec<u8>,
    depth: usize,
) -> Result<(), EncodeError> {
    write_struct_header(
        out,
        tag::RELATIONSHIP,
        if format.element_ids { 8 } else { 5 },
    )?;
    write_int(out, rel.id);
    write_int(out, ends[0].0);
    write_int(out, ends[1].0);
    write_string(out, rel_type)?;
    encode_properties(rel.properties, resolver, format, out, depth + 1)?;
    if format.element_ids {
        write_string(out, rel.element_id)?;
        write_string(out, ends[0].1)?;
        write_string(out, ends[1].1)?;
    }
    Ok(())
}

fn encode_unbound_relationship(
    rel: &RelData,
    resolver: &dyn EntityResolver,
    format: StructFormat,
    out: &mut Vec<u8>,
    depth: usize,
) -> Result<(), EncodeError> {
    let fields = if format.element_ids { 4 } else { 3 };
    write_struct_header(out, tag::UNBOUND_RELATIONSHIP, fields)?;
    write_int(out, rel.id.external());
    write_string(out, &rel.rel_type)?;
    encode_properties(&rel.properties, resolver, format, out, depth + 1)?;
    if format.element_ids {
        write_string(out, &rel.element_id)?;
    }
    Ok(())
}

/// A path as Bolt wants it: distinct nodes, distinct relationships, and the
/// index sequence that walks them.
struct PathParts {
    nodes: Vec<NodeData>,
    rels: Vec<RelData>,
    indices: Vec<i64>,
}

/// Materialises a path; `None` when any member is invisible.
fn path_parts(
    path: &PathValue,
    resolver: &dyn EntityResolver,
) -> Result<Option<PathParts>, EncodeError> {
    if path.nodes.len() != path.rels.len() + 1 {
        return Err(EncodeError::MalformedPath {
            nodes: path.nodes.len(),
            rels: path.rels.len(),
        });
    }
    let mut node_index: HashMap<NodeId, usize> = HashMap::new();
    let mut rel_index: HashMap<RelId, usize> = HashMap::new();
    let mut parts = PathParts {
        nodes: Vec::new(),
        rels: Vec::new(),
        indices: Vec::with_capacity(path.rels.len() * 2),
    };
    for id in &path.nodes {
        if !node_index.contains_key(id) {
            let Some(node) = resolver.node(*id) else {
                return Ok(None);
            };
            node_index.insert(*id, parts.nodes.len());
            parts.nodes.push(node);
        }
    }
    for (step, (rel_id, previous)) in path.rels.iter().zip(&path.nodes).enumerate() {
        let position = match rel_index.get(rel_id) {
            Some(&at) => at,
            None => {
                let Some(rel) = resolver.relationship(*rel_id) else {
                    return Ok(None);
                };
                rel_index.insert(*rel_id, parts.rels.len());
                parts.rels.push(rel);
                parts.rels.len() - 1
            }
        };
        // Forward when the relationship starts at the node we come from.
        let forward = parts
            .rels
            .get(position)
            .is_some_and(|rel| rel.start == *previous);
        let one_based = position as i64 + 1;
        parts
            .indices
            .push(if forward { one_based } else { -one_based });
        let next = path
            .nodes
            .get(step + 1)
            .and_then(|id| node_index.get(id))
            .copied()
            .unwrap_or(0);
        parts.indices.push(next as i64);
    }
    Ok(Some(parts))
}

fn encode_path(
    path: &PathValue,
    resolver: &dyn EntityResolver,
    format: StructFormat,
    out: &mut Vec<u8>,
    depth: usize,
) -> Result<(), EncodeError> {
    let Some(parts) = path_parts(path, resolver)? else {
        write_null(out);
        return Ok(());
    };
    write_struct_header(out, tag::PATH, 3)?;
    write_list_header(out, parts.nodes.len())?;
    for node in &parts.nodes {
        encode_node(node, resolver, format, out, depth + 1)?;
    }
    write_list_header(out, parts.rels.len())?;
    for rel in &parts.rels {
        encode_unbound_relationship(rel, resolver, format, out, depth + 1)?;
    }
    write_list_header(out, parts.indices.len())?;
    for index in &parts.indices {
        write_int(out, *index);
    }
    Ok(())
}
