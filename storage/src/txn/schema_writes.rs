//! Writes under the schema: a write that gives an entity a value of a
//! constrained key is checked before anything is applied (property types,
//! uniqueness in the writer's view), and after it the entity's new keys go
//! into the indexes over its labels. At commit, under the commit lock,
//! uniqueness is checked again against commits the snapshot could not
//! see, existence constraints are checked, and a transaction whose writes
//! began before an index existed adds its entries to it.

use super::read::Reader;
use super::state::TxnState;
use super::write::Writer;
use crate::error::{Result, StorageError};
use crate::mvcc::View;
use crate::schema::{
    check_vector, entity_values, key_of, Catalog, ConstraintKind, EntityKind, IndexSeek,
    PropertyIndex, ValueType,
};
use crate::store::Store;
use nereid_values::{NodeId, RelId, Value};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// What a write is about to do to one entity.
pub(super) enum Prospect<'v> {
    /// A new node or relationship with these labels (or its type) and
    /// properties.
    Create {
        labels: &'v [String],
        properties: &'v BTreeMap<String, Value>,
    },
    /// Property assignments in order (null removes).
    Set(Vec<(&'v str, &'v Value)>),
    AddLabel(&'v str),
}

/// The schema-relevant state of an entity: its labels (or type) and its
/// values of the keys the catalog reads.
struct Image {
    labels: Vec<String>,
    values: HashMap<String, Value>,
}

impl Image {
    /// `extra`: a label the write is about to add, whose keys count too.
    fn read(
        reader: &Reader<'_>,
        catalog: &Catalog,
        entity: EntityKind,
        id: u64,
        extra: Option<&str>,
    ) -> Image {
        let labels: Vec<String> = match entity {
            EntityKind::Node => reader.node_labels(id),
            EntityKind::Relationship => reader
                .edge(id)
                .and_then(|e| reader.store.types.name(e.type_id).map(str::to_string))
                .into_iter()
                .collect(),
        };
        let mut values = HashMap::new();
        let mut all_labels = labels.clone();
        all_labels.extend(extra.map(str::to_string));
        let keys = catalog
            .indexes_on(entity, &all_labels)
            .flat_map(|i| i.def.keys.iter())
            .chain(
                catalog
                    .constraints_on(entity, &all_labels)
                    .flat_map(|c| c.def.keys.iter()),
            );
        for key in keys {
            if values.contains_key(key) {
                continue;
            }
            let value = match entity {
                EntityKind::Node => reader.node_property(id, key),
                EntityKind::Relationship => reader.rel_property(id, key),
            };
            if let Some(value) = value {
                values.insert(key.clone(), value);
            }
        }
        Image { labels, values }
    }

    fn values_of(&self, keys: &[String]) -> Option<Vec<Value>> {
        keys.iter().map(|k| self.values.get(k).cloned()).collect()
    }

    /// The values an index reads: every key's (a full-text index reads
    /// those present, a missing key as null).
    fn values_for(&self, index: &PropertyIndex) -> Option<Vec<Value>> {
        if index.def.kind.is_fulltext() {
            let values = index.def.keys.iter();
            return Some(
                values
                    .map(|k| self.values.get(k).cloned().unwrap_or(Value::Null))
                    .collect(),
            );
        }
        self.values_of(&index.def.keys)
    }

    fn has_any(&self, def: &crate::schema::IndexDef) -> bool {
        self.labels.iter().any(|l| def.has_label(l))
    }
}

