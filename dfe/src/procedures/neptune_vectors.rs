//! Neptune Analytics' `neptune.algo.vectors.topK.byEmbedding({embedding,
//! topK})` and `.topK.byNode(node, {topK})`: the `topK` nodes nearest an
//! embedding (or a node's, the node left out), nearest first, scored as
//! Neptune scores by default (the squared L2 distance, smaller is closer).
//! Neptune has one vector index per graph; here it is the graph's one node
//! vector index, which must rank by that distance (euclidean), so both
//! orders agree. The search is the index's (`Txn::vector_query`), in the
//! transaction's view; `topK.byEmbedding`'s `vertexFilter` is tested on
//! each candidate during it (`neptune_vertex_filter`).

use super::neptune_vertex_filter::VertexFilter;
use super::vector_prefilter::Prefilter;
use super::Procedure;
use crate::error::{ExecError, ExecResult};
use nereid_planner::ProcedureType;
use nereid_storage::{EntityKind, IndexKind, Txn};
use nereid_values::{NodeId, Value};
use nereid_vector::{squared_distance, Similarity, Vector};
use std::collections::BTreeMap;

/// Neptune's default `topK`.
const DEFAULT_TOP_K: i64 = 10;

pub(super) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "neptune.algo.vectors.topK.byEmbedding",
        inputs: &[("config", ProcedureType::Map)],
        outputs: &["node", "score"],
        description: "The topK nodes nearest an embedding in the graph's node vector index (euclidean) that pass the optional vertexFilter, nearest first, scored by squared L2 distance as Neptune Analytics does.",
        mode: "READ",
        body: top_k_by_embedding,
    },
    Procedure {
        name: "neptune.algo.vectors.topK.byNode",
        inputs: BY_NODE_INPUTS,
        outputs: BY_NODE_OUTPUTS,
        description: "The topK nodes nearest each source node's embedding (the source itself left out), nearest first, scored by squared L2 distance.",
        mode: "READ",
        body: top_k_by_node,
    },
    // Neptune's earlier names, still documented.
    Procedure {
        name: "neptune.algo.vectors.topKByNode",
        inputs: BY_NODE_INPUTS,
        outputs: BY_NODE_OUTPUTS,
        description: "The topK nodes nearest each source node's embedding (the earlier name of vectors.topK.byNode).",
        mode: "READ",
        body: top_k_by_node,
    },
    Procedure {
        name: "neptune.algo.vectors.topKByEmbedding",
        inputs: &[
            ("embedding", ProcedureType::List),
            ("config = {}", ProcedureType::Map),
        ],
        outputs: &["embedding", "node", "score"],
        description: "The topK nodes nearest an embedding (the earlier form of vectors.topK.byEmbedding, the embedding as first argument).",
        mode: "READ",
        body: top_k_by_embedding_first,
    },
];

const BY_NODE_INPUTS: &[(&str, ProcedureType)] = &[
    ("sourceNodes", ProcedureType::Any),
    ("config = {}", ProcedureType::Map),
];
const BY_NODE_OUTPUTS: &[&str] = &["source", "node", "score"];

fn top_k_by_embedding(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let config = config_map(
        &args[0],
        &["embedding", "topK", "vertexFilter", "concurrency"],
    )?;
    let embedding = config
        .get("embedding")
        .ok_or_else(|| failed("The configuration must give an embedding".into()))?;
    let filter = match config.get("vertexFilter") {
        None | Some(Value::Null) => None,
        Some(value) => Some(VertexFilter::parse(value)?),
    };
    let top_k = top_k(config)?;
    match filter {
        Some(filter) => {
            let prefilter = filter.prefilter();
            nearest(txn, embedding, top_k, Some(&prefilter), &mut |node| {
                filter.accepts(txn, node)
            })
        }
        None => nearest(txn, embedding, top_k, None, &mut |_| true),
    }
}

fn top_k_by_embedding_first(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let config = config_map(
        args.get(1).unwrap_or(&nereid_values::NULL),
        &["topK", "concurrency"],
    )?;
    let rows = nearest(txn, &args[0], top_k(config)?, None, &mut |_| true)?;
    Ok(rows
        .into_iter()
        .map(|row| std::iter::once(args[0].clone()).chain(row).collect())
        .collect())
}

