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
use std::borrow::Cow;

/// An index's label and keys as the store names them, resolved once for
/// many entities (a seek's candidates, a build's nodes): `None` where the
/// name was never stored, so that no entity can have it.
#[derive(Clone)]
pub(crate) struct Resolved {
    label: Option<u64>,
    keys: Option<Vec<u32>>,
}

impl Resolved {
    /// The index's names resolved in `store`: kept in the index once every
    /// name is known (dictionaries only grow, so a known name's id never
    /// changes), looked up again while one is not, since a later write may
    /// store it. A point seek then spends no dictionary probe on names.
    pub(crate) fn of<'i>(store: &Store, index: &'i PropertyIndex) -> Cow<'i, Resolved> {
        if let Some(known) = index.resolved.get() {
            return Cow::Borrowed(known);
        }
        let def = &index.def;
        let resolved = Resolved {
            label: match def.entity {
                EntityKind::Node => store.literals.lookup(def.label.as_bytes()),
                EntityKind::Relationship => store.types.lookup(&def.label).map(u64::from),
            },
            keys: def.keys.iter().map(|k| store.keys.lookup(k)).collect(),
        };
        if resolved.label.is_some() && resolved.keys.is_some() {
            return Cow::Borrowed(index.resolved.get_or_init(|| resolved));
        }
        Cow::Owned(resolved)
    }
}

/// Whether `entity` is visible in `reader`'s view with the index's label
/// and, for each key, a value Cypher-equal to `want`'s (one per key): what
/// [`resolved_values`] and an equality test decide, without collecting
/// the values (a point seek's one candidate; docs/adr/0105).
pub(crate) fn resolved_equals(
    reader: &Reader<'_>,
    index: &PropertyIndex,
    resolved: &Resolved,
    entity: u64,
    want: &[Value],
) -> bool {
    let (Some(label), Some(keys)) = (resolved.label, resolved.keys.as_deref()) else {
        return false;
    };
    if index.def.entity == EntityKind::Relationship || keys.len() > 64 || keys.len() != want.len() {
        return resolved_values(reader, index, resolved, entity).is_some_and(|values| {
            values.len() == want.len()
                && values
                    .iter()
                    .zip(want)
                    .all(|(have, w)| have.cypher_eq(w) == Some(true))
        });
    }
    let store = reader.store;
    let label_o = TypedValue::string_gui(label);
    let mut has_label = false;
    // Keys whose first visible value was read (and was equal).
    let mut seen = 0u64;
    let Some(part) = store.vp.read(vertex_partition(entity, store.partitions)) else {
        return false;
    };
    for (_, t) in part.by_subject(entity) {
        if t.p == PRED_LABEL {
            has_label = has_label || (t.o == label_o && t.visible(&reader.view));
        } else if let Some(at) = keys.iter().position(|&k| k == t.p) {
            if seen & (1 << at) == 0 && t.visible(&reader.view) {
                let equal = t
                    .encoded()
                    .decode(&store.literals)
                    .is_some_and(|have| have.cypher_eq(&want[at]) == Some(true));
                if !equal {
                    return false;
                }
                seen |= 1 << at;
            }
        }
    }
    has_label && seen.count_ones() as usize == keys.len()
}

/// [`entity_values`] with the names resolved: a node's tuples are walked
/// once for the label and every key.
pub(crate) fn resolved_values(
    reader: &Reader<'_>,
    index: &PropertyIndex,
    resolved: &Resolved,
    entity: u64,
) -> Option<Vec<Value>> {
    // A full-text index needs only one of its labels and keys to be
    // known, so its names are not resolved as a whole.
    if index.def.entity == EntityKind::Relationship || index.def.kind.is_fulltext() {
        return entity_values(reader, index, entity);
    }
    let (Some(label), Some(keys)) = (resolved.label, resolved.keys.as_deref()) else {
        return None;
    };
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
/// visible, carries the label or type, and has every key. A full-text
/// index takes any of its labels, and a missing key as null.
pub(crate) fn entity_values(
    reader: &Reader<'_>,
    index: &PropertyIndex,
    entity: u64,
) -> Option<Vec<Value>> {
    let def = &index.def;
    let any_key = def.kind.is_fulltext();
    let collect = |read: &dyn Fn(&str) -> Option<Value>| -> Option<Vec<Value>> {
        def.keys
            .iter()
            .map(|k| match read(k) {
                None if any_key => Some(Value::Null),
                v => v,
            })
            .collect()
    };
    match def.entity {
        EntityKind::Node => {
            if !def.labels().any(|l| reader.node_has_label(entity, l)) {
                return None;
            }
            collect(&|k| reader.node_property(entity, k))
        }
        EntityKind::Relationship => {
            let edge = reader.edge(entity)?;
            if !def.has_label(reader.store.types.name(edge.type_id)?) {
                return None;
            }
            collect(&|k| reader.rel_property(entity, k))
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
    if kind.is_fulltext() {
        // Entries say only which entities may have text; the query
        // analyzes the values it reads (module `fulltext_search`).
        let text = |v: &Value| match v {
            Value::String(_) => true,
            Value::List(items) => items.iter().any(|i| matches!(i, Value::String(_))),
            _ => false,
        };
        return values.iter().any(text).then(|| Key {
            bytes: Vec::new(),
            wide: false,
        });
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
