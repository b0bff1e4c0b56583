//! `apoc.merge.node` and `apoc.merge.relationship` (and their `.eager`
//! forms, the same here: a call's writes are done before it returns its
//! rows): MERGE with labels, types and keys given as values, which is how
//! GraphRAG writers (langchain-neo4j's `add_graph_documents`) upsert
//! entities whose labels they only know at run time.
//!
//! The rules are MERGE's: every entity matching the labels (type) and the
//! identifying properties is returned, after `onMatchProps` is added to
//! it; with none, one is created with the identifying and `onCreateProps`
//! properties. A null identifying value is refused (the entity could never
//! match itself). The writes go through the transaction like a MERGE's, so
//! constraints, isolation and the summary's counters are the same.

use super::apoc_args::{arg, failed, names, node, properties};
use super::Procedure;
use crate::error::ExecResult;
use nereid_planner::ProcedureType;
use nereid_storage::{EntityKind, IndexKind, IndexSeek, IndexState, KeyPredicate, Txn};
use nereid_values::{Direction, NodeId, Value};
use std::collections::BTreeMap;

const NODE_INPUTS: &[(&str, ProcedureType)] = &[
    ("labels", ProcedureType::List),
    ("identProps", ProcedureType::Map),
    ("onCreateProps = {}", ProcedureType::Map),
    ("onMatchProps = {}", ProcedureType::Map),
];

const REL_INPUTS: &[(&str, ProcedureType)] = &[
    ("startNode", ProcedureType::Node),
    ("relType", ProcedureType::String),
    ("identProps", ProcedureType::Map),
    ("onCreateProps", ProcedureType::Map),
    ("endNode", ProcedureType::Node),
    ("onMatchProps = {}", ProcedureType::Map),
];

pub(super) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "apoc.merge.node",
        inputs: NODE_INPUTS,
        outputs: &["node"],
        description: "Merges the given NODE values with the given dynamic labels.",
        mode: "WRITE",
        body: merge_node,
    },
    Procedure {
        name: "apoc.merge.node.eager",
        inputs: NODE_INPUTS,
        outputs: &["node"],
        description: "Merges the given NODE values with the given dynamic labels eagerly.",
        mode: "WRITE",
        body: merge_node_eager,
    },
    Procedure {
        name: "apoc.merge.relationship",
        inputs: REL_INPUTS,
        outputs: &["rel"],
        description:
            "Merges the given RELATIONSHIP values with the given dynamic types/properties.",
        mode: "WRITE",
        body: merge_relationship,
    },
    Procedure {
        name: "apoc.merge.relationship.eager",
        inputs: REL_INPUTS,
        outputs: &["rel"],
        description:
            "Merges the given RELATIONSHIP values with the given dynamic types/properties eagerly.",
        mode: "WRITE",
        body: merge_relationship_eager,
    },
];

/// The identifying properties: a map without null values.
fn identifying(procedure: &str, what: &str, value: &Value) -> ExecResult<BTreeMap<String, Value>> {
    let ident = properties(procedure, value)?;
    if let Some((key, _)) = ident.iter().find(|(_, v)| v.is_null()) {
        return Err(failed(
            procedure,
            format!("Cannot merge the following {what} because of null property value for '{key}'"),
        ));
    }
    Ok(ident)
}

/// Whether `stored` has every identifying property, equal as by `=`.
fn matches(stored: &BTreeMap<String, Value>, ident: &BTreeMap<String, Value>) -> bool {
    ident
        .iter()
        .all(|(key, value)| stored.get(key).and_then(|s| s.cypher_eq(value)) == Some(true))
}

/// What a create writes: identifying and on-create properties, nulls left out.
fn created(
    ident: BTreeMap<String, Value>,
    on_create: BTreeMap<String, Value>,
) -> BTreeMap<String, Value> {
    ident
        .into_iter()
        .chain(on_create)
        .filter(|(_, v)| !v.is_null())
        .collect()
}

fn merge_node(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    merge_node_as("apoc.merge.node", txn, args)
}

