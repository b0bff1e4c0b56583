//! `apoc.schema.nodes`: the node indexes and constraints as APOC lists
//! them (langchain-neo4j's `refresh_schema` reads RANGE indexes' `size` and
//! `valuesSelectivity` from it). One row per constraint (its type from
//! `schema_names`, its backing index's state) and per index no constraint
//! owns; `name` is APOC's `:Label(key1,key2)`.
//!
//! `size` and `valuesSelectivity` (distinct key tuples / size) are counted
//! over the nodes of the label visible to the transaction: O(nodes of the
//! label) per row, exact where Neo4j samples.

use super::schema_names::{constraint_type, index_provider, index_type, shown_id};
use super::Procedure;
use crate::error::ExecResult;
use nereid_planner::ProcedureType;
use nereid_storage::{EntityKind, IndexInfo, IndexState, Txn};
use nereid_values::Value;
use std::collections::BTreeSet;

pub(super) const PROCEDURES: &[Procedure] = &[Procedure {
    name: "apoc.schema.nodes",
    inputs: &[("config = {}", ProcedureType::Map)],
    outputs: &[
        "name",
        "label",
        "properties",
        "status",
        "type",
        "failure",
        "populationProgress",
        "size",
        "valuesSelectivity",
        "userDescription",
    ],
    description:
        "Returns all indexes and constraints information for all NODE labels in the database.",
    mode: "READ",
    body: schema_nodes,
}];

/// `(size, valuesSelectivity)` of `keys` over the nodes labelled `label`.
fn selectivity(txn: &Txn, label: &str, keys: &[String]) -> (i64, f64) {
    let mut size = 0i64;
    let mut distinct = BTreeSet::new();
    for node in txn.scan_nodes(Some(label)) {
        let values: Option<Vec<Value>> = keys.iter().map(|k| txn.node_property(node, k)).collect();
        if let Some(values) = values {
            size += 1;
            distinct.insert(format!("{values:?}"));
        }
    }
    let ratio = if size == 0 {
        1.0
    } else {
        distinct.len() as f64 / size as f64
    };
    (size, ratio)
}

/// `status`, `failure`, `populationProgress` of an index (or of a
/// constraint without one: always online).
fn state(index: Option<&IndexInfo>) -> [Value; 3] {
    match index.map(|i| &i.state) {
        None | Some(IndexState::Online) => [
            Value::from("ONLINE"),
            Value::from("NO FAILURE"),
            Value::Float(100.0),
        ],
        Some(IndexState::Populating { percent }) => [
            Value::from("POPULATING"),
            Value::from("NO FAILURE"),
            Value::Float(*percent),
        ],
        Some(IndexState::Failed(why)) => [
            Value::from("FAILED"),
            Value::from(why.as_str()),
            Value::Float(0.0),
        ],
    }
}

/// The columns every row shares, around its type, state and description.
fn row(
    txn: &Txn,
    label: &str,
    keys: &[String],
    kind: &str,
    state: [Value; 3],
    description: String,
) -> Vec<Value> {
    let (size, ratio) = selectivity(txn, label, keys);
    let [status, failure, progress] = state;
    vec![
        Value::from(format!(":{label}({})", keys.join(","))),
        Value::from(label),
        Value::List(keys.iter().map(|k| Value::from(k.as_str())).collect()),
        status,
        Value::from(kind),
        failure,
        progress,
        Value::Int(size),
        Value::Float(ratio),
        Value::from(description),
    ]
}

fn schema(label: &str, keys: &[String]) -> String {
    format!("(:{label} {{{}}})", keys.join(", "))
}

fn schema_nodes(txn: &Txn, _args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let view = txn.schema();
    let mut rows = Vec::new();
    for constraint in &view.constraints {
        let def = &constraint.def;
        if def.entity != EntityKind::Node {
            continue;
        }
        let index = constraint
            .owned_index
            .as_ref()
            .and_then(|name| view.indexes.iter().find(|i| &i.def.name == name));
        let kind = constraint_type(def);
        let description = format!(
            "Constraint( id={}, name='{}', type='{}', schema={} )",
            shown_id(constraint.id),
            def.name,
            kind.replace('_', " "),
            schema(&def.label, &def.keys)
        );
        rows.push(row(
            txn,
            &def.label,
            &def.keys,
            kind,
            state(index),
            description,
        ));
    }
    for index in &view.indexes {
        let def = &index.def;
        if def.entity != EntityKind::Node || index.owning_constraint.is_some() {
            continue;
        }
        let description = format!(
            "Index( id={}, name='{}', type='{}', schema={}, indexProvider='{}' )",
            shown_id(index.id),
            def.name,
            index_type(def.kind),
            schema(&def.label, &def.keys),
            index_provider(def.kind)
        );
        let kind = index_type(def.kind);
        rows.push(row(
            txn,
            &def.label,
            &def.keys,
            kind,
            state(Some(index)),
            description,
        ));
    }
    Ok(rows)
}
