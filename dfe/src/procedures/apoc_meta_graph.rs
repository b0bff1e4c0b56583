//! `apoc.meta.graph` and `apoc.meta.subGraph`: the graph's shape as a
//! graph of virtual entities, one node per label (`{name, count}`) and one
//! relationship per (start label, type, end label) met (`{type, count}`),
//! as APOC answers. langchain-neo4j's enhanced schema (through
//! neo4j-graphrag) and LlamaIndex's property graph store read the counts
//! back with `apoc.any.property` and from the returned nodes.
//!
//! APOC reads the count store and samples nodes to drop false pairs; we
//! read every node and its outgoing relationships once, O(V + E), so the
//! counts are exact and own writes count. `sample` and `maxRels` are
//! accepted and have nothing to change.

use super::apoc_args::{failed, names};
use super::Procedure;
use crate::error::ExecResult;
use nereid_planner::ProcedureType;
use nereid_storage::Txn;
use nereid_values::{Direction, Value, VirtualNode, VirtualRelationship};
use std::collections::BTreeMap;
use std::sync::Arc;

const OUTPUTS: &[&str] = &["nodes", "relationships"];

pub(super) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "apoc.meta.graph",
        inputs: &[("config = {}", ProcedureType::Map)],
        outputs: OUTPUTS,
        description: "Examines the full graph and returns a meta-graph.",
        mode: "READ",
        body: meta_graph,
    },
    Procedure {
        name: "apoc.meta.subGraph",
        inputs: &[("config", ProcedureType::Map)],
        outputs: OUTPUTS,
        description: "Examines the given sub-graph and returns a meta-graph.",
        mode: "READ",
        body: meta_sub_graph,
    },
];

/// Which labels and types a meta graph shows.
#[derive(Default)]
pub(super) struct Selection {
    /// Only these labels, when not empty.
    include_labels: Vec<String>,
    /// Only these types, when not empty.
    include_rels: Vec<String>,
    exclude_labels: Vec<String>,
}

impl Selection {
    fn label(&self, label: &str) -> bool {
        let listed = |names: &[String]| names.iter().any(|n| n == label);
        (self.include_labels.is_empty() || listed(&self.include_labels))
            && !listed(&self.exclude_labels)
    }

    fn rel_type(&self, rel_type: &str) -> bool {
        self.include_rels.is_empty() || self.include_rels.iter().any(|t| t == rel_type)
    }

    /// `apoc.meta.subGraph`'s config: APOC's current keys and the older
    /// `labels` / `rels` / `excludes` it still reads.
    fn from_config(procedure: &str, config: &Value) -> ExecResult<Self> {
        let config = match config {
            Value::Null => return Ok(Selection::default()),
            Value::Map(map) => map,
            other => {
                return Err(failed(
                    procedure,
                    format!("expected a map but was {}", other.type_name()),
                ))
            }
        };
        let listed = |keys: [&str; 2]| -> ExecResult<Vec<String>> {
            let mut out = Vec::new();
            for key in keys {
                if let Some(value) = config.get(key) {
                    out.extend(names(procedure, value)?);
                }
            }
            Ok(out)
        };
        Ok(Selection {
            include_labels: listed(["includeLabels", "labels"])?,
            include_rels: listed(["includeRels", "rels"])?,
            exclude_labels: listed(["excludeLabels", "excludes"])?,
        })
    }
}

fn meta_graph(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    if let Some(config) = args
        .first()
        .filter(|c| !matches!(c, Value::Null | Value::Map(_)))
    {
        return Err(failed(
            "apoc.meta.graph",
            format!("expected a map but was {}", config.type_name()),
        ));
    }
    Ok(vec![virtual_meta_graph(txn, &Selection::default())])
}

fn meta_sub_graph(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let config = args.first().unwrap_or(&nereid_values::NULL);
    let selection = Selection::from_config("apoc.meta.subGraph", config)?;
    Ok(vec![virtual_meta_graph(txn, &selection)])
}

/// Counts per label and per (start label, type, end label), in one pass.
#[derive(Default)]
pub(super) struct Counts {
    pub(super) labels: BTreeMap<String, i64>,
    pub(super) rels: BTreeMap<(String, String, String), i64>,
}

pub(super) fn count(txn: &Txn, selection: &Selection) -> Counts {
    let mut counts = Counts::default();
    for node in txn.scan_nodes(None) {
        let mut labels = txn.node_labels(node);
        labels.retain(|label| selection.label(label));
        if labels.is_empty() {
            continue;
        }
        for label in &labels {
            *counts.labels.entry(label.clone()).or_default() += 1;
        }
        for (rel, target) in txn.expand(node, Direction::Outgoing, &[]) {
            let Some((_, _, rel_type)) = txn.rel_endpoints(rel) else {
                continue;
            };
            if !selection.rel_type(&rel_type) {
                continue;
            }
            for end in txn.node_labels(target) {
                if !selection.label(&end) {
                    continue;
                }
                for start in &labels {
                    let key = (start.clone(), rel_type.clone(), end.clone());
                    *counts.rels.entry(key).or_default() += 1;
                }
            }
        }
    }
    counts
}

/// The one row: the virtual nodes (by label) and relationships.
fn virtual_meta_graph(txn: &Txn, selection: &Selection) -> Vec<Value> {
    virtual_graph(
        count(txn, selection),
        |label, count| {
            BTreeMap::from([
                ("name".to_string(), Value::from(label)),
                ("count".to_string(), Value::Int(count)),
            ])
        },
        |rel_type, count| {
            BTreeMap::from([
                ("type".to_string(), Value::from(rel_type)),
                ("count".to_string(), Value::Int(count)),
            ])
        },
    )
}

/// `[nodes, relationships]` of `counts` as virtual entities: a node per
/// label, a relationship per (start label, type, end label), with the
/// properties `node` and `rel` give for a label or type and its count.
pub(super) fn virtual_graph(
    counts: Counts,
    node: impl Fn(&str, i64) -> BTreeMap<String, Value>,
    rel: impl Fn(&str, i64) -> BTreeMap<String, Value>,
) -> Vec<Value> {
    let nodes: BTreeMap<String, Arc<VirtualNode>> = counts
        .labels
        .into_iter()
        .map(|(label, count)| {
            let virtual_node = VirtualNode::new(vec![label.clone()], node(&label, count));
            (label, Arc::new(virtual_node))
        })
        .collect();
    let relationships: Vec<Value> = counts
        .rels
        .into_iter()
        .filter_map(|((start, rel_type, end), count)| {
            let (start, end) = (nodes.get(&start)?, nodes.get(&end)?);
            let properties = rel(&rel_type, count);
            let virtual_rel =
                VirtualRelationship::new(start.clone(), rel_type, end.clone(), properties);
            Some(Value::VirtualRelationship(Arc::new(virtual_rel)))
        })
        .collect();
    let nodes: Vec<Value> = nodes.into_values().map(Value::VirtualNode).collect();
    vec![Value::List(nodes.into()), Value::List(relationships.into())]
}
