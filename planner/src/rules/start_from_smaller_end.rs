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

use super::{peel_filters as peel, wrap_filters as wrap, RewriteRule};
use crate::cardinality::{fan_out, node_frontier};
use crate::expr::{slots_of, Expr, Slot};
use crate::plan::{ExpandSpec, Op};
use crate::Catalog;
use nereid_values::Direction;

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
    a: Slot,
    rel: Slot,
    b: Slot,
    dir: Direction,
    types: Vec<String>,
    on_a: Vec<Expr>,
    a_labels: Vec<String>,
    base: Op,
}

fn reads_only(e: &Expr, slot: Slot) -> bool {
    let mut reads = Vec::new();
    slots_of(e, &mut reads);
    !reads.is_empty() && reads.iter().all(|s| *s == slot)
}

impl Hop {
    /// Takes `plan` apart when it has the shape; gives it back otherwise.
    fn take(plan: Op) -> Result<Hop, Op> {
        if !matches!(plan, Op::Filter { .. } | Op::Expand { .. }) {
            return Err(plan);
        }
        let (above, core) = peel(plan);
        let Op::Expand {
            input,
            spec:
                ExpandSpec {
                    from,
                    rel,
                    to,
                    dir,
                    types,
                    into: false,
                },
        } = core
        else {
            return Err(wrap(core, above));
        };
        let (on_a, below) = peel(*input);
        match below {
            Op::NodeScan { input, out, labels } if out == from && to != from => Ok(Hop {
                above,
                a: from,
                rel,
                b: to,
                dir,
                types,
                on_a,
                a_labels: labels,
                base: *input,
            }),
            below => {
                let expand = Op::Expand {
                    input: Box::new(wrap(below, on_a)),
                    spec: ExpandSpec {
                        from,
                        rel,
                        to,
                        dir,
                        types,
                        into: false,
                    },
                };
                Err(wrap(expand, above))
            }
        }
    }

    fn should_flip(&self, catalog: &dyn Catalog) -> bool {
        let on_a: Vec<&Expr> = self.on_a.iter().filter(|e| reads_only(e, self.a)).collect();
        let on_b: Vec<&Expr> = self
            .above
            .iter()
            .filter(|e| reads_only(e, self.b))
            .collect();
        let from_a = node_frontier(catalog, self.a, &self.a_labels, &on_a);
        let from_b = node_frontier(catalog, self.b, &[], &on_b);
        if from_b != from_a {
            return from_b < from_a;
        }
        match (
            fan_out(catalog, &self.types, self.dir),
            fan_out(catalog, &self.types, self.dir.reversed()),
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
            out: self.a,
            labels: self.a_labels,
        };
        let expand = Op::Expand {
            input: Box::new(wrap(scan, self.on_a)),
            spec: ExpandSpec {
                from: self.a,
                rel: self.rel,
                to: self.b,
                dir: self.dir,
                types: self.types,
                into: false,
            },
        };
        wrap(expand, self.above)
    }

    /// Starting from `b`.
    fn flipped(self) -> Op {
        let b = self.b;
        let mut b_labels: Vec<String> = Vec::new();
        let mut on_b = Vec::new();
        let mut still_above = Vec::new();
        for filter in self.above {
            match filter {
                Expr::HasLabels { expr, labels } if *expr == Expr::Slot(b) => {
                    for l in labels {
                        if !b_labels.contains(&l) {
                            b_labels.push(l);
                        }
                    }
                }
                f if reads_only(&f, b) => on_b.push(f),
                f => still_above.push(f),
            }
        }
        let scan = Op::NodeScan {
            input: Box::new(self.base),
            out: b,
            labels: b_labels,
        };
        let expand = Op::Expand {
            input: Box::new(wrap(scan, on_b)),
            spec: ExpandSpec {
                from: b,
                rel: self.rel,
                to: self.a,
                dir: self.dir.reversed(),
                types: self.types,
                into: false,
            },
        };
        let mut on_a = Vec::new();
        if !self.a_labels.is_empty() {
            on_a.push(Expr::HasLabels {
                expr: Box::new(Expr::Slot(self.a)),
                labels: self.a_labels,
            });
        }
        on_a.extend(self.on_a);
        wrap(wrap(expand, on_a), still_above)
    }
}
