//! `far_end_where`: filters over an expand that compare a property of the
//! node it reaches with a literal or parameter hand the expand those
//! comparisons, so it tests each neighbour's stored value before building
//! its row. LDBC IC3 reads each friend's messages, `(friend)<-[:HAS_CREATOR]
//! -(message) WHERE $endDate > message.creationDate >= $startDate`: ~110k
//! messages, of which ~1% are in the window; without the pre-test each
//! became a row (every slot of the input row copied), then the projection
//! of `creationDate` and two filters ran on it, only to drop it.
//!
//! The comparison may read the property directly (`to.key < $p`, either
//! side) or through a slot a projection between them fills with `to.key`
//! (`shared_property_read` reads a property several filters test once
//! into a slot). Filters and projections between are looked through
//! (neither removes a slot; a projection that writes the expand's slots
//! stops the search).
//!
//! Exact: the filters stay above and still decide every row the expand
//! builds. The pre-test uses the executor's own comparison (as the scans'
//! pushed predicates do) and only leaves out neighbours whose comparison is
//! not `true` (false or null), which the filter would drop. Runs late, after
//! the join order and operator choices, like `far_end_in`.

use super::{transform_up, RewriteRule};
use crate::expr::{Expr, Slot};
use crate::plan::{ExpandSpec, Op};
use crate::property_predicate::pushable;
use crate::Catalog;

pub struct FarEndWhere;

impl RewriteRule for FarEndWhere {
    fn name(&self) -> &'static str {
        "far_end_where"
    }

    fn rewrite(&self, plan: Op, _catalog: &dyn Catalog) -> Op {
        transform_up(plan, &|op| match op {
            Op::Filter {
                mut input,
                predicate,
            } => {
                hand_to_expand(&mut input, &predicate, &mut Vec::new());
                Op::Filter { input, predicate }
            }
            other => other,
        })
    }
}

/// Walks the filters and projections under a filter testing `predicate`
/// (collecting the projections' items in `defined`) and hands the expand
/// under them the comparison, when it is one on its other end.
fn hand_to_expand(op: &mut Op, predicate: &Expr, defined: &mut Vec<(Slot, Expr)>) {
    match op {
        Op::Filter { input, .. } => hand_to_expand(input, predicate, defined),
        Op::Project { input, items } => {
            defined.extend(items.iter().cloned());
            hand_to_expand(input, predicate, defined)
        }
        Op::Expand { spec, .. } if !spec.into && !writes_expand_slots(defined, spec) => {
            let resolved = resolved(predicate, defined);
            if let Some(test) = pushable(&resolved, spec.to) {
                let tests = spec.far_end_where.get_or_insert_with(Default::default);
                if !tests.contains(&test) {
                    tests.push(test);
                }
            }
        }
        _ => {}
    }
}

fn writes_expand_slots(defined: &[(Slot, Expr)], spec: &ExpandSpec) -> bool {
    defined.iter().any(|(s, _)| *s == spec.rel || *s == spec.to)
}

/// `predicate` with each operand that is a slot a projection fills replaced
/// by the projection's expression (only the operands of a comparison: a
/// `pushable` form needs `to.key` there).
fn resolved(predicate: &Expr, defined: &[(Slot, Expr)]) -> Expr {
    let operand = |e: &Expr| match e {
        Expr::Slot(s) => defined
            .iter()
            .find(|(d, _)| d == s)
            .map_or_else(|| e.clone(), |(_, x)| x.clone()),
        _ => e.clone(),
    };
    match predicate {
        Expr::Binary { op, lhs, rhs } => Expr::Binary {
            op: *op,
            lhs: Box::new(operand(lhs)),
            rhs: Box::new(operand(rhs)),
        },
        other => other.clone(),
    }
}
