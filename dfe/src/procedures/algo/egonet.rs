//! `neptune.algo.egonet` and `.egonet.edgeList`: the egocentric network of
//! each source (ego) node, `hopCount` hops deep (1 to 3). Each hop keeps,
//! from every node reached at the hop before, its `perHopMaxNeighbor`
//! heaviest edges (`costFunction: 'max'`, the default) or lightest
//! (`'min'`) by that hop's `perHopEdgeWeightProperty`, to nodes not yet in
//! the egonet (and with that hop's `perHopVertexLabel`, when given), along
//! that hop's `perHopTraversalDirection` (default outbound). An edge is
//! reported as traversed: `source` is the node it was reached from.
//! `.egonet` yields per ego its nodes (the ego first) and its edges as
//! maps `{source, target, weight}`; `.edgeList` one row per edge.

use super::config::Config;
use super::context::on_view;
use super::sources::source_nodes;
use super::SOURCES_AND_CONFIG;
use crate::error::ExecResult;
use crate::procedures::Procedure;
use nereid_algorithms::{ego_hop, Direction, EgoHop, RowOrder};
use nereid_storage::Txn;
use nereid_values::{NodeId, Value};
use std::collections::{BTreeMap, HashSet};

pub(in crate::procedures) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "neptune.algo.egonet",
        inputs: SOURCES_AND_CONFIG,
        outputs: &["egoNode", "nodeList", "edgeList"],
        description: "The egonet of each source node: its top weighted neighbours per hop, as nodes and edges.",
        mode: "READ",
        body: as_lists,
    },
    Procedure {
        name: "neptune.algo.egonet.edgeList",
        inputs: SOURCES_AND_CONFIG,
        outputs: &["egoNode", "source", "target", "weight"],
        description: "The egonet of each source node as one row per edge.",
        mode: "READ",
        body: as_edge_rows,
    },
];

const KEYS: &[&str] = &[
    "hopCount",
    "perHopMaxNeighbor",
    "perHopEdgeWeightProperty",
    "edgeWeightType",
    "perHopVertexLabel",
    "perHopTraversalDirection",
    "costFunction",
];

/// One ego's network as it grows.
struct Ego {
    ego: NodeId,
    members: HashSet<NodeId>,
    nodes: Vec<NodeId>,
    frontier: Vec<NodeId>,
    edges: Vec<(NodeId, NodeId, f64)>,
}

/// A hop's settings, checked before any work.
struct Hop {
    hop: EgoHop,
    weight: String,
    label: Option<String>,
}

fn as_lists(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let egos = egonets(PROCEDURES[0].name, txn, args)?;
    Ok(egos
        .into_iter()
        .map(|e| {
            let nodes = e.nodes.into_iter().map(Value::Node).collect::<Vec<_>>();
            let edges = e
                .edges
                .into_iter()
                .map(|(source, target, weight)| {
                    Value::Map(BTreeMap::from([
                        ("source".to_string(), Value::Node(source)),
                        ("target".to_string(), Value::Node(target)),
                        ("weight".to_string(), Value::Float(weight)),
                    ]))
                })
                .collect::<Vec<_>>();
            vec![
                Value::Node(e.ego),
                Value::List(nodes.into()),
                Value::List(edges.into()),
            ]
        })
        .collect())
}

fn as_edge_rows(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let egos = egonets(PROCEDURES[1].name, txn, args)?;
    Ok(egos
        .into_iter()
        .flat_map(|e| {
            let ego = e.ego;
            e.edges.into_iter().map(move |(source, target, weight)| {
                vec![
                    Value::Node(ego),
                    Value::Node(source),
                    Value::Node(target),
                    Value::Float(weight),
                ]
            })
        })
        .collect())
}

