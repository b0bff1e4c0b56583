//! Neptune Analytics' `neptune.algo.vectors.distance(n, m, {metric})` and
//! its newer name `.vectors.distance.byNode`: the distance between two
//! nodes' embeddings (their vectors in the graph's one node vector index)
//! by `metric` — `L2Squared` (the default), `L2`, `CosineSimilarity`,
//! `CosineDistance` (1 - similarity) or `DotProduct`, case-insensitive. A
//! node without an embedding has a null distance.

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
];

#[derive(Clone, Copy)]
enum Metric {
    L2Squared,
    L2,
    CosineSimilarity,
    CosineDistance,
    DotProduct,
}

fn metric(config: &Value) -> ExecResult<Metric> {
    let name = match config {
        Value::Null => return Ok(Metric::L2Squared),
        Value::Map(map) => {
            if let Some(key) = map.keys().find(|k| k.as_str() != "metric") {
                return Err(failed(format!(
                    "Unknown configuration key '{key}': nereid takes metric"
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
    let metric = metric(args.get(2).unwrap_or(&Value::Null))?;
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
