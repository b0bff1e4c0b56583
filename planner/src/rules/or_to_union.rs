//! `or_to_union`: a pattern's first hop `(a)-[..]-(b)` (a one-hop or a
//! variable-length expand) filtered by `p(a) OR q(b)`, a predicate on
//! each end, is lowered as a scan of every `a` walked to every `b`, the
//! disjunction tested on each path: the whole relationship neighbourhood
//! of `a`'s label is walked for the few paths either side names (IC12's
//! `tag.name = $x OR baseTagClass.name = $x` walked 81,460 paths from all
//! 16,080 tags for 2). Neo4j plans an index-seekable disjunction as a
//! union of its two seeks; so does this rule, each branch starting from
//! the end its predicate names:
//!
//! * `p(a)`: the scan of `a` filtered by `p` (a seek, once the index rules
//!   have run), walked to `b` as written;
//! * `q(b) AND p(a) IS NOT TRUE`: the scan of `b` filtered by `q`, walked
//!   back to `a` ([`ExpandSpec::reversed`], [`VarExpandSpec::reversed`]:
//!   the same paths, relationship lists in the written order).
//!
//! Every row of the original passes exactly one branch (the second takes
//! the rows where `p` is false or null and `q` true), so the union
//! (UNION ALL, no duplicate removal) has the original's rows, duplicates
//! and nulls included; a MATCH defines no row order. Each other filter
//! is kept in both branches.
//!
//! Shape matched, top-down: `Filter*` (one of them the disjunction) over
//! the hop (not into, its ends distinct, its relationship properties
//! reading neither end) over `Filter*` (on `a`) over `NodeScan a` over
//! `Argument` (the start of a plan: both branches begin from its row).
//! Cost: a walk from a share of the start nodes meets about that share
//! of the paths, from either end; the union is taken when the two
//! branches' shares of their ends (estimated frontiers, module
//! `cardinality`) add up to less than [`MAX_SHARE`].

use super::{peel_filters as peel, reads_only, wrap_filters as wrap, RewriteRule};
use crate::cardinality::node_frontier;
use crate::expr::{BinaryOp, Expr, Slot};
use crate::plan::{ExpandSpec, Op, VarExpandSpec};
use crate::Catalog;
use nereid_values::Value;

pub struct OrToUnion;

impl RewriteRule for OrToUnion {
    fn name(&self) -> &'static str {
        "or_to_union"
    }

    fn rewrite(&self, plan: Op, catalog: &dyn Catalog) -> Op {
        walk(plan, catalog)
    }
}

/// The largest sum of the two branches' shares of their start nodes for
/// which the union is taken: each branch runs a pipeline of its own and
/// the second tests the first's predicate again, so the union must save
/// at least half of the walk.
const MAX_SHARE: f64 = 0.5;

/// Visits top-down: a hop is seen first from its topmost filter, with
/// every filter above it.
fn walk(plan: Op, catalog: &dyn Catalog) -> Op {
    match Start::take(plan) {
        Ok(start) => start.decide(catalog),
        Err(plan) => super::walk_children(plan, &|child| walk(child, catalog)),
    }
}

/// The hop, one relationship or a variable-length walk.
#[derive(Clone)]
enum Hop {
    One(ExpandSpec),
    Var(VarExpandSpec),
}

impl Hop {
    fn ends(&self) -> (Slot, Slot) {
        match self {
            Hop::One(s) => (s.from, s.to),
            Hop::Var(s) => (s.from, s.to),
        }
    }

    fn over(self, input: Op) -> Op {
        let input = Box::new(input);
        match self {
            Hop::One(spec) => Op::Expand { input, spec },
            Hop::Var(spec) => Op::VarExpand { input, spec },
        }
    }

    fn reversed(self) -> Hop {
        match self {
            Hop::One(s) => Hop::One(s.reversed()),
            Hop::Var(s) => Hop::Var(s.reversed()),
        }
    }
}

/// One matched start, taken apart. Filter lists are bottom-up.
struct Start {
    above: Vec<Expr>,
    hop: Hop,
    on_a: Vec<Expr>,
    a_labels: Vec<String>,
}

