//! `reuse_invariant`: a filter or projection right above an operator that
//! turns each input row into a run of rows (an expand, a scan, an unwind)
//! evaluates the parts of its expressions that read only slots bound
//! before that operator once per run instead of once per row
//! (`Expr::Reused`, evaluated by `dfe`'s `eval/reused.rs`).
//!
//! Why: such a part has the same value on every row of the run. LDBC SNB
//! IC14's weight comprehensions test `b.id IN [startNode(r).id,
//! endNode(r).id]` on every message the pattern reaches, where `r` is the
//! comprehension's argument: two relationship reads and two property reads
//! per message, for a list that is the same for all of them; a projection
//! of `friend.firstName` above the expand from `friend` reads it once per
//! relationship.
//!
//! Exact: only repeatable parts are wrapped (literals, parameters, slots,
//! property reads, arithmetic, deterministic functions, label tests of
//! those: module `expr::repeatable`), which give the same value, or the
//! same error, for the same inputs and do nothing else; the executor
//! reuses a value only between consecutive rows whose inputs are
//! identical. Parts without a property read, label test or function call
//! (a slot, a literal) are left bare: nothing to save. The rule changes no
//! operator and runs after `choose_operators`, so no rule has to recognise
//! a wrapped expression.

use super::{transform_up, RewriteRule};
use crate::expr::{repeatable, slots_of, Expr, Slot};
use crate::plan::Op;
use crate::Catalog;

pub struct ReuseInvariant;

impl RewriteRule for ReuseInvariant {
    fn name(&self) -> &'static str {
        "reuse_invariant"
    }

    fn rewrite(&self, plan: Op, _catalog: &dyn Catalog) -> Op {
        transform_up(plan, &|op| match op {
            Op::Filter { input, predicate } => match varying(&input) {
                Some(varying) => Op::Filter {
                    predicate: reuse(predicate, &varying),
                    input,
                },
                None => Op::Filter { input, predicate },
            },
            Op::Project { input, items } => match varying(&input) {
                Some(varying) => Op::Project {
                    items: items
                        .into_iter()
                        .map(|(slot, e)| (slot, reuse(e, &varying)))
                        .collect(),
                    input,
                },
                None => Op::Project { input, items },
            },
            other => other,
        })
    }
}

/// The slots whose values may change between consecutive rows of one run:
/// those bound by the first operator under `input`'s filters and
/// projections that makes runs (it emits each of its input rows' matches
/// together), and by the projections on the way. `None` when the chain
/// reaches no such operator.
fn varying(input: &Op) -> Option<Vec<Slot>> {
    let mut out = Vec::new();
    let mut current = input;
    loop {
        match current {
            Op::Filter { input, .. } => current = input,
            Op::Project { input, items } => {
                out.extend(items.iter().map(|(slot, _)| *slot));
                current = input;
            }
            op if op.matches_entities() || matches!(op, Op::Unwind { .. }) => {
                out.extend(op.bound_here());
                return Some(out);
            }
            _ => return None,
        }
    }
}

/// `e` with its largest parts worth reusing wrapped.
fn reuse(e: Expr, varying: &[Slot]) -> Expr {
    nereid_stack::deeper(|| {
        if let Some(reads) = worth_reusing(&e, varying) {
            return Expr::Reused {
                expr: Box::new(e),
                reads,
            };
        }
        let inner = |e: Box<Expr>| Box::new(reuse(*e, varying));
        match e {
            Expr::Binary { op, lhs, rhs } => Expr::Binary {
                op,
                lhs: inner(lhs),
                rhs: inner(rhs),
            },
            Expr::Not(e) => Expr::Not(inner(e)),
            Expr::Negate(e) => Expr::Negate(inner(e)),
            Expr::IsNull { expr, negated } => Expr::IsNull {
                expr: inner(expr),
                negated,
            },
            Expr::Property { expr, key } => Expr::Property {
                expr: inner(expr),
                key,
            },
            Expr::HasLabels { expr, labels } => Expr::HasLabels {
                expr: inner(expr),
                labels,
            },
            Expr::List(items) => Expr::List(items.into_iter().map(|i| reuse(i, varying)).collect()),
            Expr::Function { func, args } => Expr::Function {
                func,
                args: args.into_iter().map(|a| reuse(a, varying)).collect(),
            },
            other => other,
        }
    })
}

/// The slots `e` reads when it is worth evaluating once per run: it is
/// repeatable (or a label test of a repeatable value), does some work (a
/// property read, a label test, a function call) and reads slots, none of
/// them `varying`.
fn worth_reusing(e: &Expr, varying: &[Slot]) -> Option<Vec<Slot>> {
    let shape = match e {
        Expr::HasLabels { expr, .. } => repeatable(expr),
        other => repeatable(other),
    };
    if !shape || !works(e) {
        return None;
    }
    let mut reads = Vec::new();
    slots_of(e, &mut reads);
    reads.sort_unstable();
    reads.dedup();
    (!reads.is_empty() && !reads.iter().any(|s| varying.contains(s))).then_some(reads)
}

/// Whether evaluating `e` reads the store or calls a function.
fn works(e: &Expr) -> bool {
    nereid_stack::deeper(|| match e {
        Expr::Property { .. } | Expr::HasLabels { .. } | Expr::Function { .. } => true,
        Expr::List(items) => items.iter().any(works),
        Expr::Negate(e) => works(e),
        Expr::Binary { lhs, rhs, .. } => works(lhs) || works(rhs),
        _ => false,
    })
}
