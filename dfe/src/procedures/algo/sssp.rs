//! `neptune.algo.sssp.deltaStepping` and `.sssp.bellmanFord` (and their
//! `.parents`): weighted shortest-path distances (or shortest-path-tree
//! parents) from each source node to every node it reaches,
//! over the numeric edge property `edgeWeightProperty` (an edge without it,
//! or with a negative value, fails the call).

use super::config::Config;
use super::context::on_view;
use super::sources::source_nodes;
use super::SOURCES_AND_CONFIG;
use crate::error::ExecResult;
use crate::procedures::Procedure;
use nereid_algorithms::{
    bellman_ford, delta_stepping, AlgorithmError, Direction, Graph, ShortestPaths, Stop,
};
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
    Procedure {
        name: "neptune.algo.sssp.deltaStepping.parents",
        inputs: SOURCES_AND_CONFIG,
        outputs: &["source", "node", "parent"],
        description: "Weighted shortest-path tree from each source node: every node reached and its parent (delta-stepping).",
        mode: "READ",
        body: parents_by_delta_stepping,
    },
    Procedure {
        name: "neptune.algo.sssp.bellmanFord.parents",
        inputs: SOURCES_AND_CONFIG,
        outputs: &["source", "node", "parent"],
        description: "Weighted shortest-path tree from each source node: every node reached and its parent (Bellman-Ford).",
        mode: "READ",
        body: parents_by_bellman_ford,
    },
];

/// What each row carries beside the source and the node reached.
#[derive(Clone, Copy)]
enum Report {
    Distance,
    Parent,
}

const KEYS: &[&str] = &[
    "edgeWeightProperty",
    "edgeWeightType",
    "traversalDirection",
    "delta",
];

fn by_delta_stepping(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    with_delta_stepping(PROCEDURES[0].name, txn, args, Report::Distance)
}

fn by_bellman_ford(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    with_bellman_ford(PROCEDURES[1].name, txn, args, Report::Distance)
}

fn parents_by_delta_stepping(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    with_delta_stepping(PROCEDURES[2].name, txn, args, Report::Parent)
}

fn parents_by_bellman_ford(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    with_bellman_ford(PROCEDURES[3].name, txn, args, Report::Parent)
}

fn with_delta_stepping(
    name: &'static str,
    txn: &Txn,
    args: &[Value],
    report: Report,
) -> ExecResult<Vec<Vec<Value>>> {
    let (config, kernel) = Kernel::delta_stepping(name, args.get(1))?;
    shortest(name, &config, txn, args, report, |g, s, dir, stop| {
        kernel.run(g, s, dir, stop)
    })
}

fn with_bellman_ford(
    name: &'static str,
    txn: &Txn,
    args: &[Value],
    report: Report,
) -> ExecResult<Vec<Vec<Value>>> {
    let (config, kernel) = Kernel::bellman_ford(name, args.get(1))?;
    shortest(name, &config, txn, args, report, |g, s, dir, stop| {
        kernel.run(g, s, dir, stop)
    })
}

/// The kernel a call names, with its own option checked.
#[derive(Clone, Copy)]
pub(super) enum Kernel {
    DeltaStepping { delta: f64 },
    BellmanFord,
}

impl Kernel {
    /// Delta-stepping and the configuration `config` of a call to `name`.
    pub(super) fn delta_stepping(
        name: &'static str,
        config: Option<&Value>,
    ) -> ExecResult<(Config, Kernel)> {
        let config = Config::parse(name, config, KEYS)?;
        let delta = config
            .number("delta", f64::MIN_POSITIVE..=f64::MAX)?
            .unwrap_or(DEFAULT_DELTA);
        Ok((config, Kernel::DeltaStepping { delta }))
    }

    /// Bellman-Ford (which has no `delta`) and the configuration.
    pub(super) fn bellman_ford(
        name: &'static str,
        config: Option<&Value>,
    ) -> ExecResult<(Config, Kernel)> {
        let config = Config::parse(name, config, &KEYS[..KEYS.len() - 1])?;
        Ok((config, Kernel::BellmanFord))
    }

    pub(super) fn run(
        self,
        graph: &Graph,
        source: u32,
        dir: Direction,
        stop: Stop,
    ) -> Result<ShortestPaths, AlgorithmError> {
        match self {
            Kernel::DeltaStepping { delta } => delta_stepping(graph, source, dir, delta, stop),
            Kernel::BellmanFord => bellman_ford(graph, source, dir, stop),
        }
    }
}

/// The weight property a shortest-path call must name.
pub(super) fn required_weight(config: &Config) -> ExecResult<String> {
    config
        .edge_weight()?
        .ok_or_else(|| config.failed("configuration key `edgeWeightProperty` is required"))
}

fn shortest(
    name: &str,
    config: &Config,
    txn: &Txn,
    args: &[Value],
    report: Report,
    kernel: impl Fn(&Graph, u32, Direction, Stop) -> Result<ShortestPaths, AlgorithmError> + Sync,
) -> ExecResult<Vec<Vec<Value>>> {
    let sources = source_nodes(name, args.first().unwrap_or(&Value::Null))?;
    let weight = required_weight(config)?;
    let direction = config.direction(Direction::Out)?;
    let spec = config.view_spec(Some(weight))?;
    if sources.is_empty() {
        return Ok(Vec::new());
    }
    on_view(txn, config, &spec, |view, stop| {
        let mut rows = Vec::new();
        for &source in &sources {
            let Some(start) = view.index_of(source) else {
                let last = match report {
                    Report::Distance => Value::Float(0.0),
                    Report::Parent => Value::Node(source),
                };
                rows.push(vec![Value::Node(source), Value::Node(source), last]);
                continue;
            };
            let paths = kernel(view.graph(), start, direction, stop)?;
            let parents = match report {
                Report::Parent => paths.parents(view.graph()),
                Report::Distance => Vec::new(),
            };
            for (v, &d) in paths.distance.iter().enumerate() {
                if d.is_finite() {
                    let last = match report {
                        Report::Distance => Value::Float(d),
                        // The source has no parent in the tree: it is its
                        // own, as in `bfs.parents`.
                        Report::Parent => match parents[v] {
                            u32::MAX if v == start as usize => Value::Node(source),
                            u32::MAX => Value::Null,
                            p => Value::Node(view.node(p)),
                        },
                    };
                    rows.push(vec![
                        Value::Node(source),
                        Value::Node(view.node(v as u32)),
                        last,
                    ]);
                }
            }
        }
        Ok(rows)
    })
}
