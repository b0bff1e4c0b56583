//! `apoc.meta.data` and `apoc.meta.schema`: the graph's shape as APOC
//! reports it, which schema-reading tools (langchain-neo4j's
//! `refresh_schema`, LlamaIndex's property graph store) query instead of
//! the store's own catalog.
//!
//! APOC samples every 1000th node (its `sample` option); we read every node
//! and relationship once, O(V + E) per call, so the answer is exact and the
//! same on every call. The options are accepted and ignored for that
//! reason. Types are APOC's names (`STRING`, `INTEGER`, `FLOAT`,
//! `BOOLEAN`, `LIST`, `DATE`, `DATE_TIME`, ...); a property seen with
//! several types reports the first one met, as APOC's sample does.

use super::Procedure;
use crate::error::ExecResult;
use nereid_planner::ProcedureType;
use nereid_storage::{ConstraintKind, EntityKind, SchemaView, Txn};
use nereid_values::{Direction, NodeId, Value};
use std::collections::{BTreeMap, BTreeSet};

pub(super) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "apoc.meta.data",
        inputs: &[("config = {}", ProcedureType::Map)],
        outputs: &[
            "label",
            "property",
            "count",
            "unique",
            "index",
            "existence",
            "type",
            "array",
            "sample",
            "left",
            "right",
            "other",
            "otherLabels",
            "elementType",
        ],
        description: "Examines the full graph and returns a table of metadata.",
        mode: "READ",
        body: meta_data,
    },
    Procedure {
        name: "apoc.meta.schema",
        inputs: &[("config = {}", ProcedureType::Map)],
        outputs: &["value"],
        description: "Examines the given sub-graph and returns metadata as a MAP.",
        mode: "READ",
        body: meta_schema,
    },
];

/// APOC's name for the type of a stored value.
fn apoc_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "NULL",
        Value::Bool(_) => "BOOLEAN",
        Value::Int(_) => "INTEGER",
        Value::Float(_) => "FLOAT",
        Value::String(_) => "STRING",
        Value::Bytes(_) | Value::List(_) => "LIST",
        Value::Map(_) => "MAP",
        Value::Node(_) => "NODE",
        Value::Relationship(_) => "RELATIONSHIP",
        Value::Path(_) => "PATH",
        Value::Date(_) => "DATE",
        Value::LocalTime(_) => "LOCAL_TIME",
        Value::Time(_) => "TIME",
        Value::LocalDateTime(_) => "LOCAL_DATE_TIME",
        Value::DateTime(_) => "DATE_TIME",
        Value::Duration(_) => "DURATION",
        Value::Point(_) => "POINT",
        Value::WideLocal(w) if w.has_time => "LOCAL_DATE_TIME",
        Value::WideLocal(_) => "DATE",
        _ => "ANY",
    }
}

/// A property key's first seen type.
struct PropertyShape {
    type_name: &'static str,
    array: bool,
}

/// Relationships of one type leaving nodes of one label.
#[derive(Default)]
struct OutgoingShape {
    count: u64,
    targets: BTreeSet<String>,
    sources: BTreeSet<NodeId>,
    ends: BTreeSet<NodeId>,
}

/// Entities of one label (or type): how many, and their keys.
type Keyed = (u64, BTreeMap<String, PropertyShape>);

/// Everything both procedures report, gathered in one pass.
#[derive(Default)]
struct GraphShape {
    labels: BTreeMap<String, Keyed>,
    types: BTreeMap<String, Keyed>,
    /// (label, type) -> the relationships leaving nodes of that label.
    outgoing: BTreeMap<(String, String), OutgoingShape>,
}

fn observe(shapes: &mut BTreeMap<String, PropertyShape>, properties: &BTreeMap<String, Value>) {
    for (key, value) in properties {
        shapes.entry(key.clone()).or_insert_with(|| PropertyShape {
            type_name: apoc_type(value),
            array: matches!(value, Value::List(_) | Value::Bytes(_)),
        });
    }
}

