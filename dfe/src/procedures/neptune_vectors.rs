//! Neptune Analytics' `neptune.algo.vectors.topK.byEmbedding({embedding,
//! topK})`: the `topK` nodes nearest an embedding, nearest first, scored as
//! Neptune scores by default (the squared L2 distance, smaller is closer).
//! Neptune has one vector index per graph; here it is the graph's one node
//! vector index, which must rank by that distance (euclidean), so both
//! orders agree. The search is the index's (`Txn::vector_query`), in the
//! transaction's view.

use super::Procedure;
use crate::error::{ExecError, ExecResult};
use nereid_planner::ProcedureType;
use nereid_storage::{EntityKind, IndexKind, Txn};
use nereid_values::{NodeId, Value};
use nereid_vector::{squared_distance, Similarity, Vector};

/// Neptune's default `topK`.
const DEFAULT_TOP_K: i64 = 10;

pub(super) const PROCEDURES: &[Procedure] = &[Procedure {
    name: "neptune.algo.vectors.topK.byEmbedding",
    inputs: &[("config", ProcedureType::Map)],
    outputs: &["node", "score"],
    description: "The topK nodes nearest an embedding in the graph's node vector index (euclidean), nearest first, scored by squared L2 distance as Neptune Analytics does.",
    mode: "READ",
    body: top_k_by_embedding,
}];

fn top_k_by_embedding(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let Value::Map(config) = &args[0] else {
        return Err(failed(format!(
            "Expected a configuration map, was {}",
            args[0]
        )));
    };
    if let Some(key) = config
        .keys()
        .find(|k| !matches!(k.as_str(), "embedding" | "topK" | "concurrency"))
    {
        return Err(failed(format!(
            "Unknown configuration key '{key}': nereid takes embedding, topK and concurrency"
        )));
    }
    let embedding = config
        .get("embedding")
        .ok_or_else(|| failed("The configuration must give an embedding".into()))?;
    let top_k = match config.get("topK") {
        None => DEFAULT_TOP_K,
        Some(Value::Int(k)) => *k,
        Some(other) => {
            return Err(failed(format!(
                "topK must be a positive integer, was {other}"
            )))
        }
    };
    let (index, key) = graph_index(txn)?;
    let query = Vector::from_value(embedding)
        .map_err(|e| failed(format!("Invalid embedding: {e}")))?
        .ok_or_else(|| failed("Invalid embedding: null".into()))?;
    let mut rows = Vec::new();
    for (id, _) in txn.vector_query(&index, EntityKind::Node, top_k, embedding, &mut |_, _| true)? {
        let node = NodeId(id);
        let stored = txn.node_property(node, &key).unwrap_or_default();
        let Ok(Some(vector)) = Vector::from_value(&stored) else {
            continue;
        };
        rows.push(vec![
            Value::Node(node),
            Value::Float(squared_distance(vector.as_slice(), query.as_slice())),
        ]);
    }
    Ok(rows)
}

/// The name and property key of the graph's node vector index: exactly one
/// must exist, and rank by euclidean distance.
fn graph_index(txn: &Txn) -> ExecResult<(String, String)> {
    let schema = txn.schema();
    let mut indexes = schema
        .indexes
        .iter()
        .filter(|i| i.def.entity == EntityKind::Node && i.def.kind.is_vector());
    let (Some(index), None) = (indexes.next(), indexes.next()) else {
        return Err(failed(
            "neptune.algo.vectors.* needs exactly one node vector index (Neptune's one per graph)"
                .into(),
        ));
    };
    if !matches!(
        index.def.kind,
        IndexKind::Vector {
            similarity: Similarity::Euclidean,
            ..
        }
    ) {
        return Err(failed(format!(
            "Vector index `{}` ranks by cosine; Neptune's topK ranks by squared L2 distance: create it with `vector.similarity_function`: 'euclidean'",
            index.def.name
        )));
    }
    Ok((index.def.name.clone(), index.def.keys[0].clone()))
}

fn failed(message: String) -> ExecError {
    ExecError::ProcedureCallFailed(message)
}
