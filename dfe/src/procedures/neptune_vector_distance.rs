//! Neptune Analytics' `neptune.algo.vectors.distance(n, m, {metric})` and
//! its newer name `.vectors.distance.byNode`: the distance between two
//! nodes' embeddings (their vectors in the graph's one node vector index)
//! by `metric` — `L2Squared` (the default), `L2`, `CosineSimilarity`,
//! `CosineDistance` (1 - similarity) or `DotProduct`, case-insensitive. A
//! node without an embedding has a null distance.
//! `.vectors.distance.byEmbedding(n, {embedding, metric})` and its earlier
//! form `.vectors.distanceByEmbedding(embedding, n, {metric})` measure
//! from a given embedding to the node's.

use super::neptune_vectors::{failed, graph_vector_index, optional_node};
use super::Procedure;
use crate::error::ExecResult;
use nereid_planner::ProcedureType;
use nereid_storage::Txn;
use nereid_values::{NodeId, Value};
use nereid_vector::{squared_distance, Vector};

const INPUTS: &[(&str, ProcedureType)] = &[
    ("source", ProcedureType::Any),
    ("target", ProcedureType::Any),
    ("config = {}", ProcedureType::Map),
];

pub(super) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "neptune.algo.vectors.distance",
        inputs: INPUTS,
        outputs: &["source", "target", "distance"],
        description: "The distance between two nodes' embeddings (default: squared L2).",
        mode: "READ",
        body: distance,
    },
    Procedure {
        name: "neptune.algo.vectors.distance.byNode",
        inputs: INPUTS,
        outputs: &["source", "target", "distance"],
        description: "The distance between two nodes' embeddings (default: squared L2).",
        mode: "READ",
        body: distance,
    },
    Procedure {
        name: "neptune.algo.vectors.distance.byEmbedding",
        inputs: &[
            ("node", ProcedureType::Any),
            ("config", ProcedureType::Map),
        ],
        outputs: &["node", "distance"],
        description: "The distance between an embedding and a node's embedding (default: squared L2).",
        mode: "READ",
        body: by_embedding,
    },
    Procedure {
        name: "neptune.algo.vectors.distanceByEmbedding",
        inputs: &[
            ("embedding", ProcedureType::List),
            ("target", ProcedureType::Any),
            ("config = {}", ProcedureType::Map),
        ],
        outputs: &["embedding", "target", "distance"],
        description: "The distance between an embedding and a node's embedding (the earlier form of vectors.distance.byEmbedding).",
        mode: "READ",
        body: embedding_first,
    },
];

#[derive(Clone, Copy)]
enum Metric {
    L2Squared,
    L2,
    CosineSimilarity,
    CosineDistance,
    DotProduct,
}

/// The configuration's `metric`; `others` are the other keys it may hold.
fn metric(config: &Value, others: &[&str]) -> ExecResult<Metric> {
    let name = match config {
        Value::Null => return Ok(Metric::L2Squared),
        Value::Map(map) => {
            let known = |k: &str| k == "metric" || others.contains(&k);
            if let Some(key) = map.keys().find(|k| !known(k)) {
                return Err(failed(format!(
                    "Unknown configuration key '{key}': nereid takes metric{}",
                    others.iter().map(|o| format!(", {o}")).collect::<String>()
                )));
            }
            match map.get("metric") {
                None | Some(Value::Null) => return Ok(Metric::L2Squared),
                Some(Value::String(name)) => name.to_ascii_lowercase(),
                Some(other) => return Err(failed(format!("metric must be a string, was {other}"))),
            }
        }
        other => return Err(failed(format!("Expected a configuration map, was {other}"))),
    };
    match name.as_str() {
        "l2squared" => Ok(Metric::L2Squared),
        "l2" => Ok(Metric::L2),
        "cosinesimilarity" => Ok(Metric::CosineSimilarity),
        "cosinedistance" => Ok(Metric::CosineDistance),
        "dotproduct" => Ok(Metric::DotProduct),
        _ => Err(failed(format!(
            "metric must be one of L2Squared, L2, CosineSimilarity, CosineDistance, DotProduct, was {name}"
        ))),
    }
}

fn distance(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let metric = metric(args.get(2).unwrap_or(&nereid_values::NULL), &[])?;
    let (Some(source), Some(target)) = (
        optional_node(&args[0], "Expected a node")?,
        optional_node(&args[1], "Expected a node")?,
    ) else {
        return Ok(Vec::new());
    };
    let (_, key, _) = graph_vector_index(txn)?;
    let embedding = |n: NodeId| {
        txn.node_property(n, &key)
            .and_then(|v| Vector::from_value(&v).ok().flatten())
    };
    let value = match (embedding(source), embedding(target)) {
        (Some(a), Some(b)) if a.len() == b.len() => {
            Value::Float(measure(metric, a.as_slice(), b.as_slice()))
        }
        _ => Value::Null,
    };
    Ok(vec![vec![Value::Node(source), Value::Node(target), value]])
}

fn by_embedding(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let config = args.get(1).unwrap_or(&nereid_values::NULL);
    let metric = metric(config, &["embedding"])?;
    let embedding = match config {
        Value::Map(map) => map.get("embedding").cloned().unwrap_or(Value::Null),
        _ => Value::Null,
    };
    if embedding.is_null() {
        return Err(failed("The configuration must give an embedding".into()));
    }
    let Some((node, distance)) = from_embedding(txn, &embedding, &args[0], metric)? else {
        return Ok(Vec::new());
    };
    Ok(vec![vec![Value::Node(node), distance]])
}

fn embedding_first(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let metric = metric(args.get(2).unwrap_or(&nereid_values::NULL), &[])?;
    let Some((node, distance)) = from_embedding(txn, &args[0], &args[1], metric)? else {
        return Ok(Vec::new());
    };
    Ok(vec![vec![args[0].clone(), Value::Node(node), distance]])
}

/// The node `target` names (none for null) and the distance from
/// `embedding` to its embedding (null when it has none of that length).
fn from_embedding(
    txn: &Txn,
    embedding: &Value,
    target: &Value,
    metric: Metric,
) -> ExecResult<Option<(NodeId, Value)>> {
    let query = Vector::from_value(embedding)
        .map_err(|e| failed(format!("Invalid embedding: {e}")))?
        .ok_or_else(|| failed("Invalid embedding: null".into()))?;
    let Some(node) = optional_node(target, "Expected a node")? else {
        return Ok(None);
    };
    let (_, key, _) = graph_vector_index(txn)?;
    let stored = txn
        .node_property(node, &key)
        .and_then(|v| Vector::from_value(&v).ok().flatten());
    let distance = match stored {
        Some(v) if v.len() == query.len() => {
            Value::Float(measure(metric, query.as_slice(), v.as_slice()))
        }
        _ => Value::Null,
    };
    Ok(Some((node, distance)))
}

fn measure(metric: Metric, a: &[f32], b: &[f32]) -> f64 {
    let dot = || {
        a.iter()
            .zip(b)
            .map(|(x, y)| f64::from(*x) * f64::from(*y))
            .sum::<f64>()
    };
    let norm = |v: &[f32]| v.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt();
    let cosine = || {
        let n = norm(a) * norm(b);
        if n == 0.0 {
            0.0
        } else {
            dot() / n
        }
    };
    match metric {
        Metric::L2Squared => squared_distance(a, b),
        Metric::L2 => squared_distance(a, b).sqrt(),
        Metric::CosineSimilarity => cosine(),
        Metric::CosineDistance => 1.0 - cosine(),
        Metric::DotProduct => dot(),
    }
}