impl Writer<'_> {
    /// Runs `write` (which creates the entity when `id` is `None`) under
    /// the schema. `entity` says whether it is a node or a relationship.
    pub(super) fn schema_write<T>(
        &mut self,
        entity: EntityKind,
        id: Option<u64>,
        prospect: Prospect<'_>,
        write: impl FnOnce(&mut Self) -> Result<T>,
        created: impl FnOnce(&T) -> u64,
    ) -> Result<T> {
        if self.core.replaying {
            return write(self);
        }
        self.st
            .schema_version
            .get_or_insert_with(|| self.store.schema.version());
        let catalog = self.store.schema.catalog();
        if catalog.is_empty() || !relevant(&catalog, entity, &prospect) {
            return write(self);
        }
        let mut image = match id {
            Some(id) => {
                let extra = match &prospect {
                    Prospect::AddLabel(label) => Some(*label),
                    _ => None,
                };
                Image::read(&self.reader(), &catalog, entity, id, extra)
            }
            None => Image {
                labels: Vec::new(),
                values: HashMap::new(),
            },
        };
        let before_labels = image.labels.clone();
        let before_keys: Vec<(Arc<PropertyIndex>, Vec<u8>)> = catalog
            .indexes_on(entity, &before_labels)
            .filter_map(|i| {
                let key = image.values_for(i).and_then(|v| key_of(i.def.kind, &v))?;
                Some((i.clone(), key.bytes))
            })
            .collect();
        let mut changed: Vec<&str> = Vec::new();
        match &prospect {
            Prospect::Create { labels, properties } => {
                image.labels = labels.to_vec();
                for (k, v) in properties.iter() {
                    if !v.is_null() {
                        image.values.insert(k.clone(), v.clone());
                        changed.push(k);
                    }
                }
            }
            Prospect::Set(pairs) => {
                for &(k, v) in pairs {
                    if v.is_null() {
                        image.values.remove(k);
                    } else {
                        image.values.insert(k.to_string(), v.clone());
                    }
                    changed.push(k);
                }
            }
            Prospect::AddLabel(label) => {
                if !image.labels.iter().any(|l| l == label) {
                    image.labels.push(label.to_string());
                }
            }
        }
        let affects = |label: &str, keys: &[String]| {
            !before_labels.iter().any(|l| l == label)
                || keys.iter().any(|k| changed.contains(&k.as_str()))
        };
        // An index over several labels is affected unless the entity had
        // one of them before and no key changed.
        let affects_index = |def: &crate::schema::IndexDef| {
            !def.labels().any(|l| before_labels.contains(l))
                || def.keys.iter().any(|k| changed.contains(&k.as_str()))
        };
        for constraint in catalog.constraints_on(entity, &image.labels) {
            let def = &constraint.def;
            if !affects(&def.label, &def.keys) {
                continue;
            }
            match &def.kind {
                ConstraintKind::PropertyType(types) => {
                    if let Some(value) = image.values.get(&def.keys[0]) {
                        if !types.iter().any(|t| has_type(value, t)) {
                            return Err(StorageError::ConstraintViolation(format!(
                                "{} with {} `{}` required the property `{}` to be of type `{}`, but was of type `{}`.",
                                entity_name(entity, id),
                                label_word(entity),
                                def.label,
                                def.keys[0],
                                types.iter().map(type_name).collect::<Vec<_>>().join(" | "),
                                value.type_name().to_uppercase(),
                            )));
                        }
                    }
                }
                ConstraintKind::Unique | ConstraintKind::Key => {
                    let (Some(index), Some(values)) =
                        (&constraint.index, image.values_of(&def.keys))
                    else {
                        continue;
                    };
                    if let Some(other) = holder(&self.reader(), index, &values, id) {
                        return Err(violation(entity, other, &def.label, &def.keys, &values));
                    }
                }
                ConstraintKind::Exists => {}
            }
        }
        check_vectors(&catalog, entity, &image, &affects)?;
        let result = write(self)?;
        let id = id.unwrap_or_else(|| created(&result));
        let mut after_keys = Vec::new();
        for index in catalog.indexes_on(entity, &image.labels) {
            let def = &index.def;
            if !affects_index(def) {
                continue;
            }
            let Some(values) = image.values_for(index) else {
                continue;
            };
            let Some(key) = key_of(def.kind, &values) else {
                continue;
            };
            index.insert(&key.bytes, id, key.wide);
            index.values_written(id, &values);
            if index.owning_constraint.is_some() {
                self.st.unique_keys.push((index.clone(), id));
            }
            self.st
                .index_inserts
                .push((index.clone(), key.bytes.clone(), id));
            after_keys.push((index.id, key.bytes));
        }
        for (index, key) in before_keys {
            let kept = if affects_index(&index.def) {
                after_keys.iter().any(|(i, k)| *i == index.id && *k == key)
            } else {
                image.has_any(&index.def)
            };
            if !kept {
                self.st.stale.push((index, key, id));
            }
        }
        Ok(result)
    }
}

