//! Neo4j's vector procedures: `db.index.vector.queryNodes` /
//! `queryRelationships` (the `k` nearest entities of a vector index in the
//! transaction's view, best first, with their scores) and
//! `db.create.setNodeVectorProperty` / `setRelationshipVectorProperty` (a
//! checked vector write). Refusals are
//! the store's (`StorageError::VectorQueryRefused`) or
//! `ExecError::ProcedureCallFailed`, before anything is read or written.

use super::vector_prefilter::Prefilter;
use super::Procedure;
use crate::error::{ExecError, ExecResult};
use nereid_planner::ProcedureType;
use nereid_storage::{EntityKind, Txn};
use nereid_values::{NodeId, RelId, Value};
use nereid_vector::Vector;

const QUERY_INPUTS: &[(&str, ProcedureType)] = &[
    ("indexName", ProcedureType::String),
    ("numberOfNearestNeighbours", ProcedureType::Integer),
    ("query", ProcedureType::List),
];

pub(super) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "db.index.vector.queryNodes",
        inputs: QUERY_INPUTS,
        outputs: &["node", "score"],
        description: "Query the given node vector index: its k nodes nearest the query vector, best first, with their similarity scores.",
        mode: "READ",
        body: query_nodes,
    },
    Procedure {
        name: "db.index.vector.queryRelationships",
        inputs: QUERY_INPUTS,
        outputs: &["relationship", "score"],
        description: "Query the given relationship vector index: its k relationships nearest the query vector, best first, with their similarity scores.",
        mode: "READ",
        body: query_relationships,
    },
    Procedure {
        name: "db.create.setNodeVectorProperty",
        inputs: &[
            ("node", ProcedureType::Node),
            ("key", ProcedureType::String),
            ("vector", ProcedureType::List),
        ],
        outputs: &[],
        description: "Set a vector property on a node, checked to be a list of finite numbers and stored as 32-bit floats.",
        mode: "WRITE",
        body: set_node_vector_property,
    },
    Procedure {
        name: "db.create.setRelationshipVectorProperty",
        inputs: &[
            ("relationship", ProcedureType::Relationship),
            ("key", ProcedureType::String),
            ("vector", ProcedureType::List),
        ],
        outputs: &[],
        description: "Set a vector property on a relationship, checked to be a list of finite numbers and stored as 32-bit floats.",
        mode: "WRITE",
        body: set_relationship_vector_property,
    },
];

/// Decides one candidate result row of a search (true: keep it).
pub(crate) type CandidateTest<'a> = dyn FnMut(&[Value]) -> ExecResult<bool> + 'a;

/// A search that applies a `YIELD ... WHERE` test to its candidates.
pub(crate) type FilteredBody =
    fn(&Txn, &[Value], &mut CandidateTest<'_>, &Prefilter) -> ExecResult<Vec<Vec<Value>>>;

/// The filtered form of a vector query procedure, by name: the `k` best
/// candidates that pass the test (issue 28's filtered search).
pub(crate) fn filtered_body(name: &str) -> Option<FilteredBody> {
    match name {
        "db.index.vector.queryNodes" => Some(query_nodes_filtered),
        "db.index.vector.queryRelationships" => Some(query_relationships_filtered),
        _ => None,
    }
}

fn node(id: u64) -> Value {
    Value::Node(NodeId(id))
}

fn relationship(id: u64) -> Value {
    Value::Relationship(RelId(id))
}

fn query_nodes(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    query(txn, args, EntityKind::Node, node, &mut |_| Ok(true), None)
}

fn query_relationships(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    query(
        txn,
        args,
        EntityKind::Relationship,
        relationship,
        &mut |_| Ok(true),
        None,
    )
}

fn query_nodes_filtered(
    txn: &Txn,
    args: &[Value],
    test: &mut CandidateTest<'_>,
    prefilter: &Prefilter,
) -> ExecResult<Vec<Vec<Value>>> {
    query(txn, args, EntityKind::Node, node, test, Some(prefilter))
}

fn query_relationships_filtered(
    txn: &Txn,
    args: &[Value],
    test: &mut CandidateTest<'_>,
    _prefilter: &Prefilter,
) -> ExecResult<Vec<Vec<Value>>> {
    query(
        txn,
        args,
        EntityKind::Relationship,
        relationship,
        test,
        None,
    )
}

/// The `k` best entities of the index that pass `test` (given each
/// candidate's result row), best first. The store widens its search while
/// fewer than `k` pass, or scores only the nodes `prefilter` names when
/// they are few (`vector_prefilter`); the first error the test raises
/// fails the call.
fn query(
    txn: &Txn,
    args: &[Value],
    entity: EntityKind,
    value_of: fn(u64) -> Value,
    test: &mut CandidateTest<'_>,
    prefilter: Option<&Prefilter>,
) -> ExecResult<Vec<Vec<Value>>> {
    let name = match &args[0] {
        Value::String(s) => s.as_str(),
        other => return Err(call_failed(format!("Invalid index name: {other}"))),
    };
    let k = match &args[1] {
        Value::Int(k) => *k,
        other => {
            return Err(call_failed(format!(
                "Invalid input for 'numberOfNearestNeighbours': {other}"
            )))
        }
    };
    let mut failure = None;
    let mut accept = |id: u64, score: f64| {
        if failure.is_some() {
            return false;
        }
        match test(&[value_of(id), Value::Float(score)]) {
            Ok(pass) => pass,
            Err(error) => {
                failure = Some(error);
                false
            }
        }
    };
    let candidates = prefilter.and_then(|p| p.candidates(txn, name, k));
    let found = match candidates {
        Some(candidates) => {
            txn.vector_query_among(name, entity, k, &args[2], &candidates, &mut accept)?
        }
        None => txn.vector_query(name, entity, k, &args[2], &mut accept)?,
    };
    if let Some(error) = failure {
        return Err(error);
    }
    Ok(found
        .into_iter()
        .map(|(id, score)| vec![value_of(id), Value::Float(score)])
        .collect())
}

fn set_node_vector_property(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let Value::Node(node) = &args[0] else {
        return Err(call_failed(format!("Expected a node, was {}", args[0])));
    };
    let (key, vector) = checked_vector_property(args)?;
    txn.set_node_property(*node, key, vector)?;
    Ok(Vec::new())
}

fn set_relationship_vector_property(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let Value::Relationship(rel) = &args[0] else {
        return Err(call_failed(format!(
            "Expected a relationship, was {}",
            args[0]
        )));
    };
    let (key, vector) = checked_vector_property(args)?;
    txn.set_rel_property(*rel, key, vector)?;
    Ok(Vec::new())
}

/// The key and the stored value of a `db.create.set*VectorProperty` call:
/// a non-empty list of finite numbers, as 32-bit floats.
fn checked_vector_property(args: &[Value]) -> ExecResult<(&str, Value)> {
    let Value::String(key) = &args[1] else {
        return Err(call_failed(format!(
            "Expected a property key, was {}",
            args[1]
        )));
    };
    let vector = Vector::from_value(&args[2])
        .map_err(|e| call_failed(format!("Invalid vector: {e}")))?
        .ok_or_else(|| call_failed("Invalid vector: null".into()))?;
    if vector.is_empty() || vector.as_slice().iter().any(|x| !x.is_finite()) {
        return Err(call_failed(
            "Invalid vector: it must hold at least one element, each finite and within the range of a 32-bit float".into(),
        ));
    }
    Ok((key, vector.to_value()))
}

fn call_failed(message: String) -> ExecError {
    ExecError::ProcedureCallFailed(message)
}
