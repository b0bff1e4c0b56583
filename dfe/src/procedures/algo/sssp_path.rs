//! `neptune.algo.sssp.deltaStepping.path` and `.sssp.bellmanFord.path`:
//! one weighted shortest path from each source node to each target node
//! (Neptune's `sourceNodes, targetNodes, config`), with its distance, its
//! vertices, the distance at each of them and the path itself.
//!
//! Yields `source, target, distance, vertexPath, allDistances, path`, the
//! columns Neptune Analytics lists; `allDistances[i]` is the distance
//! from the source to `vertexPath[i]` (our reading of the name: the
//! documentation available here lists the column without defining it). A
//! pair with no path yields no row; a source is its own target at
//! distance 0 by the empty path. Of several shortest paths, one with the
//! fewest edges; of parallel edges on it, the lightest.

use super::config::Config;
use super::context::on_view;
use super::sources::source_nodes;
use super::sssp::{required_weight, Kernel};
use crate::error::ExecResult;
use crate::procedures::Procedure;
use nereid_algorithms::{shortest_path, Direction, ShortestPaths};
use nereid_planner::ProcedureType;
use nereid_storage::Txn;
use nereid_values::{Direction as Hop, NodeId, PathValue, RelId, Value};

const INPUTS: &[(&str, ProcedureType)] = &[
    ("sourceNodes", ProcedureType::Any),
    ("targetNodes", ProcedureType::Any),
    ("config = {}", ProcedureType::Map),
];

const OUTPUTS: &[&str] = &[
    "source",
    "target",
    "distance",
    "vertexPath",
    "allDistances",
    "path",
];

pub(in crate::procedures) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "neptune.algo.sssp.deltaStepping.path",
        inputs: INPUTS,
        outputs: OUTPUTS,
        description:
            "One weighted shortest path from each source node to each target node (delta-stepping).",
        mode: "READ",
        body: by_delta_stepping,
    },
    Procedure {
        name: "neptune.algo.sssp.bellmanFord.path",
        inputs: INPUTS,
        outputs: OUTPUTS,
        description:
            "One weighted shortest path from each source node to each target node (Bellman-Ford).",
        mode: "READ",
        body: by_bellman_ford,
    },
];

fn by_delta_stepping(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let name = PROCEDURES[0].name;
    let (config, kernel) = Kernel::delta_stepping(name, args.get(2))?;
    paths(name, &config, kernel, txn, args)
}

fn by_bellman_ford(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let name = PROCEDURES[1].name;
    let (config, kernel) = Kernel::bellman_ford(name, args.get(2))?;
    paths(name, &config, kernel, txn, args)
}

fn paths(
    name: &str,
    config: &Config,
    kernel: Kernel,
    txn: &Txn,
    args: &[Value],
) -> ExecResult<Vec<Vec<Value>>> {
    let sources = source_nodes(name, args.first().unwrap_or(&Value::Null))?;
    let targets = source_nodes(name, args.get(1).unwrap_or(&Value::Null))?;
    let weight = required_weight(config)?;
    let direction = config.direction(Direction::Out)?;
    let spec = config.view_spec(Some(weight.clone()))?;
    if sources.is_empty() || targets.is_empty() {
        return Ok(Vec::new());
    }
    let edges = Edges {
        txn,
        hop: match direction {
            Direction::Out => Hop::Outgoing,
            Direction::In => Hop::Incoming,
            Direction::Both => Hop::Both,
        },
        types: &spec.edge_labels,
        weight: &weight,
    };
    let found = on_view(txn, config, &spec, |view, stop| {
        let mut found = Vec::new();
        for &source in &sources {
            // One run per source serves all its targets, run only when a
            // target other than the source itself is in the view.
            let mut tree: Option<ShortestPaths> = None;
            for &target in &targets {
                if target == source {
                    found.push((source, target, vec![source], vec![0.0]));
                    continue;
                }
                let (Some(s), Some(t)) = (view.index_of(source), view.index_of(target)) else {
                    continue;
                };
                let paths = match tree.take() {
                    Some(paths) => paths,
                    None => kernel.run(view.graph(), s, direction, stop)?,
                };
                if let Some(steps) = shortest_path(view.graph(), direction, s, t, &paths.distance) {
                    let distances = steps.iter().map(|&v| paths.distance[v as usize]).collect();
                    let nodes = steps.iter().map(|&v| view.node(v)).collect();
                    found.push((source, target, nodes, distances));
                }
                tree = Some(paths);
            }
        }
        Ok(found)
    })?;
    found
        .into_iter()
        .map(|(source, target, nodes, distances)| {
            let rels = nodes
                .windows(2)
                .map(|w| edges.lightest(w[0], w[1]))
                .collect::<Option<Vec<RelId>>>()
                .ok_or_else(|| {
                    config.failed("a relationship on the path is gone from the graph")
                })?;
            Ok(row(source, target, nodes, distances, rels))
        })
        .collect()
}

/// Looks up the store's relationship behind each step of a path found on
/// the view (the view keeps no relationship ids).
struct Edges<'a> {
    txn: &'a Txn,
    hop: Hop,
    types: &'a [String],
    weight: &'a str,
}

impl Edges<'_> {
    /// The lightest relationship from `from` to `to` along the call's
    /// direction: the one the path's distance counted. The view was built
    /// from the same snapshot, so one exists (`None` would mean the graph
    /// changed under the call) and every candidate has a numeric weight.
    fn lightest(&self, from: NodeId, to: NodeId) -> Option<RelId> {
        let weight = |rel: RelId| match self.txn.rel_property(rel, self.weight) {
            Some(Value::Int(i)) => i as f64,
            Some(Value::Float(f)) => f,
            _ => f64::INFINITY,
        };
        self.txn
            .expand_into(from, to, self.hop, self.types)
            .into_iter()
            .map(|(rel, _)| (weight(rel), rel))
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, rel)| rel)
    }
}

fn row(
    source: NodeId,
    target: NodeId,
    nodes: Vec<NodeId>,
    distances: Vec<f64>,
    rels: Vec<RelId>,
) -> Vec<Value> {
    let distance = distances.last().copied().unwrap_or(0.0);
    vec![
        Value::Node(source),
        Value::Node(target),
        Value::Float(distance),
        Value::List(nodes.iter().map(|&n| Value::Node(n)).collect()),
        Value::List(distances.into_iter().map(Value::Float).collect()),
        Value::Path(Box::new(PathValue { nodes, rels })),
    ]
}