impl Writer<'_> {
    /// Before a write takes `label` (or, with `None`, every label and the
    /// entity itself) away: the entity's entries in the indexes over them
    /// will be stale once the write is older than every snapshot.
    pub(super) fn schema_forget(&mut self, entity: EntityKind, id: u64, label: Option<&str>) {
        if self.core.replaying {
            return;
        }
        let catalog = self.store.schema.catalog();
        if catalog.indexes.is_empty() {
            return;
        }
        let image = Image::read(&self.reader(), &catalog, entity, id, None);
        let labels: Vec<String> = match label {
            Some(l) => image.labels.iter().filter(|x| *x == l).cloned().collect(),
            None => image.labels.clone(),
        };
        for index in catalog.indexes_on(entity, &labels) {
            if let Some(key) = image
                .values_for(index)
                .and_then(|v| key_of(index.def.kind, &v))
            {
                self.st.stale.push((index.clone(), key.bytes, id));
            }
        }
    }
}

/// Whether the catalog has anything to say about the write.
/// Refuses a write that would give an entity under a vector index a value
/// the index cannot hold, before anything is written (Neo4j refuses writes
/// of indexed vectors of the wrong dimension; a silently unindexed vector
/// would vanish from searches).
fn check_vectors(
    catalog: &Catalog,
    entity: EntityKind,
    image: &Image,
    affects: &impl Fn(&str, &[String]) -> bool,
) -> Result<()> {
    for index in catalog.indexes_on(entity, &image.labels) {
        let def = &index.def;
        if !def.kind.is_vector() || !affects(&def.label, &def.keys) {
            continue;
        }
        let Some(value) = image.values.get(&def.keys[0]) else {
            continue;
        };
        if let Err(e) = check_vector(def.kind, value) {
            return Err(StorageError::InvalidVector(format!(
                "The property `{}` of {} with {} `{}` is indexed by vector index `{}` and cannot be set: {e}",
                def.keys[0],
                entity_name(entity, None),
                label_word(entity),
                def.label,
                def.name,
            )));
        }
    }
    Ok(())
}

fn relevant(catalog: &Catalog, entity: EntityKind, prospect: &Prospect<'_>) -> bool {
    match prospect {
        Prospect::Create { labels, .. } => labels.iter().any(|l| catalog.covers(entity, l)),
        Prospect::Set(pairs) => pairs.iter().any(|(k, _)| catalog.reads_key(k)),
        Prospect::AddLabel(label) => catalog.covers(entity, label),
    }
}

/// Another entity than `me` whose keys in `index` equal `values` in the
/// reader's view.
pub(super) fn holder(
    reader: &Reader<'_>,
    index: &PropertyIndex,
    values: &[Value],
    me: Option<u64>,
) -> Option<u64> {
    let mut seek = IndexSeek::equal(values.to_vec());
    seek.limit = Some(2);
    crate::schema::seek(reader, index, &seek)?
        .into_iter()
        .find(|&e| Some(e) != me)
}

pub(super) fn violation(
    entity: EntityKind,
    other: u64,
    label: &str,
    keys: &[String],
    values: &[Value],
) -> StorageError {
    let described = described_keys(keys, values);
    StorageError::ConstraintViolation(format!(
        "{} already exists with {} `{label}` and property {described}",
        entity_name(entity, Some(other)),
        label_word(entity),
    ))
}

