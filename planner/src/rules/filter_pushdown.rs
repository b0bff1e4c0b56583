//! `filter_pushdown`: splits conjunctions and moves each predicate down to
//! just above the operator that binds the last slot it reads, so rows are
//! dropped as early as possible (e.g. a WHERE on the start node of a long
//! pattern is checked right after the scan, before expanding).

use super::{transform_up, RewriteRule};
use crate::expr::{slots_of, BinaryOp, Expr, Slot};
use crate::plan::Op;
use crate::Catalog;

pub struct FilterPushdown;

impl RewriteRule for FilterPushdown {
    fn name(&self) -> &'static str {
        "filter_pushdown"
    }

    fn rewrite(&self, plan: Op, _catalog: &dyn Catalog) -> Op {
        transform_up(plan, &|op| match op {
            Op::Filter { input, predicate } => {
                let mut conjuncts = Vec::new();
                split(predicate, &mut conjuncts);
                let mut plan = *input;
                for c in conjuncts {
                    plan = push(plan, c);
                }
                plan
            }
            other => other,
        })
    }
}

fn split(e: Expr, out: &mut Vec<Expr>) {
    match e {
        Expr::Binary {
            op: BinaryOp::And,
            lhs,
            rhs,
        } => {
            nereid_stack::deeper(|| split(*lhs, out));
            nereid_stack::deeper(|| split(*rhs, out));
        }
        other => out.push(other),
    }
}

/// Places `pred` as deep as possible in `plan`, crossing only operators that
/// stream rows one-to-one-or-more without looking at them (scans, expands,
/// unwinds, projections, filters) and that do not bind a slot it reads.
fn push(plan: Op, pred: Expr) -> Op {
    let mut reads: Vec<Slot> = Vec::new();
    slots_of(&pred, &mut reads);
    if reads.is_empty() || !plan.is_row_preserving_stream() {
        return wrap(plan, pred);
    }
    let binds = plan.bound_here();
    if reads.iter().any(|s| binds.contains(s)) {
        return wrap(plan, pred);
    }
    let mut plan = plan;
    match plan.input_mut() {
        Some(input) => {
            let taken = std::mem::replace(input, Op::Argument);
            *input = nereid_stack::deeper(|| push(taken, pred));
            plan
        }
        None => wrap(plan, pred),
    }
}

fn wrap(plan: Op, predicate: Expr) -> Op {
    Op::Filter {
        input: Box::new(plan),
        predicate,
    }
}
