//! `neptune.algo.neighbors.common`, `.neighbors.total`,
//! `.jaccardSimilarity` and `.overlapSimilarity`: how much the
//! neighbourhoods (distinct neighbours along `traversalDirection`, default
//! outbound) of two nodes overlap. The
//! first and second arguments are nodes or lists of nodes taken pair by
//! pair; one row per pair, in order.

use super::config::Config;
use super::context::on_view;
use super::sources::source_nodes;
use crate::error::ExecResult;
use crate::procedures::Procedure;
use nereid_algorithms::{neighbourhood_overlap, Direction, Overlap};
use nereid_planner::ProcedureType;
use nereid_storage::Txn;
use nereid_values::Value;

const INPUTS: &[(&str, ProcedureType)] = &[
    ("firstNodes", ProcedureType::Any),
    ("secondNodes", ProcedureType::Any),
    ("config = {}", ProcedureType::Map),
];

pub(in crate::procedures) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "neptune.algo.neighbors.common",
        inputs: INPUTS,
        outputs: &["common"],
        description: "The number of neighbours two nodes share.",
        mode: "READ",
        body: common,
    },
    Procedure {
        name: "neptune.algo.neighbors.total",
        inputs: INPUTS,
        outputs: &["total"],
        description: "The number of distinct neighbours of two nodes together.",
        mode: "READ",
        body: total,
    },
    Procedure {
        name: "neptune.algo.jaccardSimilarity",
        inputs: INPUTS,
        outputs: &["score"],
        description: "Jaccard similarity of two nodes' neighbourhoods (shared over all).",
        mode: "READ",
        body: jaccard,
    },
    Procedure {
        name: "neptune.algo.overlapSimilarity",
        inputs: INPUTS,
        outputs: &["score"],
        description: "Overlap similarity of two nodes' neighbourhoods (shared over the smaller).",
        mode: "READ",
        body: overlap,
    },
];

fn common(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    pairs(PROCEDURES[0].name, txn, args, |o| {
        Value::Int(o.shared as i64)
    })
}

fn total(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    pairs(PROCEDURES[1].name, txn, args, |o| {
        Value::Int(o.total() as i64)
    })
}

fn jaccard(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    pairs(PROCEDURES[2].name, txn, args, |o| {
        Value::Float(quotient(o.shared, o.total()))
    })
}

fn overlap(txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    pairs(PROCEDURES[3].name, txn, args, |o| {
        Value::Float(quotient(o.shared, o.first.min(o.second)))
    })
}

/// `shared / of`, 0 for two empty neighbourhoods.
fn quotient(shared: usize, of: usize) -> f64 {
    if of == 0 {
        0.0
    } else {
        shared as f64 / of as f64
    }
}

/// One row per (first, second) pair: `score` of their overlap. A node the
/// view does not hold (`vertexLabel`) has no neighbours.
fn pairs(
    name: &'static str,
    txn: &Txn,
    args: &[Value],
    score: impl Fn(Overlap) -> Value + Sync,
) -> ExecResult<Vec<Vec<Value>>> {
    let config = Config::parse(name, args.get(2), &["traversalDirection"])?;
    let first = source_nodes(name, args.first().unwrap_or(&Value::Null))?;
    let second = source_nodes(name, args.get(1).unwrap_or(&Value::Null))?;
    if first.len() != second.len() {
        return Err(config.failed(&format!(
            "the first and second node lists must be as long as each other ({} and {})",
            first.len(),
            second.len()
        )));
    }
    let direction = config.direction(Direction::Out)?;
    let spec = config.view_spec(None)?;
    on_view(txn, &config, &spec, |view, _| {
        Ok(first
            .iter()
            .zip(&second)
            .map(|(&a, &b)| {
                let overlap = match (view.index_of(a), view.index_of(b)) {
                    (Some(a), Some(b)) => neighbourhood_overlap(view.graph(), a, b, direction),
                    _ => Overlap::default(),
                };
                vec![score(overlap)]
            })
            .collect())
    })
}
