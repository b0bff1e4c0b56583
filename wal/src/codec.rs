//! The payload encoding of commit records: a compact binary form of a
//! `Change` list.
//!
//! Integers that are usually small (counts, lengths) are LEB128 varints;
//! signed property integers are zigzag varints; node/relationship ids are
//! fixed 8-byte little-endian (their relation tag sits in the top bits, so a
//! varint would not be shorter). Strings and byte arrays are
//! length-prefixed. Every tag byte below is part of format version 1: new
//! variants get new tags, existing tags never change meaning.
//!
//! Names (labels, relationship types, the keys of an entity's property
//! map) are spelled in place in the log's records; a checkpoint chunk
//! numbers them in a table of its own instead, and writes the ids of its
//! `CreateNode`/`CreateRel` records as differences from the record before
//! (module `names`).

use nereid_storage::Change;
use nereid_values::{NodeId, RelId, Value};
use std::collections::BTreeMap;

const C_CREATE_NODE: u8 = 1;
const C_CREATE_REL: u8 = 2;
const C_SET_NODE_PROPERTY: u8 = 3;
const C_SET_REL_PROPERTY: u8 = 4;
const C_ADD_LABEL: u8 = 5;
const C_REMOVE_LABEL: u8 = 6;
const C_DELETE_REL: u8 = 7;
const C_DELETE_NODE: u8 = 8;
const C_CREATE_INDEX: u8 = 9;
const C_DROP_INDEX: u8 = 10;
const C_CREATE_CONSTRAINT: u8 = 11;
const C_DROP_CONSTRAINT: u8 = 12;

mod export;
mod names;
mod schema;

#[cfg(test)]
pub(crate) use names::encode_numbered_chunk;
pub(crate) use names::{decode_numbered_chunk, encode_exported_chunk, ChunkIds};
use names::{IdField, NameIn, NameOut, Spelled};

const V_NULL: u8 = 0;
const V_FALSE: u8 = 1;
const V_TRUE: u8 = 2;
const V_INT: u8 = 3;
const V_FLOAT: u8 = 4;
const V_STRING: u8 = 5;
const V_BYTES: u8 = 6;
const V_LIST: u8 = 7;
const V_MAP: u8 = 8;

/// Nesting limit for lists and maps, so that decoding cannot overflow the stack.
const MAX_DEPTH: usize = 64;

/// Appends the encoding of `changes` to `out`. Fails (with the type name)
/// on values that are not data: nodes, relationships, paths.
pub(crate) fn encode_changes(changes: &[Change], out: &mut Vec<u8>) -> Result<(), &'static str> {
    encode_changes_named(changes, out, &mut Spelled)
}

/// [`encode_changes`] with the names written by `names`.
fn encode_changes_named<'a>(
    changes: &'a [Change],
    out: &mut Vec<u8>,
    names: &mut impl NameOut<'a>,
) -> Result<(), &'static str> {
    put_varint(out, changes.len() as u64);
    for change in changes {
        put_change(out, change, names)?;
    }
    Ok(())
}

/// A `CreateNode` record up to its properties: the `Change` form and the
/// checkpoint's export (`codec/export.rs`) write the same bytes.
fn put_node_head<'a>(
    out: &mut Vec<u8>,
    id: u64,
    key: &str,
    labels: impl ExactSizeIterator<Item = &'a str>,
    names: &mut impl NameOut<'a>,
) {
    out.push(C_CREATE_NODE);
    names.put_id(out, IdField::Node, id);
    put_str(out, key);
    put_varint(out, labels.len() as u64);
    for label in labels {
        names.put(out, label);
    }
}

/// A `CreateRel` record up to its properties (`[id, src, dst]`), as
/// [`put_node_head`] for nodes.
fn put_rel_head<'a>(
    out: &mut Vec<u8>,
    [id, src, dst]: [u64; 3],
    rel_type: &'a str,
    names: &mut impl NameOut<'a>,
) {
    out.push(C_CREATE_REL);
    names.put_id(out, IdField::Rel, id);
    names.put_id(out, IdField::Src, src);
    names.put_id(out, IdField::Dst, dst);
    names.put(out, rel_type);
}