fn graph_shape(txn: &Txn) -> GraphShape {
    let mut shape = GraphShape::default();
    for node in txn.scan_nodes(None) {
        let labels = txn.node_labels(node);
        let properties = txn.node_properties(node);
        for label in &labels {
            let (count, keys) = shape.labels.entry(label.clone()).or_default();
            *count += 1;
            observe(keys, &properties);
        }
        for (rel, target) in txn.expand(node, Direction::Outgoing, &[]) {
            let Some((_, _, rel_type)) = txn.rel_endpoints(rel) else {
                continue;
            };
            let (count, keys) = shape.types.entry(rel_type.clone()).or_default();
            *count += 1;
            observe(keys, &txn.rel_properties(rel));
            let target_labels = txn.node_labels(target);
            for label in &labels {
                let out = shape
                    .outgoing
                    .entry((label.clone(), rel_type.clone()))
                    .or_default();
                out.count += 1;
                out.targets.extend(target_labels.iter().cloned());
                out.sources.insert(node);
                out.ends.insert(target);
            }
        }
    }
    shape
}

/// Whether the schema indexes or constrains a key of a label or type.
struct SchemaFlags {
    schema: SchemaView,
}

impl SchemaFlags {
    /// An index whose first key is `key` (one that can answer a seek on it).
    fn indexed(&self, entity: EntityKind, label: &str, key: &str) -> bool {
        self.schema.indexes.iter().any(|i| {
            i.def.entity == entity
                && i.def.label == label
                && i.def.keys.first().map(String::as_str) == Some(key)
        })
    }

    /// A uniqueness (`unique`) or existence (`!unique`) rule on `key`; a key
    /// constraint is both.
    fn constrained(&self, entity: EntityKind, label: &str, key: &str, unique: bool) -> bool {
        self.schema.constraints.iter().any(|c| {
            c.def.entity == entity
                && c.def.label == label
                && c.def.keys.iter().any(|k| k == key)
                && match c.def.kind {
                    ConstraintKind::Key => true,
                    ConstraintKind::Unique => unique,
                    ConstraintKind::Exists => !unique,
                    ConstraintKind::PropertyType(_) => false,
                }
        })
    }
}

fn strings(items: impl IntoIterator<Item = String>) -> Value {
    Value::List(items.into_iter().map(Value::from).collect())
}

fn element_type(entity: EntityKind) -> Value {
    Value::from(match entity {
        EntityKind::Node => "node",
        EntityKind::Relationship => "relationship",
    })
}

/// One `apoc.meta.data` row of a property of a label or type.
fn property_row(
    flags: &SchemaFlags,
    entity: EntityKind,
    label: &str,
    key: &str,
    shape: &PropertyShape,
) -> Vec<Value> {
    vec![
        Value::from(label),
        Value::from(key),
        Value::Int(0),
        Value::Bool(flags.constrained(entity, label, key, true)),
        Value::Bool(flags.indexed(entity, label, key)),
        Value::Bool(flags.constrained(entity, label, key, false)),
        Value::from(shape.type_name),
        Value::Bool(shape.array),
        Value::Null,
        Value::Int(0),
        Value::Int(0),
        strings([]),
        strings([]),
        element_type(entity),
    ]
}

