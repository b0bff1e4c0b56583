//! `start_from_smaller_end`: a single hop `(a)-[r]-(b)` whose both ends are
//! new is matched by scanning one end and expanding to the other; the
//! lowering starts from the end written first. This rule starts from the
//! end with the smaller estimated frontier instead (labels plus property
//! equalities, module `cardinality`), and on a tie from the end whose
//! expansion fans out less (relationship statistics), keeping the written
//! order when nothing tells them apart.
//!
//! Shape matched (after `filter_pushdown` and `label_into_scan`), top-down:
//! `Filter*` (above) over `Expand a->b` (not into) over `Filter*` (on a) over
//! `NodeScan a` over the rest. Flipped: the filters above that read only `b`
//! move down onto a new `NodeScan b` (labels absorbed into the scan), the
//! expand runs `b->a` with the direction reversed, `a`'s labels become a
//! filter after it, and every other filter keeps its relative place above.
//! The rows are the same multiset; a MATCH defines no row order. In a
//! longer chain the rule decides the first hop, where the scan is.

use super::{peel_filters as peel, reads_only, wrap_filters as wrap, RewriteRule};
use crate::cardinality::{fan_out, node_frontier};
use crate::expr::Expr;
use crate::plan::{ExpandSpec, Op};
use crate::Catalog;

pub struct StartFromSmallerEnd;

impl RewriteRule for StartFromSmallerEnd {
    fn name(&self) -> &'static str {
        "start_from_smaller_end"
    }

    fn rewrite(&self, plan: Op, catalog: &dyn Catalog) -> Op {
        walk(plan, catalog)
    }
}

/// Visits top-down, so that a chain is seen first from its topmost filter
/// (with every filter that constrains `b`), and decided once.
fn walk(plan: Op, catalog: &dyn Catalog) -> Op {
    let mut plan = match Hop::take(plan) {
        Ok(mut hop) => {
            hop.base = nereid_stack::deeper(|| walk(hop.base, catalog));
            return hop.decide(catalog);
        }
        Err(plan) => plan,
    };
    if let Some(inner) = plan.nested_mut() {
        let taken = std::mem::replace(inner, Op::Argument);
        *inner = nereid_stack::deeper(|| walk(taken, catalog));
    }
    if let Some(input) = plan.input_mut() {
        let taken = std::mem::replace(input, Op::Argument);
        *input = nereid_stack::deeper(|| walk(taken, catalog));
    }
    plan
}

/// One matched hop, taken apart. Filter lists are bottom-up (the order to
/// wrap them back in).
struct Hop {
    above: Vec<Expr>,
    /// The hop as written, from `a` (`spec.from`) to `b` (`spec.to`).
    spec: ExpandSpec,
    on_a: Vec<Expr>,
    a_labels: Vec<String>,
    base: Op,
}

impl Hop {
    /// Takes `plan` apart when it has the shape; gives it back otherwise.
    fn take(plan: Op) -> Result<Hop, Op> {
        if !matches!(plan, Op::Filter { .. } | Op::Expand { .. }) {
            return Err(plan);
        }
        let (above, core) = peel(plan);
        let (input, spec) = match core {
            Op::Expand { input, spec } if !spec.into => (input, spec),
            core => return Err(wrap(core, above)),
        };
        let (on_a, below) = peel(*input);
        match below {
            Op::NodeScan { input, out, labels } if out == spec.from && spec.to != spec.from => {
                Ok(Hop {
                    above,
                    spec,
                    on_a,
                    a_labels: labels,
                    base: *input,
                })
            }
            below => {
                let input = Box::new(wrap(below, on_a));
                Err(wrap(Op::Expand { input, spec }, above))
            }
        }
    }

    fn should_flip(&self, catalog: &dyn Catalog) -> bool {
        let (a, b, types, dir) = (
            self.spec.from,
            self.spec.to,
            &self.spec.types,
            self.spec.dir,
        );
        let on_a: Vec<&Expr> = self.on_a.iter().filter(|e| reads_only(e, a)).collect();
        let on_b: Vec<&Expr> = self.above.iter().filter(|e| reads_only(e, b)).collect();
        let from_a = node_frontier(catalog, a, &self.a_labels, &on_a);
        let from_b = node_frontier(catalog, b, &[], &on_b);
        if from_b != from_a {
            return from_b < from_a;
        }
        match (
            fan_out(catalog, types, dir),
            fan_out(catalog, types, dir.reversed()),
        ) {
            (Some(out_of_a), Some(out_of_b)) => out_of_b < out_of_a,
            _ => false,
        }
    }

    fn decide(self, catalog: &dyn Catalog) -> Op {
        if self.should_flip(catalog) {
            self.flipped()
        } else {
            self.written()
        }
    }

    /// The plan as lowered.
    fn written(self) -> Op {
        let scan = Op::NodeScan {
            input: Box::new(self.base),
            out: self.spec.from,
            labels: self.a_labels,
        };
        let expand = Op::Expand {
            input: Box::new(wrap(scan, self.on_a)),
            spec: self.spec,
        };
        wrap(expand, self.above)
    }

    /// Starting from `b`.
    fn flipped(self) -> Op {
        let (a, b) = (self.spec.from, self.spec.to);
        let (scan, still_above) = super::scan_of_end(self.above, b, self.base, Vec::new());
        let expand = Op::Expand {
            input: Box::new(scan),
            spec: self.spec.reversed(),
        };
        let mut on_a = Vec::new();
        if !self.a_labels.is_empty() {
            on_a.push(Expr::HasLabels {
                expr: Box::new(Expr::Slot(a)),
                labels: self.a_labels,
            });
        }
        on_a.extend(self.on_a);
        wrap(wrap(expand, on_a), still_above)
    }
}
