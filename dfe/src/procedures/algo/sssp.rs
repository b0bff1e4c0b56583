//! `neptune.algo.sssp.deltaStepping` and `.sssp.bellmanFord`: weighted
//! shortest-path distances from each source node to every node it reaches,
//! over the numeric edge property `edgeWeightProperty` (an edge without it,
//! or with a negative value, fails the call).

use super::config::Config;
use super::context::on_view;
use super::sources::source_nodes;
use super::SOURCES_AND_CONFIG;
use crate::error::ExecResult;
use crate::procedures::Procedure;
use nereid_algorithms::{bellman_ford, delta_stepping, Direction, ShortestPaths};
use nereid_storage::Txn;
use nereid_values::Value;

/// `delta` when the call gives none.
const DEFAULT_DELTA: f64 = 1.0;

pub(in crate::procedures) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "neptune.algo.sssp.deltaStepping",
        inputs: SOURCES_AND_CONFIG,
        outputs: &["source", "node", "distance"],
        description: "Weighted shortest-path distances from each source node (delta-stepping).",
        mode: "READ",
        body: by_delta_stepping,
    },
    Procedure {
        name: "neptune.algo.sssp.bellmanFord",
        inputs: SOURCES_AND_CONFIG,
        outputs: &["source", "node", "distance"],
        description: "Weighted shortest-path distances from each source node (Bellman-Ford).",
        mode: "READ",
        body: by_bellman_ford,
    },
];

const KEYS: &[&str] = &[
    "edgeWeightProperty",
    "edgeWeightType",
    "traversalDirection",
    "delta",
];

fn by_delta_stepping(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let name = PROCEDURES[0].name;
    let config = Config::parse(name, args.get(1), KEYS)?;
    let delta = config
        .number("delta", f64::MIN_POSITIVE..=f64::MAX)?
        .unwrap_or(DEFAULT_DELTA);
    shortest(name, &config, txn, args, |g, s, dir| {
        delta_stepping(g, s, dir, delta)
    })
}

fn by_bellman_ford(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let name = PROCEDURES[1].name;
    let keys = &KEYS[..KEYS.len() - 1];
    let config = Config::parse(name, args.get(1), keys)?;
    shortest(name, &config, txn, args, bellman_ford)
}

fn shortest(
    name: &str,
    config: &Config,
    txn: &Txn,
    args: &[Value],
    kernel: impl Fn(&nereid_algorithms::Graph, u32, Direction) -> ShortestPaths + Sync,
) -> ExecResult<Vec<Vec<Value>>> {
    let sources = source_nodes(name, args.first().unwrap_or(&Value::Null))?;
    let weight = config
        .edge_weight()?
        .ok_or_else(|| config.failed("configuration key `edgeWeightProperty` is required"))?;
    let direction = config.direction(Direction::Out)?;
    let spec = config.view_spec(Some(weight))?;
    if sources.is_empty() {
        return Ok(Vec::new());
    }
    on_view(txn, config, &spec, |view| {
        let mut rows = Vec::new();
        for &source in &sources {
            let Some(start) = view.index_of(source) else {
                rows.push(vec![
                    Value::Node(source),
                    Value::Node(source),
                    Value::Float(0.0),
                ]);
                continue;
            };
            let paths = kernel(view.graph(), start, direction);
            for (v, &d) in paths.distance.iter().enumerate() {
                if d.is_finite() {
                    rows.push(vec![
                        Value::Node(source),
                        Value::Node(view.node(v as u32)),
                        Value::Float(d),
                    ]);
                }
            }
        }
        rows
    })
}
