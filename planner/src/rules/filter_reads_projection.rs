//! `filter_reads_projection`: a property a projection computes that the
//! filters just under it also read is computed once, below the filters,
//! and the filters read its slot. LDBC IC9 filters each message on
//! `message.creationDate < $maxDate` and then projects
//! `message.creationDate` for its sort: after this rule the store is asked
//! for the date once per message instead of twice.
//!
//! Exact because a property read computes the same value from the same row
//! wherever it stands, and a filter neither binds nor changes slots: the
//! item computed under a filter holds, on every row that passes, what the
//! projection would have computed above. Only items that are a property of
//! a slot move, each to just under the innermost filter that evaluates that
//! very expression on every row it sees (not behind a short-circuit `AND` /
//! `OR` operand): so no row pays for a read it would not have made, and a
//! read that fails (a property of a number) fails on the same rows as
//! before. The substitution looks through comparisons, boolean connectives,
//! `NOT`, negation and `IS NULL`. When the projection's items read each
//! other's slots it is left whole.

use super::{projection_reads_own as reads_own, transform_up, RewriteRule};
use crate::expr::{BinaryOp, Expr, Slot};
use crate::plan::Op;
use crate::Catalog;

pub struct FilterReadsProjection;

impl RewriteRule for FilterReadsProjection {
    fn name(&self) -> &'static str {
        "filter_reads_projection"
    }

    fn rewrite(&self, plan: Op, _catalog: &dyn Catalog) -> Op {
        transform_up(plan, &|op| match op {
            Op::Project { input, items } => rewrite(*input, items),
            other => other,
        })
    }
}

type Items = Vec<(Slot, Expr)>;

fn rewrite(input: Op, items: Items) -> Op {
    let (predicates, below) = filters_of(input);
    // Per item, the innermost filter that reads it on every row, if any.
    let position = |e: &Expr| {
        let property = matches!(e, Expr::Property { expr, .. } if matches!(**expr, Expr::Slot(_)));
        property
            .then(|| predicates.iter().position(|p| unconditional(p, e)))
            .flatten()
    };
    if reads_own(&items) || !items.iter().any(|(_, e)| position(e).is_some()) {
        return Op::Project {
            input: Box::new(refilter(below, predicates)),
            items,
        };
    }
    let mut early: Vec<Items> = vec![Vec::new(); predicates.len()];
    let mut late = Vec::new();
    for (slot, e) in items {
        match position(&e) {
            Some(i) => early[i].push((slot, e)),
            None => late.push((slot, e)),
        }
    }
    let mut op = below;
    let mut computed: Items = Vec::new();
    for (predicate, here) in predicates.into_iter().zip(early) {
        if !here.is_empty() {
            computed.extend(here.iter().cloned());
            op = Op::Project {
                input: Box::new(op),
                items: here,
            };
        }
        let predicate = computed
            .iter()
            .fold(predicate, |p, (slot, e)| substitute(p, e, *slot));
        op = Op::Filter {
            input: Box::new(op),
            predicate,
        };
    }
    if late.is_empty() {
        op
    } else {
        Op::Project {
            input: Box::new(op),
            items: late,
        }
    }
}

/// The predicates of the filters on top of `op`, innermost first, and
/// what lies under them.
fn filters_of(op: Op) -> (Vec<Expr>, Op) {
    let mut predicates = Vec::new();
    let mut op = op;
    while let Op::Filter { input, predicate } = op {
        predicates.push(predicate);
        op = *input;
    }
    predicates.reverse();
    (predicates, op)
}

/// `input` under the filters again, innermost first.
fn refilter(input: Op, predicates: Vec<Expr>) -> Op {
    predicates
        .into_iter()
        .fold(input, |input, predicate| Op::Filter {
            input: Box::new(input),
            predicate,
        })
}

/// Whether evaluating `e` always evaluates `target`: it is `target`, or an
/// operand that is always evaluated holds it (the left of `AND` / `OR`,
/// either side of any other operator, the operand of `NOT`, negation and
/// `IS NULL`).
pub(super) fn unconditional(e: &Expr, target: &Expr) -> bool {
    if e == target {
        return true;
    }
    match e {
        Expr::Binary {
            op: BinaryOp::And | BinaryOp::Or,
            lhs,
            ..
        } => unconditional(lhs, target),
        Expr::Binary { lhs, rhs, .. } => unconditional(lhs, target) || unconditional(rhs, target),
        Expr::Not(inner) | Expr::Negate(inner) => unconditional(inner, target),
        Expr::IsNull { expr, .. } => unconditional(expr, target),
        _ => false,
    }
}

/// `e` with each occurrence of `target` (through the operators
/// [`unconditional`] looks through, both sides of `AND` / `OR` too) read
/// from `slot` instead.
pub(super) fn substitute(e: Expr, target: &Expr, slot: Slot) -> Expr {
    if &e == target {
        return Expr::Slot(slot);
    }
    let go = |inner: Box<Expr>| Box::new(substitute(*inner, target, slot));
    match e {
        Expr::Binary { op, lhs, rhs } => Expr::Binary {
            op,
            lhs: go(lhs),
            rhs: go(rhs),
        },
        Expr::Not(inner) => Expr::Not(go(inner)),
        Expr::Negate(inner) => Expr::Negate(go(inner)),
        Expr::IsNull { expr, negated } => Expr::IsNull {
            expr: go(expr),
            negated,
        },
        other => other,
    }
}
