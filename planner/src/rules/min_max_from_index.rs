//! `min_max_from_index`: `MATCH (n:L) RETURN min(n.p)` (or `max`, or both
//! together) with an online range index on `(L, p)` reads the index from
//! its low (high) end instead of scanning the label (`Op::NodeIndexMinMax`).
//!
//! Neo4j 5.26 plans the same query as `Optional` over `Limit 1` over a
//! `Projection` over an ordered `NodeIndexScan` (its EXPLAIN, read from
//! the reference server). Here one operator does it, named
//! `NodeIndexScan` in EXPLAIN as Neo4j's leaf is, because reading the
//! first entry is not always the aggregate's answer: the index orders
//! lists, temporals, durations and points apart from `ORDER BY`, and
//! `min`/`max` keep the first of values that compare equal (`1` and
//! `1.0`, `0.0` and `-0.0`, numbers beyond 2^53) in scan order. The
//! operator answers from the index only when the values at the end are of
//! a class whose key order is `ORDER BY`'s (numbers, strings, booleans,
//! byte arrays) and every value equal to the first is identical to it;
//! otherwise it aggregates over the label scan it replaced, so the answer
//! is always the scan's.
//!
//! Only this exact shape: an aggregation without grouping keys whose
//! aggregates are each `min` or `max` of one property of the scanned node
//! (the same property for all), over a
//! scan of exactly one label whose input is the plan's `Argument`. A
//! `USING SCAN` hint, or one naming another index, keeps the scan. Runs
//! after `label_into_scan`, so the label is in the scan.

use super::{indexes_of, transform_up, RewriteRule};
use crate::expr::{Expr, Slot};
use crate::index_query::{allowed_for, IndexDescriptor, IndexEntity, IndexKind};
use crate::plan::{Aggregate, Op};
use crate::Catalog;
use nereid_functions::AggregateFunction;

pub struct MinMaxFromIndex;

impl RewriteRule for MinMaxFromIndex {
    fn name(&self) -> &'static str {
        "min_max_from_index"
    }

    fn rewrite(&self, plan: Op, catalog: &dyn Catalog) -> Op {
        let indexes = indexes_of(catalog, IndexEntity::Node);
        if indexes.is_empty() {
            return plan;
        }
        let hints = catalog.hints();
        let allowed = |node: Slot| allowed_for(&indexes, &hints, node);
        transform_up(plan, &|op| match op {
            Op::Aggregate {
                input,
                keys,
                aggregates,
            } if keys.is_empty() && !aggregates.is_empty() => {
                from_index(&input, &aggregates, &allowed).unwrap_or(Op::Aggregate {
                    input,
                    keys,
                    aggregates,
                })
            }
            other => other,
        })
    }
}

/// The index read replacing `aggregates` over `input`, when the shape fits.
fn from_index(
    input: &Op,
    aggregates: &[(Slot, Aggregate)],
    allowed: &dyn Fn(Slot) -> Vec<IndexDescriptor>,
) -> Option<Op> {
    let Op::NodeScan {
        input: scan_input,
        out: node,
        labels,
    } = input
    else {
        return None;
    };
    if **scan_input != Op::Argument || labels.len() != 1 {
        return None;
    }
    let mut key = None;
    let mut extremes = Vec::with_capacity(aggregates.len());
    for (out, aggregate) in aggregates {
        let (k, max) = extreme_of(aggregate, *node)?;
        if key.is_some_and(|first| first != k) {
            return None;
        }
        key = Some(k);
        extremes.push((*out, max));
    }
    let key = key?;
    allowed(*node)
        .into_iter()
        .find(|i| i.kind == IndexKind::Range && i.label == labels[0] && i.keys == [key.to_string()])
        .map(|index| Op::NodeIndexMinMax {
            input: Box::new(Op::Argument),
            extremes,
            node: *node,
            index,
        })
}

/// `(key, is max)` when `aggregate` is `min(v.key)` / `max(v.key)` (also
/// DISTINCT, which changes neither) of the node in `node`.
fn extreme_of(aggregate: &Aggregate, node: Slot) -> Option<(&str, bool)> {
    let max = match aggregate.func {
        AggregateFunction::Min => false,
        AggregateFunction::Max => true,
        _ => return None,
    };
    match &aggregate.arg {
        Some(Expr::Property { expr, key }) if **expr == Expr::Slot(node) => {
            Some((key.as_str(), max))
        }
        _ => None,
    }
}
