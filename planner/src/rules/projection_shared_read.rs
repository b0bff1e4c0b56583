//! `projection_shared_read`: a property that one projection reads several
//! times is read from the store once per row. LDBC IC4 sorts each (tag,
//! post) pair into a window with two `CASE`s, `$startDate <=
//! post.creationDate < $endDate` and `post.creationDate < $startDate`:
//! three reads of the same date in one projection, each a store read of
//! every row's post (~16,000 reads for ~7,700 rows on a large set). After
//! this rule a projection under it reads the date into a slot of its own
//! and the expressions read that slot.
//!
//! Exact because the read moves only when the projection already makes it
//! first on every row: it leads one item (nothing that can fail is
//! evaluated before it in that item: see [`leading_read`]) and every item
//! before that one cannot fail (slots, literals, parameters, which the
//! executor checks before the query runs). The executor evaluates a
//! projection item by item over the whole batch, and within an item
//! operand by operand, so the original plan read the property on every
//! row before anything else could fail: the moved read gives the same
//! values, and the same error on the same rows when it fails (a property
//! of a number). Every other occurrence, conditional ones too (a `CASE`
//! branch, the right of `AND`), reads the slot: a slot holds the value the
//! row's read would give, since nothing in a projection writes before all
//! of its items are evaluated. Occurrences inside expressions that bind
//! slots of their own (comprehensions, quantifiers, `reduce`, pattern
//! expressions) are left alone, as are projections that read a property
//! once (the extra operator would buy nothing).
//!
//! Needs a slot past the lowered plan's ([`Catalog::fresh_slot`]); without
//! one the plan is left as it is. Runs beside `shared_property_read`
//! (after `choose_operators`), which does the same for stacked filters.

use super::{transform_up, RewriteRule};
use crate::expr::{BinaryOp, Expr, Slot};
use crate::plan::Op;
use crate::Catalog;

pub struct ProjectionSharedRead;

impl RewriteRule for ProjectionSharedRead {
    fn name(&self) -> &'static str {
        "projection_shared_read"
    }

    fn rewrite(&self, plan: Op, catalog: &dyn Catalog) -> Op {
        transform_up(plan, &|op| match op {
            Op::Project { input, items } => share_reads(*input, items, catalog),
            other => other,
        })
    }
}

/// The projection of `items` over `input`, with each property the
/// projection reads first and more than once read by a projection under
/// it into a fresh slot.
fn share_reads(input: Op, mut items: Vec<(Slot, Expr)>, catalog: &dyn Catalog) -> Op {
    let mut hoisted: Vec<(Slot, Expr)> = Vec::new();
    // Each round takes the read that now leads: after the previous one
    // became a slot read, the next read of the same item (or of the next
    // item) may lead, and it was evaluated after nothing fallible but the
    // reads already hoisted, which the lower projection makes in order.
    while let Some(target) = first_read(&items) {
        let count: usize = items.iter().map(|(_, e)| occurrences(e, &target)).sum();
        if count < 2 {
            break;
        }
        let Some(slot) = catalog.fresh_slot() else {
            break;
        };
        items = items
            .into_iter()
            .map(|(s, e)| (s, substitute(e, &target, slot)))
            .collect();
        hoisted.push((slot, target));
    }
    if hoisted.is_empty() {
        return Op::Project {
            input: Box::new(input),
            items,
        };
    }
    Op::Project {
        input: Box::new(Op::Project {
            input: Box::new(input),
            items: hoisted,
        }),
        items,
    }
}

/// The property read the projection evaluates before anything that can
/// fail: the leading read of its first item that can fail, if it has one.
fn first_read(items: &[(Slot, Expr)]) -> Option<Expr> {
    let (_, first) = items.iter().find(|(_, e)| !infallible(e))?;
    leading_read(first).cloned()
}

/// Whether evaluating `e` can never fail.
fn infallible(e: &Expr) -> bool {
    matches!(e, Expr::Slot(_) | Expr::Literal(_) | Expr::Param(_))
}