fn egonets(name: &'static str, txn: &Txn, args: &[Value]) -> ExecResult<Vec<Ego>> {
    let config = Config::parse(name, args.get(1), KEYS)?;
    let hops = hops(&config)?;
    let mut egos: Vec<Ego> = source_nodes(name, args.first().unwrap_or(&Value::Null))?
        .into_iter()
        .map(|ego| Ego {
            ego,
            members: HashSet::from([ego]),
            nodes: vec![ego],
            frontier: vec![ego],
            edges: Vec::new(),
        })
        .collect();
    for hop in &hops {
        // The weight-sorted view (Poseidon §7): each vertex's top `k` are
        // the first `k` of its row.
        let spec = config
            .view_spec(Some(hop.weight.clone()))?
            .with_row_order(RowOrder::by_weight(hop.hop.heaviest));
        let label = hop.label.as_deref();
        let egos = &mut egos;
        on_view(txn, &config, &spec, |view, stop| {
            for ego in egos.iter_mut() {
                stop.check()?;
                let frontier: Vec<u32> = ego
                    .frontier
                    .iter()
                    .filter_map(|&n| view.index_of(n))
                    .collect();
                let members = &ego.members;
                let seen = |v: u32| members.contains(&view.node(v));
                let admit = |v: u32| label.is_none_or(|l| txn.node_has_label(view.node(v), l));
                let kept = ego_hop(view.graph(), &frontier, hop.hop, &seen, &admit);
                ego.frontier.clear();
                for (from, to, weight) in kept {
                    let (from, to) = (view.node(from), view.node(to));
                    if ego.members.insert(to) {
                        ego.nodes.push(to);
                        ego.frontier.push(to);
                    }
                    ego.edges.push((from, to, weight));
                }
            }
            Ok(())
        })?;
    }
    Ok(egos)
}

/// The per-hop options, as many as `hopCount` says.
fn hops(config: &Config) -> ExecResult<Vec<Hop>> {
    let count = config
        .integer("hopCount", 1)?
        .ok_or_else(|| config.failed("configuration key `hopCount` is required"))?;
    if count > 3 {
        return Err(config.failed(&format!(
            "configuration key `hopCount` must be 1, 2 or 3, not {count}"
        )));
    }
    let count = count as usize;
    let per_hop = |key: &str, len: usize, required: bool| {
        if (required || len > 0) && len != count {
            Err(config.failed(&format!(
                "configuration key `{key}` must list one value per hop ({count}), not {len}"
            )))
        } else {
            Ok(())
        }
    };
    let maxima = config.integers("perHopMaxNeighbor")?;
    per_hop("perHopMaxNeighbor", maxima.len(), true)?;
    let weights = config.strings("perHopEdgeWeightProperty")?;
    per_hop("perHopEdgeWeightProperty", weights.len(), true)?;
    config.weight_type()?;
    let labels = config.strings("perHopVertexLabel")?;
    per_hop("perHopVertexLabel", labels.len(), false)?;
    let directions = config.strings("perHopTraversalDirection")?;
    per_hop("perHopTraversalDirection", directions.len(), false)?;
    let heaviest = match config.string("costFunction")?.as_deref() {
        None | Some("max") => true,
        Some("min") => false,
        Some(other) => {
            return Err(config.failed(&format!(
                "configuration key `costFunction` must be \"max\" or \"min\", not \"{other}\""
            )))
        }
    };
    (0..count)
        .map(|h| {
            let per_vertex = match maxima[h] {
                -1 => None,
                k if k >= 1 => Some(k as usize),
                k => {
                    return Err(config.failed(&format!(
                    "configuration key `perHopMaxNeighbor` takes positive integers or -1, not {k}"
                )))
                }
            };
            let direction = match directions.get(h) {
                Some(name) => config.direction_named("perHopTraversalDirection", name)?,
                None => Direction::Out,
            };
            Ok(Hop {
                hop: EgoHop {
                    per_vertex,
                    direction,
                    heaviest,
                },
                weight: weights[h].clone(),
                label: labels.get(h).cloned(),
            })
        })
        .collect()
}
