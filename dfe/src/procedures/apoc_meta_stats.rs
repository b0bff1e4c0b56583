//! `apoc.meta.stats`: APOC's counts of the graph (nodes, relationships,
//! labels, types, keys) and its per-pattern relationship counts keyed as
//! APOC writes them: `(:A)-[:T]->()`, `()-[:T]->(:B)` and `()-[:T]->()`.
//!
//! APOC reads Neo4j's count store; we count in one pass over the visible
//! nodes and their outgoing relationships, O(V + E), so own writes of the
//! transaction are counted. Property keys are those in use (the store
//! keeps no others), where Neo4j counts every key ever created.

use super::Procedure;
use crate::error::ExecResult;
use nereid_storage::Txn;
use nereid_values::{Direction, Value};
use std::collections::{BTreeMap, BTreeSet};

pub(super) const PROCEDURES: &[Procedure] = &[Procedure {
    name: "apoc.meta.stats",
    inputs: &[],
    outputs: &[
        "labelCount",
        "relTypeCount",
        "propertyKeyCount",
        "nodeCount",
        "relCount",
        "labels",
        "relTypes",
        "relTypesCount",
        "stats",
    ],
    description: "Returns the metadata stored in the transactional database statistics.",
    mode: "READ",
    body: meta_stats,
}];

fn counts(map: BTreeMap<String, i64>) -> Value {
    Value::Map(map.into_iter().map(|(k, v)| (k, Value::Int(v))).collect())
}

fn meta_stats(txn: &Txn, _args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let mut labels: BTreeMap<String, i64> = BTreeMap::new();
    let mut rel_types: BTreeMap<String, i64> = BTreeMap::new();
    let mut type_counts: BTreeMap<String, i64> = BTreeMap::new();
    let mut keys = BTreeSet::new();
    let (mut node_count, mut rel_count) = (0i64, 0i64);
    for node in txn.scan_nodes(None) {
        node_count += 1;
        let source_labels = txn.node_labels(node);
        for label in &source_labels {
            *labels.entry(label.clone()).or_default() += 1;
        }
        keys.extend(txn.node_properties(node).into_keys());
        for (rel, target) in txn.expand(node, Direction::Outgoing, &[]) {
            let Some((_, _, rel_type)) = txn.rel_endpoints(rel) else {
                continue;
            };
            rel_count += 1;
            keys.extend(txn.rel_properties(rel).into_keys());
            *type_counts.entry(rel_type.clone()).or_default() += 1;
            *rel_types
                .entry(format!("()-[:{rel_type}]->()"))
                .or_default() += 1;
            for label in &source_labels {
                *rel_types
                    .entry(format!("(:{label})-[:{rel_type}]->()"))
                    .or_default() += 1;
            }
            for label in txn.node_labels(target) {
                *rel_types
                    .entry(format!("()-[:{rel_type}]->(:{label})"))
                    .or_default() += 1;
            }
        }
    }
    let label_count = Value::Int(labels.len() as i64);
    let rel_type_count = Value::Int(type_counts.len() as i64);
    let key_count = Value::Int(keys.len() as i64);
    let (labels, rel_types) = (counts(labels), counts(rel_types));
    let stats = BTreeMap::from([
        ("labelCount".to_string(), label_count.clone()),
        ("relTypeCount".to_string(), rel_type_count.clone()),
        ("propertyKeyCount".to_string(), key_count.clone()),
        ("nodeCount".to_string(), Value::Int(node_count)),
        ("relCount".to_string(), Value::Int(rel_count)),
        ("labels".to_string(), labels.clone()),
        ("relTypes".to_string(), rel_types.clone()),
    ]);
    Ok(vec![vec![
        label_count,
        rel_type_count,
        key_count,
        Value::Int(node_count),
        Value::Int(rel_count),
        labels,
        rel_types,
        counts(type_counts),
        Value::Map(stats),
    ]])
}
