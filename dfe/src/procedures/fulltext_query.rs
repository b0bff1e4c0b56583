//! Neo4j's full-text queries: `db.index.fulltext.queryNodes` /
//! `queryRelationships(indexName, queryString [, options])`, the entities of
//! a full-text index matching a Lucene query in the transaction's view,
//! best first, with their scores. `options` takes `skip`, `limit` and
//! `analyzer` (the query analyzed by another analyzer than the index's).
//! Refusals are the store's (`StorageError::FulltextQueryRefused`) or
//! `ExecError::ProcedureCallFailed`, before anything is read.

use super::Procedure;
use crate::error::{ExecError, ExecResult};
use nereid_planner::ProcedureType;
use nereid_storage::{EntityKind, FulltextOptions, Txn};
use nereid_values::{NodeId, RelId, Value};

const QUERY_INPUTS: &[(&str, ProcedureType)] = &[
    ("indexName", ProcedureType::String),
    ("queryString", ProcedureType::String),
    ("options = {}", ProcedureType::Map),
];

pub(super) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "db.index.fulltext.queryNodes",
        inputs: QUERY_INPUTS,
        outputs: &["node", "score"],
        description: "Query the given full-text index. Returns the matching nodes, and their Lucene query score, ordered by score.",
        mode: "READ",
        body: query_nodes,
    },
    Procedure {
        name: "db.index.fulltext.queryRelationships",
        inputs: QUERY_INPUTS,
        outputs: &["relationship", "score"],
        description: "Query the given full-text index. Returns the matching relationships, and their Lucene query score, ordered by score.",
        mode: "READ",
        body: query_relationships,
    },
];

fn query_nodes(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    query(txn, args, EntityKind::Node, |id| Value::Node(NodeId(id)))
}

fn query_relationships(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    query(txn, args, EntityKind::Relationship, |id| {
        Value::Relationship(RelId(id))
    })
}

fn query(
    txn: &Txn,
    args: &[Value],
    entity: EntityKind,
    value_of: fn(u64) -> Value,
) -> ExecResult<Vec<Vec<Value>>> {
    let (Value::String(name), Value::String(text)) = (&args[0], &args[1]) else {
        return Err(call_failed(format!(
            "Index name and query must be strings, were {} and {}",
            args[0], args[1]
        )));
    };
    let options = options(args.get(2).unwrap_or(&Value::Null))?;
    let hits = txn.fulltext_query(name, entity, text, &options)?;
    Ok(hits
        .into_iter()
        .map(|(id, score)| vec![value_of(id), Value::Float(score)])
        .collect())
}

/// `{skip, limit, analyzer}`; other keys are ignored, as Neo4j does.
fn options(value: &Value) -> ExecResult<FulltextOptions> {
    let mut options = FulltextOptions::default();
    let Value::Map(map) = value else {
        return Ok(options);
    };
    let count = |key: &str| -> ExecResult<Option<usize>> {
        match map.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Int(n)) if *n >= 0 => Ok(Some(usize::try_from(*n).unwrap_or(usize::MAX))),
            Some(other) => Err(call_failed(format!(
                "Invalid '{key}' option: {other}; it must be a non-negative integer"
            ))),
        }
    };
    options.skip = count("skip")?.unwrap_or(0);
    options.limit = count("limit")?;
    options.analyzer = match map.get("analyzer") {
        None | Some(Value::Null) => None,
        Some(Value::String(a)) => Some(a.to_string()),
        Some(other) => {
            return Err(call_failed(format!(
                "Invalid 'analyzer' option: {other}; it must be a string"
            )))
        }
    };
    Ok(options)
}

fn call_failed(message: String) -> ExecError {
    ExecError::ProcedureCallFailed(message)
}