/// Whether `e` is `slot.key`.
fn slot_property(e: &Expr) -> bool {
    matches!(e, Expr::Property { expr, .. } if matches!(**expr, Expr::Slot(_)))
}

/// The `slot.key` read that evaluating `e` makes on every row before
/// anything else that can fail (operands go left to right over the whole
/// batch; `AND` / `OR` evaluate their right side only where the left does
/// not decide; a generic `CASE` tests its first condition on every row, a
/// simple one evaluates its operand first).
fn leading_read(e: &Expr) -> Option<&Expr> {
    if slot_property(e) {
        return Some(e);
    }
    nereid_stack::deeper(|| leading_read_within(e))
}

/// One level of [`leading_read`] (the recursion goes through it, which
/// guards the stack).
fn leading_read_within(e: &Expr) -> Option<&Expr> {
    match e {
        Expr::Binary {
            op: BinaryOp::And | BinaryOp::Or,
            lhs,
            ..
        } => leading_read(lhs),
        Expr::Binary { lhs, rhs, .. } => match leading_read(lhs) {
            Some(read) => Some(read),
            None if infallible(lhs) => leading_read(rhs),
            None => None,
        },
        Expr::Not(inner) | Expr::Negate(inner) => leading_read(inner),
        Expr::IsNull { expr, .. } => leading_read(expr),
        Expr::Case {
            operand: Some(operand),
            ..
        } => leading_read(operand),
        Expr::Case {
            operand: None,
            whens,
            ..
        } => whens
            .first()
            .and_then(|(condition, _)| leading_read(condition)),
        _ => None,
    }
}

/// How many times [`substitute`] would replace `target` in `e`.
fn occurrences(e: &Expr, target: &Expr) -> usize {
    if e == target {
        return 1;
    }
    let mut count = 0;
    nereid_stack::deeper(|| {
        for_each_operand(e, &mut |child| count += occurrences(child, target));
    });
    count
}

/// Calls `f` on each operand of `e` that is evaluated against the row as
/// it is (not under a binding of slots of the expression's own).
fn for_each_operand<'a>(e: &'a Expr, f: &mut impl FnMut(&'a Expr)) {
    match e {
        Expr::Property { expr, .. }
        | Expr::HasLabels { expr, .. }
        | Expr::HasAnyLabel(expr)
        | Expr::Not(expr)
        | Expr::Negate(expr)
        | Expr::IsNull { expr, .. } => f(expr),
        Expr::Binary { lhs, rhs, .. } => {
            f(lhs);
            f(rhs);
        }
        Expr::List(items) | Expr::Function { args: items, .. } => items.iter().for_each(f),
        Expr::Map(items) => items.iter().for_each(|(_, e)| f(e)),
        Expr::Case {
            operand,
            whens,
            otherwise,
        } => {
            operand.iter().for_each(|e| f(e));
            for (condition, value) in whens {
                f(condition);
                f(value);
            }
            otherwise.iter().for_each(|e| f(e));
        }
        Expr::Index { expr, index } => {
            f(expr);
            f(index);
        }
        _ => {}
    }
}

/// `e` with each occurrence of `target` that [`for_each_operand`] reaches
/// read from `slot` instead.
fn substitute(e: Expr, target: &Expr, slot: Slot) -> Expr {
    if &e == target {
        return Expr::Slot(slot);
    }
    nereid_stack::deeper(|| substitute_within(e, target, slot))
}

