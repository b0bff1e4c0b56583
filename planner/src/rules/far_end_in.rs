//! `far_end_in`: a filter `to IN list` over an expand that binds `to`
//! hands the expand the list, so the expand tests each neighbour's id
//! against it before building the neighbour's row. LDBC IC5 counts, per
//! forum, the posts its members wrote: `(forum)-[:CONTAINER_OF]->(post)
//! -[:HAS_CREATOR]->(friend) WHERE friend IN friends` reads 92,499 posts'
//! creators and keeps 168; without the pre-test each of the 92,499 became
//! a row (every slot of the input row copied) only for the filter to drop
//! it.
//!
//! Exact: the filter stays above the expand and still decides every row
//! the expand builds (a null in the list, a list that is not a list and
//! the error that gives, are the filter's as before). The expand only
//! leaves out neighbours whose test could not be `true`: a node is `IN` a
//! list only when the list holds that node, and `IN null` is never true.
//! The list must be a slot of the input row, a parameter, a literal or a
//! list literal of those (IC3's `city IN [countryX, countryY]`) — the
//! same value for every neighbour of one input row, so evaluating it once
//! per input row gives what the filter evaluates per output row — and
//! must not read the relationship or node the expand binds. Filters
//! between the two are looked through (they neither bind nor change
//! slots). Runs late, after the join order and operator choices, since a
//! hop reversed or replaced would otherwise carry a list meant for its
//! other end.

use super::{transform_up, RewriteRule};
use crate::expr::{slots_of, BinaryOp, Expr, Slot};
use crate::plan::{ExpandSpec, Op};
use crate::Catalog;

pub struct FarEndIn;

impl RewriteRule for FarEndIn {
    fn name(&self) -> &'static str {
        "far_end_in"
    }

    fn rewrite(&self, plan: Op, _catalog: &dyn Catalog) -> Op {
        transform_up(plan, &|op| match op {
            Op::Filter {
                mut input,
                predicate,
            } => {
                if let Some((to, list)) = membership(&predicate) {
                    hand_to_expand(&mut input, to, list);
                }
                Op::Filter { input, predicate }
            }
            other => other,
        })
    }
}

/// `(slot, list)` when `predicate` is `slot IN list` with a list that is
/// the same for every row a single input row expands to.
fn membership(predicate: &Expr) -> Option<(Slot, &Expr)> {
    let Expr::Binary {
        op: BinaryOp::In,
        lhs,
        rhs,
    } = predicate
    else {
        return None;
    };
    let Expr::Slot(slot) = **lhs else {
        return None;
    };
    same_per_input_row(rhs).then_some((slot, &**rhs))
}

/// Whether `list` is a slot, a parameter, a literal, or a list literal of
/// these: nothing that could differ between two evaluations on one row.
fn same_per_input_row(list: &Expr) -> bool {
    match list {
        Expr::Slot(_) | Expr::Param(_) | Expr::Literal(_) => true,
        Expr::List(items) => items.iter().all(same_per_input_row),
        _ => false,
    }
}

/// Gives `list` to the expand under the run of filters at `op` when it
/// binds `to` (not `into`: a bound end is tested by id already) and has no
/// pre-test yet.
fn hand_to_expand(op: &mut Op, to: Slot, list: &Expr) {
    match op {
        Op::Filter { input, .. } => hand_to_expand(input, to, list),
        Op::Expand { spec, .. } if fits(spec, to, list) => {
            spec.far_end_in = Some(Box::new(list.clone()))
        }
        _ => {}
    }
}

fn fits(spec: &ExpandSpec, to: Slot, list: &Expr) -> bool {
    let mut read = Vec::new();
    slots_of(list, &mut read);
    let reads_bound = read.iter().any(|&s| s == spec.rel || s == spec.to);
    !spec.into && spec.to == to && spec.far_end_in.is_none() && !reads_bound
}
