//! What the schema sees of one entity in one view: whether it carries an
//! index's label (or type) and its values of the index's keys, and the
//! index key those make.

use super::defs::{EntityKind, IndexKind};
use super::index::PropertyIndex;
use super::key;
use crate::txn::Reader;
use nereid_values::Value;

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
