//! `db.schema.nodeTypeProperties` and `db.schema.relTypeProperties`:
//! Neo4j's own view of the properties per node type (the set of labels a
//! node has, written ``:`A`:`B` ``) and per relationship type, with the
//! type names Neo4j prints (`String`, `Long`, `Double`, `StringArray`,
//! ...) and whether every entity of the type has the property. Browser,
//! Bloom and schema tools call them.
//!
//! Cost: one pass over every visible node and relationship, O(V + E).
//! Unlabelled nodes form no node type and are not listed.

use super::Procedure;
use crate::error::ExecResult;
use nereid_storage::Txn;
use nereid_values::{Direction, Value};
use std::collections::{BTreeMap, BTreeSet};

pub(super) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "db.schema.nodeTypeProperties",
        inputs: &[],
        outputs: &[
            "nodeType",
            "nodeLabels",
            "propertyName",
            "propertyTypes",
            "mandatory",
        ],
        description: "Show the derived property schema of the nodes in tabular form.",
        mode: "READ",
        body: node_type_properties,
    },
    Procedure {
        name: "db.schema.relTypeProperties",
        inputs: &[],
        outputs: &["relType", "propertyName", "propertyTypes", "mandatory"],
        description: "Show the derived property schema of the relationships in tabular form.",
        mode: "READ",
        body: rel_type_properties,
    },
];

/// Neo4j's name for the type of a stored value.
fn neo4j_type(value: &Value) -> String {
    // Neo4j's names are the value type names but for its Java numbers.
    let scalar = |value: &Value| match value {
        Value::Int(_) => "Long",
        Value::Float(_) => "Double",
        other => other.type_name(),
    };
    match value {
        Value::Bytes(_) => "ByteArray".to_string(),
        Value::List(items) => {
            let element = items.first().map_or("String", scalar);
            format!("{element}Array")
        }
        other => scalar(other).to_string(),
    }
}

/// Entities of one type: how many, and per key how many have it and with
/// which types.
#[derive(Default)]
struct TypeShape {
    count: u64,
    keys: BTreeMap<String, (u64, BTreeSet<String>)>,
}

impl TypeShape {
    fn observe(&mut self, properties: BTreeMap<String, Value>) {
        self.count += 1;
        for (key, value) in properties {
            let (holders, types) = self.keys.entry(key).or_default();
            *holders += 1;
            types.insert(neo4j_type(&value));
        }
    }

    /// `(propertyName, propertyTypes, mandatory)` per key; one row of nulls
    /// and `false` for a type without properties.
    fn rows(&self) -> Vec<[Value; 3]> {
        if self.keys.is_empty() {
            return vec![[Value::Null, Value::Null, Value::Bool(false)]];
        }
        self.keys
            .iter()
            .map(|(key, (holders, types))| {
                [
                    Value::from(key.as_str()),
                    Value::List(types.iter().map(|t| Value::from(t.as_str())).collect()),
                    Value::Bool(*holders == self.count),
                ]
            })
            .collect()
    }
}

/// ``:`A`:`B` ``: a node type or relationship type as Neo4j names it.
fn type_name<'a>(names: impl IntoIterator<Item = &'a String>) -> String {
    names
        .into_iter()
        .map(|name| format!(":`{}`", name.replace('`', "``")))
        .collect()
}

fn node_type_properties(txn: &Txn, _args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let mut types: BTreeMap<Vec<String>, TypeShape> = BTreeMap::new();
    for node in txn.scan_nodes(None) {
        let mut labels = txn.node_labels(node);
        if labels.is_empty() {
            continue;
        }
        labels.sort();
        types
            .entry(labels)
            .or_default()
            .observe(txn.node_properties(node));
    }
    let mut rows = Vec::new();
    for (labels, shape) in &types {
        for [name, property_types, mandatory] in shape.rows() {
            rows.push(vec![
                Value::from(type_name(labels)),
                Value::List(labels.iter().map(|l| Value::from(l.as_str())).collect()),
                name,
                property_types,
                mandatory,
            ]);
        }
    }
    Ok(rows)
}

fn rel_type_properties(txn: &Txn, _args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let mut types: BTreeMap<String, TypeShape> = BTreeMap::new();
    for node in txn.scan_nodes(None) {
        for (rel, _) in txn.expand(node, Direction::Outgoing, &[]) {
            if let Some((_, _, rel_type)) = txn.rel_endpoints(rel) {
                types
                    .entry(rel_type)
                    .or_default()
                    .observe(txn.rel_properties(rel));
            }
        }
    }
    let mut rows = Vec::new();
    for (rel_type, shape) in &types {
        for [name, property_types, mandatory] in shape.rows() {
            rows.push(vec![
                Value::from(type_name([rel_type])),
                name,
                property_types,
                mandatory,
            ]);
        }
    }
    Ok(rows)
}