fn merge_node_eager(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    merge_node_as("apoc.merge.node.eager", txn, args)
}

fn merge_node_as(procedure: &str, txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let labels = names(procedure, arg(args, 0))?;
    let ident = identifying(procedure, "node", arg(args, 1))?;
    if ident.is_empty() {
        return Err(failed(
            procedure,
            "you need to supply at least one identifying property for a merge",
        ));
    }
    let on_create = properties(procedure, arg(args, 2))?;
    let on_match = properties(procedure, arg(args, 3))?;
    let found: Vec<_> = candidates(txn, &labels, &ident)
        .into_iter()
        .filter(|&id| labels.iter().all(|label| txn.node_has_label(id, label)))
        .filter(|&id| matches(&txn.node_properties(id), &ident))
        .collect();
    if found.is_empty() {
        let id = txn.create_node(&labels, &created(ident, on_create))?;
        return Ok(vec![vec![Value::Node(id)]]);
    }
    for &id in &found {
        if !on_match.is_empty() {
            txn.set_node_properties(id, on_match.clone())?;
        }
    }
    Ok(found.into_iter().map(|id| vec![Value::Node(id)]).collect())
}

/// The nodes that may match: an online range index's answer for one of
/// the labels and identifying keys when there is one (O(log n): bulk
/// upserts of GraphRAG writers merge entity by entity under a uniqueness
/// constraint), else the first label's scan (all nodes without labels).
fn candidates(txn: &Txn, labels: &[String], ident: &BTreeMap<String, Value>) -> Vec<NodeId> {
    let schema = txn.schema();
    for index in &schema.indexes {
        let def = &index.def;
        let usable = index.state == IndexState::Online
            && def.kind == IndexKind::Range
            && def.entity == EntityKind::Node
            && labels.contains(&def.label);
        let Some(value) = def.keys.first().and_then(|key| ident.get(key)) else {
            continue;
        };
        if !usable {
            continue;
        }
        let seek = IndexSeek {
            equal: vec![value.clone()],
            next: KeyPredicate::All,
            descending: false,
            limit: None,
        };
        if let Some(ids) = txn.seek_nodes(&def.name, &seek) {
            return ids;
        }
    }
    txn.scan_nodes(labels.first().map(String::as_str))
}

fn merge_relationship(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    merge_relationship_as("apoc.merge.relationship", txn, args)
}

fn merge_relationship_eager(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    merge_relationship_as("apoc.merge.relationship.eager", txn, args)
}

fn merge_relationship_as(
    procedure: &str,
    txn: &Txn,
    args: &[Value],
) -> ExecResult<Vec<Vec<Value>>> {
    let start = node(procedure, "start node", arg(args, 0))?;
    let rel_type = match arg(args, 1) {
        Value::String(t) if !t.is_empty() => t.clone(),
        _ => {
            return Err(failed(
                procedure,
                "It is not possible to create a relationship with an empty or null type.",
            ))
        }
    };
    let ident = identifying(procedure, "relationship", arg(args, 2))?;
    let on_create = properties(procedure, arg(args, 3))?;
    let end = node(procedure, "end node", arg(args, 4))?;
    let on_match = properties(procedure, arg(args, 5))?;
    let found: Vec<_> = txn
        .expand_into(
            start,
            end,
            Direction::Outgoing,
            std::slice::from_ref(&rel_type),
        )
        .into_iter()
        .map(|(rel, _)| rel)
        .filter(|&rel| matches(&txn.rel_properties(rel), &ident))
        .collect();
    if found.is_empty() {
        let id = txn.create_rel(start, end, &rel_type, &created(ident, on_create))?;
        return Ok(vec![vec![Value::Relationship(id)]]);
    }
    for &id in &found {
        if !on_match.is_empty() {
            txn.set_rel_properties(id, on_match.clone())?;
        }
    }
    Ok(found
        .into_iter()
        .map(|id| vec![Value::Relationship(id)])
        .collect())
}