/// One level of [`substitute`] (the recursion goes through it, which
/// guards the stack).
fn substitute_within(e: Expr, target: &Expr, slot: Slot) -> Expr {
    let go = |inner: Box<Expr>| Box::new(substitute(*inner, target, slot));
    let all = |items: Vec<Expr>| {
        items
            .into_iter()
            .map(|e| substitute(e, target, slot))
            .collect::<Vec<_>>()
    };
    match e {
        Expr::Property { expr, key } => Expr::Property {
            expr: go(expr),
            key,
        },
        Expr::HasLabels { expr, labels } => Expr::HasLabels {
            expr: go(expr),
            labels,
        },
        Expr::HasAnyLabel(expr) => Expr::HasAnyLabel(go(expr)),
        Expr::Not(inner) => Expr::Not(go(inner)),
        Expr::Negate(inner) => Expr::Negate(go(inner)),
        Expr::IsNull { expr, negated } => Expr::IsNull {
            expr: go(expr),
            negated,
        },
        Expr::Binary { op, lhs, rhs } => Expr::Binary {
            op,
            lhs: go(lhs),
            rhs: go(rhs),
        },
        Expr::List(items) => Expr::List(all(items)),
        Expr::Function { func, args } => Expr::Function {
            func,
            args: all(args),
        },
        Expr::Map(items) => Expr::Map(
            items
                .into_iter()
                .map(|(k, e)| (k, substitute(e, target, slot)))
                .collect(),
        ),
        Expr::Case {
            operand,
            whens,
            otherwise,
        } => Expr::Case {
            operand: operand.map(go),
            whens: whens
                .into_iter()
                .map(|(c, v)| (substitute(c, target, slot), substitute(v, target, slot)))
                .collect(),
            otherwise: otherwise.map(go),
        },
        Expr::Index { expr, index } => Expr::Index {
            expr: go(expr),
            index: go(index),
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prop(slot: Slot, key: &str) -> Expr {
        Expr::Property {
            expr: Box::new(Expr::Slot(slot)),
            key: key.to_string(),
        }
    }

    fn bin(op: BinaryOp, lhs: Expr, rhs: Expr) -> Expr {
        Expr::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        }
    }

    fn param(name: &str) -> Expr {
        Expr::Param(name.to_string())
    }

    #[test]
    fn a_read_behind_a_parameter_leads_a_case() {
        let when = bin(
            BinaryOp::And,
            bin(BinaryOp::LessEqual, param("s"), prop(1, "d")),
            bin(BinaryOp::Less, prop(1, "d"), param("e")),
        );
        let case = Expr::Case {
            operand: None,
            whens: vec![(when, Expr::Literal(nereid_values::Value::from(1i64)))],
            otherwise: None,
        };
        assert_eq!(leading_read(&case), Some(&prop(1, "d")));
        assert_eq!(occurrences(&case, &prop(1, "d")), 2);
    }

    #[test]
    fn a_read_after_something_fallible_does_not_lead() {
        // `a.x + b.y`: `a.x` leads; `(1 / n) + b.y` has none.
        let sum = bin(BinaryOp::Add, prop(0, "x"), prop(1, "y"));
        assert_eq!(leading_read(&sum), Some(&prop(0, "x")));
        let divided = bin(
            BinaryOp::Add,
            bin(
                BinaryOp::Divide,
                Expr::Literal(nereid_values::Value::from(1i64)),
                Expr::Slot(2),
            ),
            prop(1, "y"),
        );
        assert_eq!(leading_read(&divided), None);
        // The right of `OR` is conditional.
        let or = bin(BinaryOp::Or, Expr::Slot(3), prop(1, "y"));
        assert_eq!(leading_read(&or), None);
    }

    #[test]
    fn only_the_first_fallible_item_is_asked() {
        let items = vec![
            (5, Expr::Slot(0)),
            (
                6,
                bin(
                    BinaryOp::Divide,
                    Expr::Literal(nereid_values::Value::from(1i64)),
                    Expr::Slot(2),
                ),
            ),
            (7, prop(1, "y")),
        ];
        assert_eq!(first_read(&items), None);
        let items = vec![(5, param("p")), (7, prop(1, "y"))];
        assert_eq!(first_read(&items), Some(prop(1, "y")));
    }

    #[test]
    fn comprehensions_are_left_alone() {
        let inner = Expr::ListComprehension {
            var: 1,
            list: Box::new(Expr::Slot(4)),
            predicate: None,
            projection: Some(Box::new(prop(1, "y"))),
        };
        assert_eq!(occurrences(&inner, &prop(1, "y")), 0);
        assert_eq!(substitute(inner.clone(), &prop(1, "y"), 9), inner);
    }
}
