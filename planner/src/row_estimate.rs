//! Rough row counts of whole sub-plans, for rules that compare running a
//! plan once with running it once per row of another (rule `hash_join`).
//!
//! Why rough: only the operators a MATCH lowers to are estimated from the
//! catalog (scans through `cardinality::node_frontier`, expands through the
//! types' fan-out); seeks count one node per input row and every other
//! operator passes its input's count on. Seeks and filters are thus never
//! taken to multiply rows, and the one place the estimates decide (a hash
//! join against per-row re-runs) treats an unknown as the plan of today.

use crate::cardinality::{fan_out, node_frontier};
use crate::expr::Expr;
use crate::plan::Op;
use crate::Catalog;

/// What a variable-length expand or an unwind is taken to multiply rows
/// by, when nothing is known of it.
const UNKNOWN_FAN_OUT: f64 = 10.0;

/// The estimated rows `op` emits in one run (its `Argument` emitting one).
pub(crate) fn rows(op: &Op, catalog: &dyn Catalog) -> f64 {
    let below = |input: &Op| nereid_stack::deeper(|| rows(input, catalog));
    match op {
        Op::Argument => 1.0,
        Op::Filter { .. } | Op::NodeScan { .. } => {
            let (filters, scan) = filters_over(op);
            match scan {
                Op::NodeScan { input, out, labels } => {
                    below(input) * node_frontier(catalog, *out, labels, &filters)
                }
                other => below(other),
            }
        }
        Op::AllNodesScan { input, .. } => below(input) * catalog.estimate_nodes(None) as f64,
        Op::NodeByLabelScan { input, label, .. } => {
            below(input) * catalog.estimate_nodes(Some(label)) as f64
        }
        Op::RelTypeScan { input, types, .. } => {
            let count: u64 = types
                .iter()
                .filter_map(|t| catalog.relationship_statistics(t))
                .map(|s| s.count)
                .sum();
            below(input) * count as f64
        }
        Op::Expand { input, spec } if !spec.into => {
            below(input) * fan_out(catalog, &spec.types, spec.dir).unwrap_or(UNKNOWN_FAN_OUT)
        }
        Op::VarExpand { input, .. } | Op::Unwind { input, .. } => below(input) * UNKNOWN_FAN_OUT,
        Op::Aggregate { keys, .. } if keys.is_empty() => 1.0,
        Op::Limit { input, count, .. }
        | Op::Top {
            input,
            limit: count,
            ..
        } => {
            let limit = match count {
                Expr::Literal(nereid_values::Value::Int(n)) => *n as f64,
                _ => f64::INFINITY,
            };
            below(input).min(limit)
        }
        Op::HashJoin { spec, .. } => spec.estimated_rows as f64,
        other => other.input().map_or(1.0, below),
    }
}

/// The cost of one run of `op`: the rows every operator of it emits (the
/// measure rule `join_order` minimises), nested plans not counted. A scan
/// under filters counts what the filters keep, as the seek the filters'
/// equalities make of it emits only those.
pub(crate) fn work(op: &Op, catalog: &dyn Catalog) -> f64 {
    let mut total = 0.0;
    let mut current = Some(op);
    while let Some(op) = current {
        let here = rows(op, catalog);
        let (filters, under) = filters_over(op);
        match under {
            Op::NodeScan { input, .. } if !filters.is_empty() => {
                total += here * (filters.len() + 1) as f64;
                current = Some(input);
            }
            _ => {
                total += here;
                current = op.input();
            }
        }
    }
    total
}

/// The filters directly over `op` (top-down) and the operator under them.
fn filters_over(mut op: &Op) -> (Vec<&Expr>, &Op) {
    let mut filters = Vec::new();
    while let Op::Filter { input, predicate } = op {
        filters.push(predicate);
        op = input;
    }
    (filters, op)
}
