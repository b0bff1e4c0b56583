//! Rough row counts of whole sub-plans: the one estimate that rule
//! `hash_join` (running a plan once against once per row of another),
//! rule `parallel_gather` (whether a chain is worth several threads) and
//! EXPLAIN's estimated rows per operator read.
//!
//! Why rough: scans are estimated from the catalog (labels, characteristic
//! sets through `cardinality::node_frontier`), expands through the types'
//! average fan-out, a variable-length expand as the paths of up to
//! [`MAX_ESTIMATED_HOPS`] such steps, an optional match as its input times
//! its inner rows; seeks count one node per input row and every other
//! operator passes its input's count on. Seeks and filters are thus never
//! taken to multiply rows.

use crate::cardinality::{fan_out, known_list_length, node_frontier};
use crate::expr::Expr;
use crate::parameter_probe::ParameterProbe;
use crate::plan::Op;
use crate::Catalog;
use nereid_values::Direction;
use std::cell::RefCell;
use std::collections::HashMap;

/// What an expand over no known type, or an unwind of an unknown list, is
/// taken to multiply rows by.
const UNKNOWN_FAN_OUT: f64 = 10.0;

/// Hops of a variable-length expand counted in its estimate (longer
/// bounds are estimated as this many).
const MAX_ESTIMATED_HOPS: u64 = 3;

/// The estimated rows `op` emits in one run (its `Argument` emitting one).
pub(crate) fn rows(op: &Op, catalog: &dyn Catalog) -> f64 {
    Estimator::new(catalog).rows(op)
}

/// Row estimates of the operators of one plan, each computed once: a
/// plan's every operator (EXPLAIN) or every suffix of a chain (`work`)
/// would otherwise re-estimate the operators below it, quadratic in a plan
/// that may be thousands deep. Keyed by the operator's address, so the
/// plan must not change while an estimator is in use.
pub(crate) struct Estimator<'a> {
    catalog: &'a dyn Catalog,
    known: RefCell<HashMap<usize, f64>>,
}

impl<'a> Estimator<'a> {
    pub(crate) fn new(catalog: &'a dyn Catalog) -> Self {
        Estimator {
            catalog,
            known: RefCell::new(HashMap::new()),
        }
    }

    /// The estimated rows `op` emits in one run.
    pub(crate) fn rows(&self, op: &Op) -> f64 {
        let key = op as *const Op as usize;
        if let Some(&known) = self.known.borrow().get(&key) {
            return known;
        }
        let estimate = self.estimate(op);
        self.known.borrow_mut().insert(key, estimate);
        estimate
    }

    fn estimate(&self, op: &Op) -> f64 {
        let catalog = self.catalog;
        let below = |input: &Op| nereid_stack::deeper(|| self.rows(input));
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
                below(input) * expand_fan_out(catalog, &spec.types, spec.dir)
            }
            Op::VarExpand { input, spec } if !spec.into => {
                let step = expand_fan_out(catalog, &spec.types, spec.dir);
                let max = spec
                    .max
                    .unwrap_or(MAX_ESTIMATED_HOPS)
                    .min(MAX_ESTIMATED_HOPS);
                let paths: f64 = (spec.min.min(max)..=max)
                    .map(|hops| step.powi(i32::try_from(hops).unwrap_or(0)))
                    .sum();
                below(input) * paths
            }
            // A list collected by an aggregation below holds its input rows.
            Op::Unwind { input, expr, .. } => match (&**input, expr) {
                (
                    Op::Aggregate {
                        input: collected,
                        aggregates,
                        ..
                    },
                    Expr::Slot(list),
                ) if aggregates.iter().any(|(out, _)| out == list) => below(collected),
                _ => below(input) * known_list_length(catalog, expr).unwrap_or(UNKNOWN_FAN_OUT),
            },
            Op::Optional { input, inner, .. } => below(input) * below(inner).max(1.0),
            Op::Aggregate { keys, .. } if keys.is_empty() => 1.0,
            Op::Limit { input, count, .. }
            | Op::Top {
                input,
                limit: count,
                ..
            } => {
                let limit = match count {
                    Expr::Literal(nereid_values::Value::Int(n)) => *n as f64,
                    Expr::Param(name) => match catalog.parameter(name) {
                        Some(nereid_values::Value::Int(n)) => {
                            let n = (*n).max(0) as f64;
                            catalog.note_probe(ParameterProbe::Integer(name.clone()), n);
                            n
                        }
                        _ => f64::INFINITY,
                    },
                    _ => f64::INFINITY,
                };
                below(input).min(limit)
            }
            Op::HashJoin { spec, .. } => spec.estimated_rows as f64,
            other => other.input().map_or(1.0, below),
        }
    }
}

/// The cost of one run of `op`: the rows every operator of it emits (the
/// measure rule `join_order` minimises), nested plans not counted. A scan
/// under filters counts what the filters keep, as the seek the filters'
/// equalities make of it emits only those.
pub(crate) fn work(op: &Op, catalog: &dyn Catalog) -> f64 {
    let estimator = Estimator::new(catalog);
    let mut total = 0.0;
    let mut current = Some(op);
    while let Some(op) = current {
        let here = estimator.rows(op);
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

/// The average relationships an expand over `types` finds per start node:
/// the sum of each type's average (several types), or
/// [`UNKNOWN_FAN_OUT`] when no type is named or one has no statistics.
fn expand_fan_out(catalog: &dyn Catalog, types: &[String], dir: Direction) -> f64 {
    if types.is_empty() {
        return UNKNOWN_FAN_OUT;
    }
    types
        .iter()
        .map(|t| fan_out(catalog, std::slice::from_ref(t), dir))
        .sum::<Option<f64>>()
        .unwrap_or(UNKNOWN_FAN_OUT)
}
