//! What the schema sees of one entity in one view: whether it carries an
//! index's label (or type) and its values of the index's keys, and the
//! index key those make.

use super::defs::{EntityKind, IndexKind};
use super::index::PropertyIndex;
use super::key;
use crate::ids::vertex_partition;
use crate::predicates::PRED_LABEL;
use crate::store::Store;
use crate::txn::Reader;
use crate::typed_value::{Encoded, TypedValue};
use nereid_values::Value;

/// An index's label and keys as the store names them, resolved once for
/// many entities (a seek's candidates, a build's nodes): `None` where the
/// name was never stored, so that no entity can have it.
pub(crate) struct Resolved {
    label: Option<u64>,
    keys: Option<Vec<u32>>,
}

impl Resolved {
    pub(crate) fn of(store: &Store, index: &PropertyIndex) -> Self {
        let def = &index.def;
        Resolved {
            label: match def.entity {
                EntityKind::Node => store.literals.lookup(def.label.as_bytes()),
                EntityKind::Relationship => store.types.lookup(&def.label).map(u64::from),
            },
            keys: def.keys.iter().map(|k| store.keys.lookup(k)).collect(),
        }
    }
}

/// [`entity_values`] with the names resolved: a node's tuples are walked
/// once for the label and every key.
pub(crate) fn resolved_values(
    reader: &Reader<'_>,
    index: &PropertyIndex,
    resolved: &Resolved,
    entity: u64,
) -> Option<Vec<Value>> {
    let (Some(label), Some(keys)) = (resolved.label, resolved.keys.as_deref()) else {
        return None;
    };
    if index.def.entity == EntityKind::Relationship {
        return entity_values(reader, index, entity);
    }
    let store = reader.store;
    let label_o = TypedValue::string_gui(label);
    let mut has_label = false;
    let mut found: Vec<Option<Encoded>> = vec![None; keys.len()];
    {
        let part = store.vp.read(vertex_partition(entity, store.partitions))?;
        for (_, t) in part.by_subject(entity) {
            if t.p == PRED_LABEL {
                has_label = has_label || (t.o == label_o && t.visible(&reader.view));
            } else if let Some(at) = keys.iter().position(|&k| k == t.p) {
                if found[at].is_none() && t.visible(&reader.view) {
                    found[at] = Some(t.encoded());
                }
            }
        }
    }
    if !has_label {
        return None;
    }
    found
        .into_iter()
        .map(|o| o?.decode(&store.literals))
        .collect()
}

/// The key of `index` for `entity` in `reader`'s view: `None` when the
/// entity is not visible, lacks the label or type, lacks one of the keys,
/// or (text indexes) has a non-string value.
pub(crate) fn entity_key(reader: &Reader<'_>, index: &PropertyIndex, entity: u64) -> Option<Key> {
    let values = entity_values(reader, index, entity)?;
    key_of(index.def.kind, &values)
}

/// The entity's values of the index's keys, in key order, when it is
/// visible, carries the label or type, and has every key.
pub(crate) fn entity_values(
    reader: &Reader<'_>,
    index: &PropertyIndex,
    entity: u64,
) -> Option<Vec<Value>> {
    let def = &index.def;
    match def.entity {
        EntityKind::Node => {
            if !reader.node_has_label(entity, &def.label) {
                return None;
            }
            def.keys
                .iter()
                .map(|k| reader.node_property(entity, k))
                .collect()
        }
        EntityKind::Relationship => {
            let edge = reader.edge(entity)?;
            if reader.store.types.name(edge.type_id)? != def.label.as_str() {
                return None;
            }
            def.keys
                .iter()
                .map(|k| reader.rel_property(entity, k))
                .collect()
        }
    }
}

/// An encoded index key and whether one of its values is a `WideLocal`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Key {
    pub(crate) bytes: Vec<u8>,
    pub(crate) wide: bool,
}

/// The key of `values` (one per index key) in an index of `kind`.
pub(crate) fn key_of(kind: IndexKind, values: &[Value]) -> Option<Key> {
    if let IndexKind::Vector { .. } = kind {
        return vector_key(kind, values);
    }
    let mut bytes = Vec::new();
    let mut wide = false;
    for value in values {
        if kind == IndexKind::Text && !matches!(value, Value::String(_)) {
            return None;
        }
        wide |= matches!(value, Value::WideLocal(_));
        if !key::encode(value, &mut bytes) {
            return None;
        }
    }
    Some(Key { bytes, wide })
}

/// A vector index's key: empty for a vector the index accepts (entries say
/// only which entities may have one; the query reads and scores the value),
/// none for anything else, which the index leaves out as Neo4j does for
/// data written before the index existed.
fn vector_key(kind: IndexKind, values: &[Value]) -> Option<Key> {
    let [value] = values else { return None };
    check_vector(kind, value).ok()?;
    Some(Key {
        bytes: Vec::new(),
        wide: false,
    })
}

/// Whether `value` may be stored under a vector index of `kind`: a list of
/// numbers of the index's dimensions, valid for its similarity. Writes of
/// indexed properties are refused otherwise (module `txn::schema_writes`).
pub(crate) fn check_vector(
    kind: IndexKind,
    value: &Value,
) -> Result<nereid_vector::Vector, nereid_vector::VectorError> {
    let IndexKind::Vector {
        dimensions,
        similarity,
    } = kind
    else {
        return Err(nereid_vector::VectorError::NotNumeric(
            value.type_name().to_string(),
        ));
    };
    let vector = nereid_vector::Vector::from_value(value)?
        .ok_or_else(|| nereid_vector::VectorError::NotNumeric("Null".to_string()))?;
    if let Some(d) = dimensions {
        vector.expect_dimensions(d as usize)?;
    }
    similarity.check(&vector)?;
    Ok(vector)
}
