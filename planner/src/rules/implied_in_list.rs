//! `implied_in_list`: a disjunction whose every branch fixes the same
//! property of the same variable, such as LDBC IC14's
//! `(a.id = startNode(r).id AND b.id = endNode(r).id) OR (a.id = endNode(r).id
//! AND b.id = startNode(r).id)`, implies that the property is one of the
//! branches' values: `a.id IN [startNode(r).id, endNode(r).id]`. That implied
//! predicate is added beside the original (which stays, so the rows kept are
//! exactly the same), and `filter_pushdown` then moves it down to the scan of
//! the variable, where `node_index_seek` turns it into a seek: without it the
//! variable is scanned by label and the disjunction tested on every node.
//!
//! The implied predicates are placed above the original: `filter_pushdown`
//! moves the filters of a stack down one after the other, bottom first, and
//! each lands below those already pushed to the same operator, so the
//! implied predicate ends up tested first where both land on the same
//! operator. It is the cheaper test (one property and the branches' values
//! against the original's every branch) and a necessary condition, so the
//! original runs only on the rows it keeps: in IC14's comprehensions the
//! far end's `b.id IN [...]` drops all but a few of the rows reached before
//! the disjunction reads four properties on each.
//!
//! Exact because the implied predicate is true whenever the original is
//! (some branch holds, so the property equals that branch's value) and a row
//! the original drops is dropped anyway. The values must give the same answer
//! when evaluated a second time, lower in the plan: only deterministic,
//! side-effect-free expressions qualify (no `rand()`, no nested plans).

use super::{transform_up, RewriteRule};
use crate::expr::{repeatable, BinaryOp, Expr, Slot};
use crate::plan::Op;
use crate::Catalog;

pub struct ImpliedInList;

impl RewriteRule for ImpliedInList {
    fn name(&self) -> &'static str {
        "implied_in_list"
    }

    fn rewrite(&self, plan: Op, _catalog: &dyn Catalog) -> Op {
        transform_up(plan, &|op| match op {
            Op::Filter { input, predicate } => {
                let mut conjuncts = Vec::new();
                flatten(&predicate, BinaryOp::And, &mut conjuncts);
                let implied: Vec<Expr> = conjuncts
                    .iter()
                    .filter_map(|c| match c {
                        Expr::Binary {
                            op: BinaryOp::Or, ..
                        } => Some(implied_by(c)),
                        _ => None,
                    })
                    .flatten()
                    .collect();
                let original = Op::Filter { input, predicate };
                implied
                    .into_iter()
                    .fold(original, |input, predicate| Op::Filter {
                        input: Box::new(input),
                        predicate,
                    })
            }
            other => other,
        })
    }
}

/// The `slot.key IN [...]` predicates a disjunction implies: one per
/// variable property that every branch equates with a repeatable value.
fn implied_by(disjunction: &Expr) -> Vec<Expr> {
    let mut branches = Vec::new();
    flatten(disjunction, BinaryOp::Or, &mut branches);
    let per_branch: Vec<Vec<(Slot, &str, &Expr)>> = branches
        .iter()
        .map(|branch| {
            let mut conjuncts = Vec::new();
            flatten(branch, BinaryOp::And, &mut conjuncts);
            conjuncts.into_iter().filter_map(fixed_property).collect()
        })
        .collect();
    let Some((first, rest)) = per_branch.split_first() else {
        return Vec::new();
    };
    let mut implied = Vec::new();
    for &(slot, key, _) in first {
        let already = implied
            .iter()
            .any(|(s, k, _): &(Slot, &str, _)| *s == slot && *k == key);
        if already {
            continue;
        }
        // The first value each branch gives this property (a branch fixing
        // it twice implies either value; the first is enough).
        let values: Option<Vec<Expr>> = std::iter::once(first)
            .chain(rest)
            .map(|branch| {
                branch
                    .iter()
                    .find(|(s, k, _)| *s == slot && *k == key)
                    .map(|(_, _, v)| (*v).clone())
            })
            .collect();
        if let Some(values) = values {
            implied.push((slot, key, values));
        }
    }
    implied
        .into_iter()
        .map(|(slot, key, values)| Expr::Binary {
            op: BinaryOp::In,
            lhs: Box::new(Expr::Property {
                expr: Box::new(Expr::Slot(slot)),
                key: key.to_string(),
            }),
            rhs: Box::new(Expr::List(values)),
        })
        .collect()
}

fn key_of(prop: &Expr) -> &str {
    match prop {
        Expr::Property { key, .. } => key.as_str(),
        _ => unreachable!("only called on a side() accepted as a property"),
    }
}

/// `slot.key = value` (either way round) with a repeatable `value` that
/// does not read `slot`.
fn fixed_property(conjunct: &Expr) -> Option<(Slot, &str, &Expr)> {
    let (lhs, rhs) = conjunct.as_equality()?;
    let side = |prop: &'_ Expr, value: &'_ Expr| -> Option<Slot> {
        match prop {
            Expr::Property { expr, .. } => match **expr {
                Expr::Slot(slot) if repeatable(value) && !reads_slot(value, slot) => Some(slot),
                _ => None,
            },
            _ => None,
        }
    };
    if let Some(slot) = side(lhs, rhs) {
        return Some((slot, key_of(lhs), rhs));
    }
    side(rhs, lhs).map(|slot| (slot, key_of(rhs), lhs))
}

fn reads_slot(e: &Expr, slot: Slot) -> bool {
    let mut reads = Vec::new();
    crate::expr::slots_of(e, &mut reads);
    reads.contains(&slot)
}

/// The operands of a left- or right-nested chain of `op`.
fn flatten<'e>(e: &'e Expr, op: BinaryOp, out: &mut Vec<&'e Expr>) {
    nereid_stack::deeper(|| match e {
        Expr::Binary { op: o, lhs, rhs } if *o == op => {
            flatten(lhs, op, out);
            flatten(rhs, op, out);
        }
        other => out.push(other),
    })
}