/// One change of a list, its names written by `names`.
fn put_change<'a>(
    out: &mut Vec<u8>,
    change: &'a Change,
    names: &mut impl NameOut<'a>,
) -> Result<(), &'static str> {
    match change {
        Change::CreateNode {
            id,
            key,
            labels,
            properties,
        } => {
            put_node_head(out, id.0, key, labels.iter().map(String::as_str), names);
            put_map(out, properties, 0, names)?;
        }
        Change::CreateRel {
            id,
            src,
            dst,
            rel_type,
            properties,
        } => {
            put_rel_head(out, [id.0, src.0, dst.0], rel_type, names);
            put_map(out, properties, 0, names)?;
        }
        Change::SetNodeProperty { id, key, value } => {
            out.push(C_SET_NODE_PROPERTY);
            put_u64(out, id.0);
            names.put(out, key);
            put_value(out, value, 0)?;
        }
        Change::SetRelProperty { id, key, value } => {
            out.push(C_SET_REL_PROPERTY);
            put_u64(out, id.0);
            names.put(out, key);
            put_value(out, value, 0)?;
        }
        Change::AddLabel { id, label } => {
            out.push(C_ADD_LABEL);
            put_u64(out, id.0);
            names.put(out, label);
        }
        Change::RemoveLabel { id, label } => {
            out.push(C_REMOVE_LABEL);
            put_u64(out, id.0);
            names.put(out, label);
        }
        Change::DeleteRel { id } => {
            out.push(C_DELETE_REL);
            put_u64(out, id.0);
        }
        Change::DeleteNode { id } => {
            out.push(C_DELETE_NODE);
            put_u64(out, id.0);
        }
        Change::CreateIndex(def) => {
            out.push(C_CREATE_INDEX);
            schema::put_index(out, def);
        }
        Change::DropIndex { name } => {
            out.push(C_DROP_INDEX);
            put_str(out, name);
        }
        Change::CreateConstraint(def) => {
            out.push(C_CREATE_CONSTRAINT);
            schema::put_constraint(out, def);
        }
        Change::DropConstraint { name } => {
            out.push(C_DROP_CONSTRAINT);
            put_str(out, name);
        }
    }
    Ok(())
}

/// Decodes a whole payload; the error says what was malformed.
pub(crate) fn decode_changes(payload: &[u8]) -> Result<Vec<Change>, String> {
    decode_changes_named(&mut Reader { buf: payload }, &Spelled)
}

/// [`decode_changes`] of the rest of `r`, the names read by `names`.
fn decode_changes_named(r: &mut Reader<'_>, names: &impl NameIn) -> Result<Vec<Change>, String> {
    let payload = r.buf;
    let count = r.varint()?;
    let mut changes = Vec::with_capacity(usize::try_from(count).unwrap_or(0).min(payload.len()));
    for _ in 0..count {
        let tag = r.byte()?;
        changes.push(match tag {
            C_CREATE_NODE => {
                let id = NodeId(names.get_id(r, IdField::Node)?);
                let key = r.string()?;
                let n = r.varint()?;
                let mut labels = Vec::new();
                for _ in 0..n {
                    labels.push(names.get(r)?);
                }
                Change::CreateNode {
                    id,
                    key,
                    labels,
                    properties: r.map(0, names)?,
                }
            }
            C_CREATE_REL => Change::CreateRel {
                id: RelId(names.get_id(r, IdField::Rel)?),
                src: NodeId(names.get_id(r, IdField::Src)?),
                dst: NodeId(names.get_id(r, IdField::Dst)?),
                rel_type: names.get(r)?,
                properties: r.map(0, names)?,
            },
            C_SET_NODE_PROPERTY => Change::SetNodeProperty {
                id: NodeId(r.u64()?),
                key: names.get(r)?,
                value: r.value(0)?,
            },
            C_SET_REL_PROPERTY => Change::SetRelProperty {
                id: RelId(r.u64()?),
                key: names.get(r)?,
                value: r.value(0)?,
            },
            C_ADD_LABEL => Change::AddLabel {
                id: NodeId(r.u64()?),
                label: names.get(r)?,
            },
            C_REMOVE_LABEL => Change::RemoveLabel {
                id: NodeId(r.u64()?),
                label: names.get(r)?,
            },
            C_DELETE_REL => Change::DeleteRel {
                id: RelId(r.u64()?),
            },
            C_DELETE_NODE => Change::DeleteNode {
                id: NodeId(r.u64()?),
            },
            C_CREATE_INDEX => Change::CreateIndex(schema::index(r)?),
            C_DROP_INDEX => Change::DropIndex { name: r.string()? },
            C_CREATE_CONSTRAINT => Change::CreateConstraint(schema::constraint(r)?),
            C_DROP_CONSTRAINT => Change::DropConstraint { name: r.string()? },
            other => return Err(format!("unknown change tag {other}")),
        });
    }
    if !r.buf.is_empty() {
        return Err(format!("{} trailing bytes after the changes", r.buf.len()));
    }
    Ok(changes)
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_bytes(out: &mut Vec<u8>, b: &[u8]) {
    put_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_bytes(out, s.as_bytes());
}

/// A map: an entity's properties (`depth` 0, keys written by `names`) or
/// a map value (keys spelled).
fn put_map<'a>(
    out: &mut Vec<u8>,
    map: &'a BTreeMap<String, Value>,
    depth: usize,
    names: &mut impl NameOut<'a>,
) -> Result<(), &'static str> {
    put_varint(out, map.len() as u64);
    for (k, v) in map {
        names.put(out, k);
        put_value(out, v, depth)?;
    }
    Ok(())
}