impl Start {
    /// Takes `plan` apart when it has the shape; gives it back otherwise.
    fn take(plan: Op) -> Result<Start, Op> {
        if !matches!(plan, Op::Filter { .. }) {
            return Err(plan);
        }
        let (above, core) = peel(plan);
        let (input, hop) = match core {
            Op::Expand { input, spec } if !spec.into && spec.from != spec.to => {
                (input, Hop::One(spec))
            }
            Op::VarExpand { input, spec }
                if !spec.into
                    && spec.from != spec.to
                    && spec.properties.iter().all(|(_, e)| {
                        let mut reads = Vec::new();
                        crate::expr::slots_of(e, &mut reads);
                        !reads.contains(&spec.from) && !reads.contains(&spec.to)
                    }) =>
            {
                (input, Hop::Var(spec))
            }
            core => return Err(wrap(core, above)),
        };
        let (on_a, below) = peel(*input);
        let a = hop.ends().0;
        match below {
            Op::NodeScan {
                input: base,
                out,
                labels,
            } if out == a && matches!(*base, Op::Argument) => Ok(Start {
                above,
                hop,
                on_a,
                a_labels: labels,
            }),
            below => {
                let input = wrap(below, on_a);
                Err(wrap(hop.over(input), above))
            }
        }
    }

    /// The written plan.
    fn written(self) -> Op {
        let a = self.hop.ends().0;
        let scan = Op::NodeScan {
            input: Box::new(Op::Argument),
            out: a,
            labels: self.a_labels,
        };
        wrap(self.hop.over(wrap(scan, self.on_a)), self.above)
    }

    /// The position in `above` of a disjunction of a predicate on `a` and
    /// one on `b`, with the two (`a`'s first).
    fn disjunction(&self) -> Option<(usize, Expr, Expr)> {
        let (a, b) = self.hop.ends();
        self.above.iter().enumerate().find_map(|(i, f)| match f {
            Expr::Binary {
                op: BinaryOp::Or,
                lhs,
                rhs,
            } => {
                if reads_only(lhs, a) && reads_only(rhs, b) {
                    Some((i, (**lhs).clone(), (**rhs).clone()))
                } else if reads_only(lhs, b) && reads_only(rhs, a) {
                    Some((i, (**rhs).clone(), (**lhs).clone()))
                } else {
                    None
                }
            }
            _ => None,
        })
    }

    fn decide(self, catalog: &dyn Catalog) -> Op {
        let Some((at, on_a_side, on_b_side)) = self.disjunction() else {
            return self.written();
        };
        let (a, b) = self.hop.ends();
        let on_a: Vec<&Expr> = self.on_a.iter().collect();
        let all_a = node_frontier(catalog, a, &self.a_labels, &on_a);
        let sought_a = node_frontier(
            catalog,
            a,
            &self.a_labels,
            &[on_a.as_slice(), &[&on_a_side]].concat(),
        );
        let on_b: Vec<&Expr> = self.above.iter().filter(|e| reads_only(e, b)).collect();
        let all_b = node_frontier(catalog, b, &[], &on_b);
        let sought_b = node_frontier(catalog, b, &[], &[on_b.as_slice(), &[&on_b_side]].concat());
        let share = |part: f64, all: f64| if all > 0.0 { part / all } else { 1.0 };
        if share(sought_a, all_a) + share(sought_b, all_b) < MAX_SHARE {
            self.union(at, on_a_side, on_b_side)
        } else {
            self.written()
        }
    }

    /// The two branches, `above[at]` split into `p` (on `a`) and `q` (on
    /// `b`).
    fn union(mut self, at: usize, p: Expr, q: Expr) -> Op {
        let (a, b) = self.hop.ends();
        self.above.remove(at);
        // From `a`: p(a), walked as written.
        let scan_a = Op::NodeScan {
            input: Box::new(Op::Argument),
            out: a,
            labels: self.a_labels.clone(),
        };
        let mut on_a = self.on_a.clone();
        on_a.push(p.clone());
        let from_a = wrap(
            self.hop.clone().over(wrap(scan_a, on_a)),
            self.above.clone(),
        );
        // From `b`: q(b), walked back; then `a`'s own filters and p(a) not
        // true; the filters on `b` alone move under the walk.
        let (scan_b, still_above) = super::scan_of_end(self.above, b, Op::Argument, vec![q]);
        let walked_back = self.hop.reversed().over(scan_b);
        let mut after = Vec::new();
        if !self.a_labels.is_empty() {
            after.push(Expr::HasLabels {
                expr: Box::new(Expr::Slot(a)),
                labels: self.a_labels,
            });
        }
        after.extend(self.on_a);
        after.push(not_true(p));
        let from_b = wrap(wrap(walked_back, after), still_above);
        Op::Union {
            input: Box::new(from_a),
            other: Box::new(from_b),
        }
    }
}

/// `p IS NOT TRUE`: true where `p` is false or null.
fn not_true(p: Expr) -> Expr {
    Expr::Case {
        operand: None,
        whens: vec![(p, Expr::Literal(Value::Bool(false)))],
        otherwise: Some(Box::new(Expr::Literal(Value::Bool(true)))),
    }
}