/// For each source node (a node or a list), the nearest nodes to its
/// embedding, the source first in each row.
fn top_k_by_node(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let sources = match &args[0] {
        Value::List(items) => items.iter().cloned().collect::<Vec<_>>(),
        other => vec![other.clone()],
    };
    let config = config_map(
        args.get(1).unwrap_or(&nereid_values::NULL),
        &["topK", "concurrency"],
    )?;
    let top_k = top_k(config)?;
    let (_, key) = graph_index(txn)?;
    let mut rows = Vec::new();
    for source in sources {
        let Some(node) = optional_node(&source, "A source must be a node")? else {
            continue;
        };
        let Some(embedding) = txn.node_property(node, &key) else {
            continue;
        };
        for row in nearest(txn, &embedding, top_k, None, &mut |other| other != node)? {
            rows.push(std::iter::once(Value::Node(node)).chain(row).collect());
        }
    }
    Ok(rows)
}

/// The configuration map (null for none), checked against `known` keys.
fn config_map<'a>(value: &'a Value, known: &[&str]) -> ExecResult<&'a BTreeMap<String, Value>> {
    static EMPTY: BTreeMap<String, Value> = BTreeMap::new();
    let config = match value {
        Value::Map(config) => config,
        Value::Null => &EMPTY,
        other => return Err(failed(format!("Expected a configuration map, was {other}"))),
    };
    if let Some(key) = config.keys().find(|k| !known.contains(&k.as_str())) {
        return Err(failed(format!(
            "Unknown configuration key '{key}': nereid takes {}",
            known.join(", ")
        )));
    }
    Ok(config)
}

fn top_k(config: &BTreeMap<String, Value>) -> ExecResult<i64> {
    match config.get("topK") {
        None => Ok(DEFAULT_TOP_K),
        Some(Value::Int(k)) => Ok(*k),
        Some(other) => Err(failed(format!(
            "topK must be a positive integer, was {other}"
        ))),
    }
}

/// The `top_k` nodes nearest `embedding` among those `accept` passes, with
/// their squared L2 distances; only the nodes `prefilter` names are scored
/// when they are few (`vector_prefilter`).
fn nearest(
    txn: &Txn,
    embedding: &Value,
    top_k: i64,
    prefilter: Option<&Prefilter>,
    accept: &mut dyn FnMut(NodeId) -> bool,
) -> ExecResult<Vec<Vec<Value>>> {
    let (index, key) = graph_index(txn)?;
    let query = Vector::from_value(embedding)
        .map_err(|e| failed(format!("Invalid embedding: {e}")))?
        .ok_or_else(|| failed("Invalid embedding: null".into()))?;
    let mut accept = |id: u64, _: f64| accept(NodeId(id));
    let mut rows = Vec::new();
    let found = match prefilter.and_then(|p| p.candidates(txn, &index, top_k)) {
        Some(among) => txn.vector_query_among(
            &index,
            EntityKind::Node,
            top_k,
            embedding,
            &among,
            &mut accept,
        )?,
        None => txn.vector_query(&index, EntityKind::Node, top_k, embedding, &mut accept)?,
    };
    for (id, _) in found {
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

/// The name and property key of the graph's node vector index, which must
/// rank by euclidean distance (Neptune's topK order).
fn graph_index(txn: &Txn) -> ExecResult<(String, String)> {
    let (name, key, similarity) = graph_vector_index(txn)?;
    if similarity != Similarity::Euclidean {
        return Err(failed(format!(
            "Vector index `{name}` ranks by cosine; Neptune's topK ranks by squared L2 distance: create it with `vector.similarity_function`: 'euclidean'"
        )));
    }
    Ok((name, key))
}

/// The graph's node vector index (Neptune has one per graph): its name,
/// property key and similarity; exactly one must exist.
pub(super) fn graph_vector_index(txn: &Txn) -> ExecResult<(String, String, Similarity)> {
    let schema = txn.schema();
    let mut indexes = schema.indexes.iter().filter_map(|i| match i.def.kind {
        IndexKind::Vector { similarity, .. } if i.def.entity == EntityKind::Node => {
            Some((i.def.name.clone(), i.def.keys[0].clone(), similarity))
        }
        _ => None,
    });
    match (indexes.next(), indexes.next()) {
        (Some(index), None) => Ok(index),
        _ => Err(failed(
            "neptune.algo.vectors.* needs exactly one node vector index (Neptune's one per graph)"
                .into(),
        )),
    }
}

/// A node argument: the node, or `None` for null (no row); anything else
/// fails with `refusal`, naming the type given.
pub(super) fn optional_node(value: &Value, refusal: &str) -> ExecResult<Option<NodeId>> {
    match value {
        Value::Node(id) => Ok(Some(*id)),
        Value::Null => Ok(None),
        other => Err(failed(format!("{refusal}, was {}", other.type_name()))),
    }
}

pub(super) fn failed(message: String) -> ExecError {
    ExecError::ProcedureCallFailed(message)
}
