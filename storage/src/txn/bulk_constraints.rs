//! The constraints a bulk graph load must keep (`Store::bulk_load_graph`),
//! checked against the loaded entities and the committed graph before
//! anything is staged, under the commit lock (so no commit can slip in
//! between the check and the load): uniqueness and keys among the loaded
//! entities and against committed holders (through the backing index,
//! decided with Cypher's `=` as a write's check is), existence and property
//! types per loaded entity. A violation fails the whole load with a
//! message naming the label or type, the key and the value. Committed
//! entities already keep every constraint and a load only adds entities,
//! so this is all a load can break.

use super::schema_writes::{
    described_keys, has_type, holder, label_word, literal, type_name, violation,
};
use super::Reader;
use crate::error::{Result, StorageError};
use crate::schema::{ConstraintKind, EntityKind};
use crate::Store;
use nereid_values::Value;
use std::collections::HashMap;

/// One loaded entity as the checks see it.
pub(crate) struct Loaded<'a> {
    pub(crate) labels: Vec<&'a str>,
    pub(crate) properties: Vec<(&'a str, &'a Value)>,
}

impl<'a> Loaded<'a> {
    pub(crate) fn new<K: AsRef<str>>(labels: Vec<&'a str>, properties: &'a [(K, Value)]) -> Self {
        Loaded {
            labels,
            properties: properties.iter().map(|(k, v)| (k.as_ref(), v)).collect(),
        }
    }

    fn value(&self, key: &str) -> Option<&Value> {
        self.properties
            .iter()
            .find(|(k, v)| *k == key && !v.is_null())
            .map(|(_, v)| *v)
    }
}

impl Store {
    /// Fails unless `entities` (all of kind `entity`), added to the graph
    /// `reader` sees, keep every constraint on that kind of entity.
    pub(crate) fn check_bulk_constraints(
        &self,
        reader: &Reader<'_>,
        entity: EntityKind,
        entities: &[Loaded<'_>],
    ) -> Result<()> {
        let catalog = self.schema.catalog();
        for constraint in catalog
            .constraints
            .iter()
            .filter(|c| c.def.entity == entity)
        {
            let def = &constraint.def;
            let mut seen: HashMap<Vec<u8>, Vec<Vec<Value>>> = HashMap::new();
            for loaded in entities
                .iter()
                .filter(|e| e.labels.contains(&def.label.as_str()))
            {
                let values: Vec<Option<&Value>> =
                    def.keys.iter().map(|k| loaded.value(k)).collect();
                if matches!(def.kind, ConstraintKind::Exists | ConstraintKind::Key) {
                    if let Some(at) = values.iter().position(Option::is_none) {
                        return Err(StorageError::ConstraintViolation(format!(
                            "A loaded {} with {} `{}` must have the property `{}`",
                            noun(entity),
                            label_word(entity),
                            def.label,
                            def.keys[at]
                        )));
                    }
                }
                if let ConstraintKind::PropertyType(types) = &def.kind {
                    if let Some(value) = values[0] {
                        if !types.iter().any(|t| has_type(value, t)) {
                            return Err(StorageError::ConstraintViolation(format!(
                                "A loaded {} with {} `{}` required the property `{}` to be of type `{}`, but was {} of type `{}`.",
                                noun(entity),
                                label_word(entity),
                                def.label,
                                def.keys[0],
                                types.iter().map(type_name).collect::<Vec<_>>().join(" | "),
                                literal(value),
                                value.type_name().to_uppercase(),
                            )));
                        }
                    }
                }
                let (Some(index), true) = (
                    &constraint.index,
                    matches!(def.kind, ConstraintKind::Unique | ConstraintKind::Key),
                ) else {
                    continue;
                };
                let Some(values) = values.into_iter().collect::<Option<Vec<&Value>>>() else {
                    continue;
                };
                let values: Vec<Value> = values.into_iter().cloned().collect();
                if let Some(other) = holder(reader, index, &values, None) {
                    return Err(violation(entity, other, &def.label, &def.keys, &values));
                }
                let group = seen.entry(equality_class(&values)).or_default();
                if group.iter().any(|earlier| all_equal(earlier, &values)) {
                    let described = described_keys(&def.keys, &values);
                    return Err(StorageError::ConstraintViolation(format!(
                        "Two loaded {}s have {} `{}` and property {described}",
                        noun(entity),
                        label_word(entity),
                        def.label,
                    )));
                }
                group.push(values);
            }
        }
        Ok(())
    }
}

fn noun(entity: EntityKind) -> &'static str {
    match entity {
        EntityKind::Node => "node",
        EntityKind::Relationship => "relationship",
    }
}

/// Bytes equal for every two tuples Cypher's `=` finds equal (numbers by
/// their `f64` value, other values by their index key), so equal tuples
/// meet in one group and are compared there exactly.
fn equality_class(values: &[Value]) -> Vec<u8> {
    let mut class = Vec::new();
    for value in values {
        match value {
            Value::Int(i) => class.extend_from_slice(&number_bits(*i as f64)),
            Value::Float(f) => class.extend_from_slice(&number_bits(*f)),
            other => {
                if let Some(key) = crate::schema::key_of(
                    crate::schema::IndexKind::Range,
                    std::slice::from_ref(other),
                ) {
                    class.extend_from_slice(&key.bytes);
                }
            }
        }
        class.push(0xff);
    }
    class
}

fn number_bits(f: f64) -> [u8; 9] {
    let f = if f == 0.0 { 0.0 } else { f };
    let mut out = [0u8; 9];
    out[..8].copy_from_slice(&f.to_bits().to_be_bytes());
    out
}

fn all_equal(a: &[Value], b: &[Value]) -> bool {
    a.iter().zip(b).all(|(x, y)| x.cypher_eq(y) == Some(true))
}