/// `` `k` = 'v' and property `q` = 2 ``: keys and values as Neo4j's
/// constraint messages name them.
pub(super) fn described_keys(keys: &[String], values: &[Value]) -> String {
    keys.iter()
        .zip(values)
        .map(|(k, v)| format!("`{k}` = {}", literal(v)))
        .collect::<Vec<_>>()
        .join(" and property ")
}

/// A value as Neo4j prints it in constraint messages: strings quoted.
pub(super) fn literal(v: &Value) -> String {
    match v {
        Value::String(s) => format!("'{s}'"),
        other => format!("{other}"),
    }
}

pub(super) fn entity_name(entity: EntityKind, id: Option<u64>) -> String {
    match (entity, id) {
        (EntityKind::Node, Some(id)) => format!("Node({})", NodeId(id).external()),
        (EntityKind::Relationship, Some(id)) => format!("Relationship({})", RelId(id).external()),
        (EntityKind::Node, None) => "Node".into(),
        (EntityKind::Relationship, None) => "Relationship".into(),
    }
}

pub(super) fn label_word(entity: EntityKind) -> &'static str {
    match entity {
        EntityKind::Node => "label",
        EntityKind::Relationship => "type",
    }
}

/// Whether `value` is of type `t` (Neo4j's property types).
pub(super) fn has_type(value: &Value, t: &ValueType) -> bool {
    match (t, value) {
        (ValueType::Boolean, Value::Bool(_))
        | (ValueType::String, Value::String(_))
        | (ValueType::Integer, Value::Int(_))
        | (ValueType::Float, Value::Float(_))
        | (ValueType::Date, Value::Date(_))
        | (ValueType::LocalTime, Value::LocalTime(_))
        | (ValueType::ZonedTime, Value::Time(_))
        | (ValueType::LocalDateTime, Value::LocalDateTime(_))
        | (ValueType::ZonedDateTime, Value::DateTime(_))
        | (ValueType::Duration, Value::Duration(_))
        | (ValueType::Point, Value::Point(_)) => true,
        (ValueType::Date, Value::WideLocal(w)) => !w.has_time,
        (ValueType::LocalDateTime, Value::WideLocal(w)) => w.has_time,
        (ValueType::List(inner), Value::List(items)) => items.iter().all(|i| has_type(i, inner)),
        _ => false,
    }
}

/// Neo4j's name of a property type (`INTEGER`, `LIST<STRING NOT NULL>`).
pub(super) fn type_name(t: &ValueType) -> String {
    match t {
        ValueType::Boolean => "BOOLEAN".into(),
        ValueType::String => "STRING".into(),
        ValueType::Integer => "INTEGER".into(),
        ValueType::Float => "FLOAT".into(),
        ValueType::Date => "DATE".into(),
        ValueType::LocalTime => "LOCAL TIME".into(),
        ValueType::ZonedTime => "ZONED TIME".into(),
        ValueType::LocalDateTime => "LOCAL DATETIME".into(),
        ValueType::ZonedDateTime => "ZONED DATETIME".into(),
        ValueType::Duration => "DURATION".into(),
        ValueType::Point => "POINT".into(),
        ValueType::List(inner) => format!("LIST<{} NOT NULL>", type_name(inner)),
    }
}