/// A temporal value or point: length-prefixed `nereid_values::value_codec` form.
const V_TEMPORAL: u8 = 9;

fn put_value(out: &mut Vec<u8>, value: &Value, depth: usize) -> Result<(), &'static str> {
    if depth > MAX_DEPTH {
        return Err("deeply nested List/Map");
    }
    match value {
        Value::Null => out.push(V_NULL),
        Value::Bool(false) => out.push(V_FALSE),
        Value::Bool(true) => out.push(V_TRUE),
        Value::Int(i) => {
            out.push(V_INT);
            put_varint(out, ((i << 1) ^ (i >> 63)) as u64);
        }
        Value::Float(f) => {
            out.push(V_FLOAT);
            put_u64(out, f.to_bits());
        }
        Value::String(s) => {
            out.push(V_STRING);
            put_str(out, s);
        }
        Value::Bytes(b) => {
            out.push(V_BYTES);
            put_bytes(out, b);
        }
        Value::List(items) => {
            out.push(V_LIST);
            put_varint(out, items.len() as u64);
            for item in items {
                put_value(out, item, depth + 1)?;
            }
        }
        Value::Map(map) => {
            out.push(V_MAP);
            put_map(out, map, depth + 1, &mut Spelled)?;
        }
        temporal if temporal.has_binary_form() => {
            let form = nereid_values::value_codec::encode(temporal).ok_or(temporal.type_name())?;
            out.push(V_TEMPORAL);
            put_bytes(out, &form);
        }
        other => return Err(other.type_name()),
    }
    Ok(())
}

