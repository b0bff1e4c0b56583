//! `count_from_store`: `MATCH (n[:L]) RETURN count(n)` and
//! `MATCH ()-[r[:T]]->() RETURN count(r)` are answered from the store's
//! per-snapshot counts instead of scanning (Neo4j's
//! `NodeCountFromCountStore` / `RelationshipCountFromCountStore`).
//!
//! Only this exact shape is rewritten: an aggregation without grouping keys
//! whose single aggregate is `count(*)` or `count(v)` (not DISTINCT) with
//! `v` a variable of the pattern, directly over
//! - a scan of at most one label whose input is the plan's `Argument`
//!   (nothing else binds rows before it), or
//! - a directed, non-into expand from such an unlabelled scan.
//!
//! Anything between them (a filter: WHERE, a second label, a uniqueness
//! check) or around them (OPTIONAL MATCH puts an `Optional` under the
//! aggregation; an earlier clause makes the scan's input more than the
//! `Argument`) leaves the plan unchanged, so the counts equal the rows the
//! scan would have produced: every scanned node or relationship is bound,
//! never null, so `count(v)` equals `count(*)`. Undirected patterns are not
//! rewritten (they match each relationship from both ends, a self-loop
//! differently). The label must run first (`label_into_scan`), so this rule
//! comes after it in [`super::RULES`].

use super::{rewrite_single_aggregate, RewriteRule};
use crate::expr::{Expr, Slot};
use crate::plan::{Aggregate, Op};
use crate::Catalog;
use nereid_functions::AggregateFunction;
use nereid_values::Direction;

pub struct CountFromStore;

impl RewriteRule for CountFromStore {
    fn name(&self) -> &'static str {
        "count_from_store"
    }

    fn rewrite(&self, plan: Op, _catalog: &dyn Catalog) -> Op {
        rewrite_single_aggregate(plan, &from_store)
    }
}

/// The count operator replacing `count(..)` over `input`, if the shape fits.
fn from_store(input: &Op, aggregate: &Aggregate, out: Slot) -> Option<Op> {
    let counted = plain_count(aggregate)?;
    let argument = || Box::new(Op::Argument);
    match input {
        Op::NodeScan {
            input: scan_input,
            out: node,
            labels,
        } if **scan_input == Op::Argument && labels.len() <= 1 => counted
            .is_none_or(|slot| slot == *node)
            .then(|| Op::NodeCountFromStore {
                input: argument(),
                out,
                label: labels.first().cloned(),
            }),
        Op::Expand {
            input: expand_input,
            spec,
        } if !spec.into && spec.dir != Direction::Both => match &**expand_input {
            Op::NodeScan {
                input: scan_input,
                out: node,
                labels,
            } if **scan_input == Op::Argument && labels.is_empty() && *node == spec.from => counted
                .is_none_or(|slot| [spec.from, spec.rel, spec.to].contains(&slot))
                .then(|| Op::RelCountFromStore {
                    input: argument(),
                    out,
                    types: spec.types.clone(),
                }),
            _ => None,
        },
        _ => None,
    }
}

/// `Some(None)` for `count(*)`, `Some(Some(slot))` for `count(variable)`;
/// `None` for any other aggregate.
fn plain_count(aggregate: &Aggregate) -> Option<Option<Slot>> {
    if aggregate.func != AggregateFunction::Count
        || aggregate.distinct
        || aggregate.percentile.is_some()
    {
        return None;
    }
    match &aggregate.arg {
        None => Some(None),
        Some(Expr::Slot(slot)) => Some(Some(*slot)),
        Some(_) => None,
    }
}