/// The schema's part of a commit (under the commit lock, after the
/// write-write validation, before the log): entries for indexes that
/// appeared after the writes began, uniqueness against every stamped
/// commit, existence constraints.
pub(super) fn validate_at_commit(
    store: &Store,
    view: View,
    st: &TxnState,
    last_commit: u64,
) -> Result<()> {
    let catalog = store.schema.catalog();
    if catalog.is_empty() {
        return Ok(());
    }
    let reader = Reader { store, view };
    let mut unique_keys = st.unique_keys.clone();
    if st
        .schema_version
        .is_some_and(|v| v != store.schema.version())
    {
        unique_keys.extend(index_late(&reader, &catalog, st));
    }
    let latest = Reader {
        store,
        view: View::committed(last_commit),
    };
    let mine = |e: u64| {
        st.created_nodes.contains(&e)
            || st.touched_nodes.contains(&e)
            || st.deleted_nodes.contains(&e)
            || st.created_rels.contains(&e)
            || st.touched_rels.contains(&e)
            || st.deleted_rels.contains(&e)
    };
    for (index, entity) in &unique_keys {
        let Some(values) = entity_values(&reader, index, *entity) else {
            continue;
        };
        let mut seek = IndexSeek::equal(values);
        seek.limit = Some(8);
        let others = crate::schema::seek(&latest, index, &seek).unwrap_or_default();
        if others.iter().any(|&o| o != *entity && !mine(o)) {
            return Err(StorageError::WriteConflict(format!(
                "a key of constraint `{}` concurrently taken",
                index.def.name
            )));
        }
    }
    check_existence(&reader, &catalog, st)
}

/// Adds this transaction's entities to indexes created after its first
/// write; returns those that back a constraint, for the uniqueness check.
fn index_late(
    reader: &Reader<'_>,
    catalog: &Catalog,
    st: &TxnState,
) -> Vec<(Arc<PropertyIndex>, u64)> {
    let mut unique = Vec::new();
    let nodes = st.created_nodes.iter().chain(&st.touched_nodes);
    let rels = st.created_rels.iter().chain(&st.touched_rels);
    let entities = nodes
        .map(|&n| (EntityKind::Node, n))
        .chain(rels.map(|&r| (EntityKind::Relationship, r)));
    for (kind, id) in entities {
        for index in catalog.indexes.iter().filter(|i| i.def.entity == kind) {
            let Some(values) = entity_values(reader, index, id) else {
                continue;
            };
            if let Some(key) = key_of(index.def.kind, &values) {
                index.insert(&key.bytes, id, key.wide);
                index.values_written(id, &values);
                if index.owning_constraint.is_some() {
                    unique.push((index.clone(), id));
                }
            }
        }
    }
    unique
}

/// Existence (and key) constraints over the entities this transaction
/// created or changed.
fn check_existence(reader: &Reader<'_>, catalog: &Catalog, st: &TxnState) -> Result<()> {
    let exists: Vec<_> = catalog
        .constraints
        .iter()
        .filter(|c| matches!(c.def.kind, ConstraintKind::Exists | ConstraintKind::Key))
        .collect();
    if exists.is_empty() {
        return Ok(());
    }
    for &node in st.created_nodes.iter().chain(&st.touched_nodes) {
        for c in exists.iter().filter(|c| c.def.entity == EntityKind::Node) {
            if !reader.node_has_label(node, &c.def.label) {
                continue;
            }
            if let Some(key) = c
                .def
                .keys
                .iter()
                .find(|k| reader.node_property(node, k).is_none())
            {
                return Err(missing(EntityKind::Node, node, &c.def.label, key));
            }
        }
    }
    for &rel in st.created_rels.iter().chain(&st.touched_rels) {
        let Some(edge) = reader.edge(rel) else {
            continue;
        };
        let rel_type = reader.store.types.name(edge.type_id).unwrap_or_default();
        for c in exists
            .iter()
            .filter(|c| c.def.entity == EntityKind::Relationship)
        {
            if c.def.label != rel_type {
                continue;
            }
            if let Some(key) = c
                .def
                .keys
                .iter()
                .find(|k| reader.rel_property(rel, k).is_none())
            {
                return Err(missing(EntityKind::Relationship, rel, &c.def.label, key));
            }
        }
    }
    Ok(())
}

fn missing(entity: EntityKind, id: u64, label: &str, key: &str) -> StorageError {
    StorageError::ConstraintViolation(format!(
        "{} with {} `{label}` must have the property `{key}`",
        entity_name(entity, Some(id)),
        label_word(entity),
    ))
}