/// A bounds-checked cursor over a payload.
struct Reader<'a> {
    buf: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if self.buf.len() < n {
            return Err(format!("needs {n} bytes, {} left", self.buf.len()));
        }
        let (head, rest) = self.buf.split_at(n);
        self.buf = rest;
        Ok(head)
    }

    fn byte(&mut self) -> Result<u8, String> {
        match self.take(1)? {
            [b] => Ok(*b),
            _ => Err("short byte".into()),
        }
    }

    fn u64(&mut self) -> Result<u64, String> {
        let bytes: [u8; 8] = self
            .take(8)?
            .try_into()
            .map_err(|_| "short u64".to_string())?;
        Ok(u64::from_le_bytes(bytes))
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut v: u64 = 0;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("varint longer than 64 bits".into())
    }

    fn len(&mut self) -> Result<usize, String> {
        let n = self.varint()?;
        usize::try_from(n)
            .ok()
            .filter(|&n| n <= self.buf.len())
            .ok_or_else(|| format!("length {n} exceeds the {} bytes left", self.buf.len()))
    }

    fn bytes(&mut self) -> Result<Vec<u8>, String> {
        let n = self.len()?;
        Ok(self.take(n)?.to_vec())
    }

    fn string(&mut self) -> Result<String, String> {
        String::from_utf8(self.bytes()?).map_err(|_| "string is not UTF-8".to_string())
    }

    fn map(
        &mut self,
        depth: usize,
        names: &impl NameIn,
    ) -> Result<BTreeMap<String, Value>, String> {
        let n = self.len()?;
        let mut map = BTreeMap::new();
        for _ in 0..n {
            let key = names.get(self)?;
            let value = self.value(depth)?;
            map.insert(key, value);
        }
        Ok(map)
    }

    fn value(&mut self, depth: usize) -> Result<Value, String> {
        if depth > MAX_DEPTH {
            return Err("values nested too deeply".into());
        }
        Ok(match self.byte()? {
            V_NULL => Value::Null,
            V_FALSE => Value::Bool(false),
            V_TRUE => Value::Bool(true),
            V_INT => {
                let z = self.varint()?;
                Value::Int(((z >> 1) as i64) ^ -((z & 1) as i64))
            }
            V_FLOAT => Value::Float(f64::from_bits(self.u64()?)),
            V_STRING => Value::String(self.string()?),
            V_BYTES => Value::Bytes(self.bytes()?),
            V_LIST => {
                let n = self.len()?;
                let mut items = Vec::with_capacity(n);
                for _ in 0..n {
                    items.push(self.value(depth + 1)?);
                }
                Value::List(items.into())
            }
            V_MAP => Value::Map(self.map(depth + 1, &Spelled)?),
            V_TEMPORAL => nereid_values::value_codec::decode(&self.bytes()?)
                .ok_or("malformed temporal value")?,
            other => return Err(format!("unknown value tag {other}")),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_value() -> Vec<Value> {
        let mut map = BTreeMap::new();
        map.insert("a".to_string(), Value::Int(1));
        map.insert("nested".to_string(), Value::List(vec![Value::Null].into()));
        vec![
            Value::Null,
            Value::Bool(false),
            Value::Bool(true),
            Value::Int(0),
            Value::Int(-1),
            Value::Int(i64::MIN),
            Value::Int(i64::MAX),
            Value::Float(-0.0),
            Value::Float(f64::INFINITY),
            Value::Float(1.5e-300),
            Value::String(String::new()),
            Value::from("ünïcødé"),
            Value::Bytes(vec![]),
            Value::Bytes(vec![0, 1, 255]),
            Value::List(vec![].into()),
            Value::List(vec![Value::Int(1), Value::from("x"), Value::List(vec![].into())].into()),
            Value::Map(BTreeMap::new()),
            Value::Map(map),
        ]
    }

    pub(super) fn every_change() -> Vec<Change> {
        let props: BTreeMap<String, Value> = every_value()
            .into_iter()
            .enumerate()
            .map(|(i, v)| (format!("p{i}"), v))
            .collect();
        let mut changes = vec![
            Change::CreateNode {
                id: NodeId(1 << 60 | 0x1234),
                key: "n0".into(),
                labels: vec!["A".into(), "B".into()],
                properties: props.clone(),
            },
            Change::CreateNode {
                id: NodeId(0),
                key: String::new(),
                labels: vec![],
                properties: BTreeMap::new(),
            },
            Change::CreateRel {
                id: RelId(4 << 60 | 3 << 28 | 9),
                src: NodeId(1),
                dst: NodeId(u64::MAX),
                rel_type: "KNOWS".into(),
                properties: props,
            },
            Change::AddLabel {
                id: NodeId(5),
                label: "L".into(),
            },
            Change::RemoveLabel {
                id: NodeId(5),
                label: "L".into(),
            },
            Change::DeleteRel { id: RelId(7) },
            Change::DeleteNode { id: NodeId(8) },
            Change::CreateIndex(nereid_storage::IndexDef {
                name: "by_name".into(),
                kind: nereid_storage::IndexKind::Text,
                entity: nereid_storage::EntityKind::Relationship,
                label: "KNOWS".into(),
                more_labels: Vec::new(),
                keys: vec!["a".into(), "b".into()],
            }),
            Change::DropIndex {
                name: "by_name".into(),
            },
            Change::CreateIndex(nereid_storage::IndexDef {
                name: "docs".into(),
                kind: nereid_storage::IndexKind::Vector {
                    dimensions: Some(768),
                    similarity: nereid_vector::Similarity::Euclidean,
                },
                entity: nereid_storage::EntityKind::Node,
                label: "Doc".into(),
                more_labels: Vec::new(),
                keys: vec!["embedding".into()],
            }),
            Change::CreateIndex(nereid_storage::IndexDef {
                name: "titles".into(),
                kind: nereid_storage::IndexKind::Fulltext {
                    analyzer: nereid_fulltext::Analyzer::English,
                    eventually_consistent: true,
                },
                entity: nereid_storage::EntityKind::Node,
                label: "Book".into(),
                more_labels: vec!["Film".into(), "Song".into()],
                keys: vec!["title".into(), "plot".into()],
            }),
            Change::CreateIndex(nereid_storage::IndexDef {
                name: "any_length".into(),
                kind: nereid_storage::IndexKind::Vector {
                    dimensions: None,
                    similarity: nereid_vector::Similarity::Cosine,
                },
                entity: nereid_storage::EntityKind::Relationship,
                label: "CITES".into(),
                more_labels: Vec::new(),
                keys: vec!["embedding".into()],
            }),
            Change::CreateConstraint(nereid_storage::ConstraintDef {
                name: "typed".into(),
                kind: nereid_storage::ConstraintKind::PropertyType(vec![
                    nereid_storage::ValueType::Integer,
                    nereid_storage::ValueType::List(Box::new(nereid_storage::ValueType::String)),
                ]),
                entity: nereid_storage::EntityKind::Node,
                label: "Person".into(),
                keys: vec!["age".into()],
            }),
            Change::CreateConstraint(nereid_storage::ConstraintDef {
                name: "key".into(),
                kind: nereid_storage::ConstraintKind::Key,
                entity: nereid_storage::EntityKind::Node,
                label: "Person".into(),
                keys: vec!["id".into()],
            }),
            Change::DropConstraint { name: "key".into() },
        ];
        for value in every_value() {
            changes.push(Change::SetNodeProperty {
                id: NodeId(2),
                key: "k".into(),
                value: value.clone(),
            });
            changes.push(Change::SetRelProperty {
                id: RelId(3),
                key: "k".into(),
                value,
            });
        }
        changes
    }

    #[test]
    fn every_change_and_value_round_trips() {
        let changes = every_change();
        let mut buf = Vec::new();
        encode_changes(&changes, &mut buf).unwrap();
        let decoded = decode_changes(&buf).unwrap();
        assert_eq!(decoded, changes);
        // Float bits survive exactly (PartialEq would accept -0.0 == 0.0).
        let mut buf = Vec::new();
        let neg_zero = vec![Change::SetNodeProperty {
            id: NodeId(1),
            key: "f".into(),
            value: Value::Float(-0.0),
        }];
        encode_changes(&neg_zero, &mut buf).unwrap();
        match &decode_changes(&buf).unwrap()[0] {
            Change::SetNodeProperty {
                value: Value::Float(f),
                ..
            } => assert!(f.is_sign_negative()),
            other => panic!("{other:?}"),
        }
        assert_eq!(decode_changes(&[0]).unwrap(), vec![]);
    }

    #[test]
    fn entity_values_are_rejected() {
        for value in [
            Value::Node(NodeId(1)),
            Value::Relationship(RelId(1)),
            Value::List(vec![Value::Node(NodeId(1))].into()),
        ] {
            let change = Change::SetNodeProperty {
                id: NodeId(1),
                key: "k".into(),
                value,
            };
            assert!(encode_changes(&[change], &mut Vec::new()).is_err());
        }
    }

    #[test]
    fn malformed_payloads_are_errors_not_panics() {
        let mut buf = Vec::new();
        encode_changes(&every_change(), &mut buf).unwrap();
        for cut in 0..buf.len() {
            assert!(decode_changes(&buf[..cut]).is_err(), "cut at {cut}");
        }
        let mut trailing = buf.clone();
        trailing.push(0);
        assert!(decode_changes(&trailing).is_err());
        assert!(decode_changes(&[1, 99]).is_err());
        assert!(decode_changes(&[0xff; 11]).is_err());
        // A huge declared length does not allocate or panic.
        assert!(
            decode_changes(&[1, C_ADD_LABEL, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0x7f]).is_err()
        );
    }
}
