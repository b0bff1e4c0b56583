//! `neptune.algo.topksssp`: from each source node, the best accumulated
//! edge weights out to `hopCount` hops, carrying forward at most
//! `perHopLimits[h]` nodes at hop `h` (kernel `top_k_sssp`), in ascending
//! (`costFunction: 'min'`, the default) or descending (`'max'`) order.
//! The weight is `edgeWeightProperty` (each edge counts 1 without it);
//! `vertexLabel` and `edgeLabels` restrict the view as for every
//! algorithm; a limit of -1 carries every node improved at that hop.

use super::config::Config;
use super::context::on_view;
use super::sources::source_nodes;
use super::SOURCES_AND_CONFIG;
use crate::error::ExecResult;
use crate::procedures::Procedure;
use nereid_algorithms::{top_k_sssp, Cost, Direction, TopKHops};
use nereid_storage::Txn;
use nereid_values::Value;

pub(in crate::procedures) const PROCEDURES: &[Procedure] = &[Procedure {
    name: "neptune.algo.topksssp",
    inputs: SOURCES_AND_CONFIG,
    outputs: &["source", "node", "distance"],
    description: "Hop-limited weighted shortest paths from each source node, keeping the best perHopLimits nodes at each hop, best first.",
    mode: "READ",
    body: topksssp,
}];

const KEYS: &[&str] = &[
    "hopCount",
    "perHopLimits",
    "edgeWeightProperty",
    "edgeWeightType",
    "traversalDirection",
    "costFunction",
];

fn topksssp(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let name = PROCEDURES[0].name;
    let config = Config::parse(name, args.get(1), KEYS)?;
    let shape = shape(&config)?;
    let weight = config.edge_weight()?;
    config.weight_type()?;
    let spec = config.view_spec(weight)?;
    let sources = source_nodes(name, args.first().unwrap_or(&Value::Null))?;
    if sources.is_empty() {
        return Ok(Vec::new());
    }
    on_view(txn, &config, &spec, |view, stop| {
        let mut rows = Vec::new();
        for &source in &sources {
            let Some(start) = view.index_of(source) else {
                continue;
            };
            for (v, distance) in top_k_sssp(view.graph(), start, &shape, &|_| true, stop)? {
                rows.push(vec![
                    Value::Node(source),
                    Value::Node(view.node(v)),
                    Value::Float(distance),
                ]);
            }
        }
        Ok(rows)
    })
}

/// `hopCount`, one limit per hop, the direction and the cost order.
fn shape(config: &Config) -> ExecResult<TopKHops> {
    let hops = config
        .integer("hopCount", 1)?
        .ok_or_else(|| config.failed("configuration key `hopCount` is required"))?;
    let limits = config.integers("perHopLimits")?;
    if limits.len() as i64 != hops {
        return Err(config.failed(&format!(
            "configuration key `perHopLimits` must list one limit per hop ({hops}), not {}",
            limits.len()
        )));
    }
    let limits = limits
        .into_iter()
        .map(|limit| match limit {
            -1 => Ok(None),
            k if k >= 1 => Ok(Some(k as usize)),
            k => Err(config.failed(&format!(
                "configuration key `perHopLimits` takes positive integers or -1, not {k}"
            ))),
        })
        .collect::<ExecResult<Vec<_>>>()?;
    let cost = match config.string("costFunction")?.as_deref() {
        None | Some("min") => Cost::Min,
        Some("max") => Cost::Max,
        Some(other) => {
            return Err(config.failed(&format!(
                "configuration key `costFunction` must be \"min\" or \"max\", not \"{other}\""
            )))
        }
    };
    Ok(TopKHops {
        limits,
        direction: config.direction(Direction::Out)?,
        cost,
    })
}
