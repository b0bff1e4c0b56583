//! `db.labels`, `db.relationshipTypes`, `db.propertyKeys`: the names in
//! use in the transaction's snapshot, sorted.
//!
//! Cost: these scan every visible node (and, for types and keys, every
//! outgoing relationship), O(V + E) per call, because the store keeps no
//! token catalog yet. Tools call them once per connection or schema view;
//! a catalog of names with usage counts would make them O(names).
//!
//! Neo4j lists property keys ever created, even unused ones; we list only
//! keys in use (the store does not remember the others).

use super::Procedure;
use crate::error::ExecResult;
use nereid_storage::Txn;
use nereid_values::{Direction, Value};
use std::collections::BTreeSet;

pub(super) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "db.labels",
        inputs: &[],
        outputs: &["label"],
        description: "List all labels attached to nodes within a database.",
        mode: "READ",
        body: labels,
    },
    Procedure {
        name: "db.relationshipTypes",
        inputs: &[],
        outputs: &["relationshipType"],
        description: "List all types attached to relationships within a database.",
        mode: "READ",
        body: relationship_types,
    },
    Procedure {
        name: "db.propertyKeys",
        inputs: &[],
        outputs: &["propertyKey"],
        description: "List all property keys in use in the database.",
        mode: "READ",
        body: property_keys,
    },
];

fn rows(names: BTreeSet<String>) -> Vec<Vec<Value>> {
    names.into_iter().map(|n| vec![Value::from(n)]).collect()
}

fn labels(txn: &Txn, _args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let mut names = BTreeSet::new();
    for node in txn.scan_nodes(None) {
        names.extend(txn.node_labels(node));
    }
    Ok(rows(names))
}

fn relationship_types(txn: &Txn, _args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let mut names = BTreeSet::new();
    for node in txn.scan_nodes(None) {
        for (rel, _) in txn.expand(node, Direction::Outgoing, &[]) {
            if let Some((_, _, rel_type)) = txn.rel_endpoints(rel) {
                names.insert(rel_type);
            }
        }
    }
    Ok(rows(names))
}

fn property_keys(txn: &Txn, _args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let mut names = BTreeSet::new();
    for node in txn.scan_nodes(None) {
        names.extend(txn.node_properties(node).into_keys());
        for (rel, _) in txn.expand(node, Direction::Outgoing, &[]) {
            names.extend(txn.rel_properties(rel).into_keys());
        }
    }
    Ok(rows(names))
}