/// Rows: per label its outgoing relationship types (`type =
/// "RELATIONSHIP"`, the type in `property`, the target labels in `other`)
/// and its properties; then per relationship type its properties.
/// `left`/`right` of a relationship row are the average number of such
/// relationships per source and per target node.
fn meta_data(txn: &Txn, _args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let shape = graph_shape(txn);
    let flags = SchemaFlags {
        schema: txn.schema(),
    };
    let mut rows = Vec::new();
    for (label, (_, keys)) in &shape.labels {
        let from_label = shape
            .outgoing
            .range((label.clone(), String::new())..)
            .take_while(|((source, _), _)| source == label);
        for ((_, rel_type), out) in from_label {
            let average = |per: usize| Value::Int((out.count / per.max(1) as u64) as i64);
            rows.push(vec![
                Value::from(label.as_str()),
                Value::from(rel_type.as_str()),
                Value::Int(out.count as i64),
                Value::Bool(false),
                Value::Bool(false),
                Value::Bool(false),
                Value::from("RELATIONSHIP"),
                Value::Bool(true),
                Value::Null,
                average(out.sources.len()),
                average(out.ends.len()),
                strings(out.targets.iter().cloned()),
                strings([]),
                Value::from("node"),
            ]);
        }
        for (key, property) in keys {
            rows.push(property_row(&flags, EntityKind::Node, label, key, property));
        }
    }
    for (rel_type, (_, keys)) in &shape.types {
        for (key, property) in keys {
            rows.push(property_row(
                &flags,
                EntityKind::Relationship,
                rel_type,
                key,
                property,
            ));
        }
    }
    Ok(rows)
}

fn map<const N: usize>(entries: [(&str, Value); N]) -> Value {
    Value::Map(
        entries
            .into_iter()
            .map(|(key, value)| (key.to_string(), value))
            .collect(),
    )
}

/// The properties map of `apoc.meta.schema`: key -> {type, array,
/// indexed, unique, existence}.
fn schema_properties(
    flags: &SchemaFlags,
    entity: EntityKind,
    label: &str,
    keys: &BTreeMap<String, PropertyShape>,
) -> Value {
    Value::Map(
        keys.iter()
            .map(|(key, shape)| {
                let entry = map([
                    ("type", Value::from(shape.type_name)),
                    ("array", Value::Bool(shape.array)),
                    ("indexed", Value::Bool(flags.indexed(entity, label, key))),
                    (
                        "unique",
                        Value::Bool(flags.constrained(entity, label, key, true)),
                    ),
                    (
                        "existence",
                        Value::Bool(flags.constrained(entity, label, key, false)),
                    ),
                ]);
                (key.clone(), entry)
            })
            .collect(),
    )
}

/// One row, one map: per label `{type: "node", count, labels: [],
/// properties, relationships: {T: {direction: "out", count, labels,
/// properties}}}`, per relationship type `{type: "relationship", count,
/// properties}`. A name used as both a label and a type keeps the label.
fn meta_schema(txn: &Txn, _args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let shape = graph_shape(txn);
    let flags = SchemaFlags {
        schema: txn.schema(),
    };
    let rel_properties = |rel_type: &str| {
        shape.types.get(rel_type).map_or(map([]), |(_, keys)| {
            schema_properties(&flags, EntityKind::Relationship, rel_type, keys)
        })
    };
    let mut out = BTreeMap::new();
    for (rel_type, (count, _)) in &shape.types {
        let entry = map([
            ("type", Value::from("relationship")),
            ("count", Value::Int(*count as i64)),
            ("properties", rel_properties(rel_type)),
        ]);
        out.insert(rel_type.clone(), entry);
    }
    for (label, (count, keys)) in &shape.labels {
        let relationships = shape
            .outgoing
            .iter()
            .filter(|((source, _), _)| source == label)
            .map(|((_, rel_type), rel)| {
                let entry = map([
                    ("direction", Value::from("out")),
                    ("count", Value::Int(rel.count as i64)),
                    ("labels", strings(rel.targets.iter().cloned())),
                    ("properties", rel_properties(rel_type)),
                ]);
                (rel_type.clone(), entry)
            })
            .collect();
        let entry = map([
            ("type", Value::from("node")),
            ("count", Value::Int(*count as i64)),
            ("labels", strings([])),
            (
                "properties",
                schema_properties(&flags, EntityKind::Node, label, keys),
            ),
            ("relationships", Value::Map(relationships)),
        ]);
        out.insert(label.clone(), entry);
    }
    Ok(vec![vec![Value::Map(out)]])
}
