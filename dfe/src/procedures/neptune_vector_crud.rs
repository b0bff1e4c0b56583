//! Neptune Analytics' embedding procedures: `neptune.algo.vectors.get(node)`,
//! `.upsert(node, embedding)` and `.remove(node)`. Neptune keeps a node's
//! embedding as a hidden property of its one vector index; here it is the
//! property of the graph's one node vector index, so the embedding is also
//! an ordinary property. Unlike Neptune's, these writes are transactional:
//! checked like any write of an indexed vector (dimensions, finite
//! numbers), seen by the rest of the transaction, undone by a rollback.

use super::neptune_vectors::{failed, graph_vector_index, optional_node};
use super::Procedure;
use crate::error::ExecResult;
use nereid_planner::ProcedureType;
use nereid_storage::Txn;
use nereid_values::Value;
use nereid_vector::Vector;

pub(super) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "neptune.algo.vectors.get",
        inputs: &[("node", ProcedureType::Any)],
        outputs: &["node", "embedding"],
        description:
            "The embedding of a node in the graph's node vector index (null if it has none).",
        mode: "READ",
        body: get,
    },
    Procedure {
        name: "neptune.algo.vectors.upsert",
        inputs: &[
            ("node", ProcedureType::Any),
            ("embedding", ProcedureType::List),
        ],
        outputs: &["node", "embedding", "success"],
        description: "Adds or replaces a node's embedding in the graph's node vector index.",
        mode: "WRITE",
        body: upsert,
    },
    Procedure {
        name: "neptune.algo.vectors.remove",
        inputs: &[("node", ProcedureType::Any)],
        outputs: &["node", "success"],
        description: "Removes a node's embedding from the graph's node vector index.",
        mode: "WRITE",
        body: remove,
    },
];

fn get(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let Some(node) = optional_node(&args[0], "The target must be a node")? else {
        return Ok(Vec::new());
    };
    let (_, key, _) = graph_vector_index(txn)?;
    let embedding = txn.node_property(node, &key).unwrap_or(Value::Null);
    Ok(vec![vec![Value::Node(node), embedding]])
}

fn upsert(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let Some(node) = optional_node(&args[0], "The target must be a node")? else {
        return Ok(Vec::new());
    };
    let (_, key, _) = graph_vector_index(txn)?;
    let embedding = Vector::from_value(&args[1])
        .map_err(|e| failed(format!("Invalid embedding: {e}")))?
        .ok_or_else(|| failed("Invalid embedding: null".into()))?
        .to_value();
    txn.set_node_property(node, &key, embedding.clone())?;
    Ok(vec![vec![Value::Node(node), embedding, Value::Bool(true)]])
}

fn remove(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let Some(node) = optional_node(&args[0], "The target must be a node")? else {
        return Ok(Vec::new());
    };
    let (_, key, _) = graph_vector_index(txn)?;
    txn.set_node_property(node, &key, Value::Null)?;
    Ok(vec![vec![Value::Node(node), Value::Bool(true)]])
}
