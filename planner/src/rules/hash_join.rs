//! `hash_join`: a MATCH part that does not depend on the rows before it
//! but through equalities is read once into a hash table instead of once
//! per row (docs/adr/0144-hash-join.md).
//!
//! Two shapes, both of a *segment*: `Filter* / (Expand (not into) /
//! Filter*)* / NodeScan` whose expands start from nodes the segment binds
//! itself:
//! - inner: the segment's scan reads over the plan `P` before it (a
//!   cartesian product: `MATCH (a:A) MATCH (b:B) WHERE a.x = b.y`) and
//!   some of its filters are equalities between an expression of the
//!   segment's slots and one of the other slots. The segment moves onto its
//!   own `Argument` and becomes the right side of a `HashJoin` over `P` on
//!   those equalities; its filters that read only its slots stay in it,
//!   the others go above the join.
//! - left outer: an `Optional` whose inner plan is a segment on the
//!   `Argument` that reads the outer row only in such equalities
//!   (`OPTIONAL MATCH (b:B) WHERE b.y = a.x`).
//!
//! Chosen by cost (row counts of module `row_estimate`): today's plan runs
//! the segment once per row of `P`, `rows(P) * work(segment)`, where the
//! equalities narrow each run as the seeks they become do (so an equality
//! a string or index seek serves per row stays such a seek); the join runs
//! it once and touches each row of both sides once more, `work(segment) +
//! BUILD * rows(build side) + PROBE * rows(probe side)`. The join replaces
//! the plan only when [`GAIN`] times cheaper. The side estimated smaller is
//! hashed; the left side (`P`) only for an inner join and when `P` orders
//! nothing (hashing it gives the rows in the segment's order). Nested plans
//! are left alone: the join's right side is built on the join's own
//! `Argument`, which is one row only at the top of the plan.

use super::RewriteRule;
use crate::expr::{slots_of, BinaryOp, Expr, Slot};
use crate::plan::{ExpandSpec, HashJoinSpec, Op};
use crate::row_estimate::{rows, work};
use crate::Catalog;

pub struct HashJoin;

impl RewriteRule for HashJoin {
    fn name(&self) -> &'static str {
        "hash_join"
    }

    fn rewrite(&self, plan: Op, catalog: &dyn Catalog) -> Op {
        walk(plan, catalog)
    }
}

/// Cost of putting one row into the hash table, in units of one row
/// emitted by an operator (measured on SNB, benches/RESULTS.md).
const BUILD: f64 = 2.0;

/// Cost of looking one row up in the hash table.
const PROBE: f64 = 1.0;

/// How much cheaper than the per-row plan the join must be estimated.
const GAIN: f64 = 4.0;

/// Top-down along the main input chain only (not into nested plans: see
/// the module's doc).
fn walk(plan: Op, catalog: &dyn Catalog) -> Op {
    let plan = match joined(plan, catalog) {
        Ok(joined) => joined,
        Err(plan) => plan,
    };
    let mut plan = plan;
    if let Some(input) = plan.input_mut() {
        let taken = std::mem::replace(input, Op::Argument);
        *input = nereid_stack::deeper(|| walk(taken, catalog));
    }
    plan
}

/// `plan` with a hash join where one pays, or `plan` itself.
fn joined(plan: Op, catalog: &dyn Catalog) -> Result<Op, Op> {
    match plan {
        Op::Optional {
            input,
            inner,
            nullable,
            origin: None,
        } => match Segment::take(*inner) {
            Ok((segment, Op::Argument)) if segment.residual.is_empty() => {
                let nullable_too: Vec<Slot> = nullable
                    .iter()
                    .copied()
                    .filter(|s| !segment.slots.contains(s))
                    .collect();
                segment.join(*input, catalog, true, nullable_too)
            }
            Ok((segment, leaf)) => Err(Op::Optional {
                input,
                inner: Box::new(segment.restore(leaf)),
                nullable,
                origin: None,
            }),
            Err(inner) => Err(Op::Optional {
                input,
                inner: Box::new(inner),
                nullable,
                origin: None,
            }),
        },
        Op::Filter { .. } | Op::Expand { .. } | Op::NodeScan { .. } => match Segment::take(plan) {
            Ok((segment, left)) if !matches!(left, Op::Argument) => {
                segment.join(left, catalog, false, Vec::new())
            }
            Ok((segment, leaf)) => Err(segment.restore(leaf)),
            Err(plan) => Err(plan),
        },
        other => Err(other),
    }
}

/// One step of a segment, top-down.
enum Step {
    Filter(Expr),
    Expand(ExpandSpec),
}

/// A segment taken apart, with its filters' conjuncts sorted.
struct Segment {
    /// Top-down, the filters as they were.
    steps: Vec<Step>,
    scan: (Slot, Vec<String>),
    /// Every slot the segment binds.
    slots: Vec<Slot>,
    /// (left key, right key) of the equalities across.
    keys: Vec<(Expr, Expr)>,
    /// Conjuncts reading the other slots that are not keys.
    residual: Vec<Expr>,
}

impl Segment {
    /// Takes a segment off the top of `plan`: the segment and what its scan
    /// reads over; `plan` back when it is not one.
    fn take(plan: Op) -> Result<(Segment, Op), Op> {
        if !is_segment(&plan) {
            return Err(plan);
        }
        let mut steps = Vec::new();
        let mut current = plan;
        let (scan, below) = loop {
            match current {
                Op::Filter { input, predicate } => {
                    steps.push(Step::Filter(predicate));
                    current = *input;
                }
                Op::Expand { input, spec } => {
                    steps.push(Step::Expand(spec));
                    current = *input;
                }
                Op::NodeScan { input, out, labels } => break ((out, labels), *input),
                _ => unreachable!("is_segment accepted the shape"),
            }
        };
        let mut slots = vec![scan.0];
        for step in &steps {
            if let Step::Expand(spec) = step {
                slots.extend([spec.rel, spec.to]);
            }
        }
        let mut keys = Vec::new();
        let mut residual = Vec::new();
        for step in &steps {
            if let Step::Filter(predicate) = step {
                for conjunct in conjuncts(predicate) {
                    match side(conjunct, &slots) {
                        Side::Segment => {}
                        Side::Across => match key_of(conjunct, &slots) {
                            Some(key) => keys.push(key),
                            None => residual.push(conjunct.clone()),
                        },
                    }
                }
            }
        }
        Ok((
            Segment {
                steps,
                scan,
                slots,
                keys,
                residual,
            },
            below,
        ))
    }

    /// The segment as it was, over `below`.
    fn restore(self, below: Op) -> Op {
        let mut plan = Op::NodeScan {
            input: Box::new(below),
            out: self.scan.0,
            labels: self.scan.1,
        };
        for step in self.steps.into_iter().rev() {
            plan = match step {
                Step::Filter(predicate) => Op::Filter {
                    input: Box::new(plan),
                    predicate,
                },
                Step::Expand(spec) => Op::Expand {
                    input: Box::new(plan),
                    spec,
                },
            };
        }
        plan
    }

    /// The segment over an `Argument`: with `across`, as written (each run
    /// sees the other side's slots in the argument row); without, only its
    /// own part (the conjuncts reading only its slots): the join's right
    /// side.
    fn over_argument(&self, across: bool) -> Op {
        let mut plan = Op::NodeScan {
            input: Box::new(Op::Argument),
            out: self.scan.0,
            labels: self.scan.1.clone(),
        };
        for step in self.steps.iter().rev() {
            plan = match step {
                Step::Filter(predicate) => {
                    let kept: Vec<&Expr> = conjuncts(predicate)
                        .into_iter()
                        .filter(|c| across || matches!(side(c, &self.slots), Side::Segment))
                        .collect();
                    match conjunction(kept) {
                        Some(predicate) => Op::Filter {
                            input: Box::new(plan),
                            predicate,
                        },
                        None => plan,
                    }
                }
                Step::Expand(spec) => Op::Expand {
                    input: Box::new(plan),
                    spec: spec.clone(),
                },
            };
        }
        plan
    }

    /// The join of `left` with the segment, when estimated to pay; else the
    /// plan as it was (an `Optional` again when `outer`).
    fn join(
        self,
        left: Op,
        catalog: &dyn Catalog,
        outer: bool,
        nulled: Vec<Slot>,
    ) -> Result<Op, Op> {
        let right = self.over_argument(false);
        let choice = (!self.keys.is_empty()
            && super::parallel_gather::read_only(&left)
            && !self.seek_unestimated(catalog))
        .then(|| {
            let per_row = work(&self.over_argument(true), catalog);
            Choice::estimate(&left, &right, per_row, &self.keys, catalog, outer)
        })
        .flatten();
        let Some(choice) = choice else {
            return Err(self.unjoined(left, outer, nulled));
        };
        let (left_keys, right_keys) = self.keys.into_iter().unzip();
        let mut right_slots = self.slots;
        right_slots.extend(nulled);
        let spec = HashJoinSpec {
            left_keys,
            right_keys,
            right_slots,
            outer,
            build_left: choice.build_left,
            estimated_rows: choice.rows.round().min(u64::MAX as f64) as u64,
        };
        let join = Op::HashJoin {
            input: Box::new(left),
            right: Box::new(right),
            spec: Box::new(spec),
        };
        Ok(super::wrap_filters(join, self.residual))
    }

    /// Whether a key is a property of the scanned node (a seek per row:
    /// through the string index, or an index) whose distinct values the
    /// catalog does not count: how narrow each run would be is then
    /// unknown, and the seek per row stays.
    fn seek_unestimated(&self, catalog: &dyn Catalog) -> bool {
        self.keys.iter().any(|(_, right)| match right {
            Expr::Property { expr, key } if **expr == Expr::Slot(self.scan.0) => {
                catalog.distinct_node_values(key).is_none()
            }
            _ => false,
        })
    }

    /// The plan the segment was taken from.
    fn unjoined(self, left: Op, outer: bool, nulled: Vec<Slot>) -> Op {
        if !outer {
            return self.restore(left);
        }
        let mut nullable = self.slots.clone();
        nullable.extend(nulled);
        Op::Optional {
            input: Box::new(left),
            inner: Box::new(self.restore(Op::Argument)),
            nullable,
            origin: None,
        }
    }
}

/// Whether `plan` starts with a segment (see the module's doc).
fn is_segment(plan: &Op) -> bool {
    let mut expands = Vec::new();
    let mut current = plan;
    loop {
        match current {
            Op::Filter { input, .. } => current = input,
            Op::Expand { input, spec } if !spec.into => {
                expands.push(spec);
                current = input;
            }
            Op::NodeScan { out, .. } => {
                // Bottom-up, each expand starts from a node bound below it.
                let mut bound = vec![*out];
                return expands.iter().rev().all(|spec| {
                    let ok = bound.contains(&spec.from) && !bound.contains(&spec.to);
                    bound.extend([spec.rel, spec.to]);
                    ok
                });
            }
            _ => return false,
        }
    }
}

/// Whether a conjunct reads only the segment's slots.
enum Side {
    Segment,
    Across,
}

fn side(conjunct: &Expr, slots: &[Slot]) -> Side {
    let mut reads = Vec::new();
    slots_of(conjunct, &mut reads);
    if reads.iter().all(|s| slots.contains(s)) {
        Side::Segment
    } else {
        Side::Across
    }
}

/// `(left, right)` when `conjunct` is `left = right` (either way round)
/// with `right` reading only segment slots and `left` only others, each
/// reading at least one.
fn key_of(conjunct: &Expr, slots: &[Slot]) -> Option<(Expr, Expr)> {
    let (lhs, rhs) = conjunct.as_equality()?;
    let reads = |e: &Expr| {
        let mut reads = Vec::new();
        slots_of(e, &mut reads);
        reads
    };
    let only_segment = |e: &Expr| {
        let r = reads(e);
        !r.is_empty() && r.iter().all(|s| slots.contains(s))
    };
    let only_other = |e: &Expr| {
        let r = reads(e);
        !r.is_empty() && r.iter().all(|s| !slots.contains(s))
    };
    if only_other(lhs) && only_segment(rhs) {
        Some((lhs.clone(), rhs.clone()))
    } else if only_segment(lhs) && only_other(rhs) {
        Some((rhs.clone(), lhs.clone()))
    } else {
        None
    }
}

/// The conjuncts of `predicate` (`a AND b AND c`: three).
fn conjuncts(predicate: &Expr) -> Vec<&Expr> {
    match predicate {
        Expr::Binary {
            op: BinaryOp::And,
            lhs,
            rhs,
        } => {
            let mut all = conjuncts(lhs);
            all.extend(conjuncts(rhs));
            all
        }
        other => vec![other],
    }
}

fn conjunction(parts: Vec<&Expr>) -> Option<Expr> {
    parts.into_iter().cloned().reduce(|lhs, rhs| Expr::Binary {
        op: BinaryOp::And,
        lhs: Box::new(lhs),
        rhs: Box::new(rhs),
    })
}

/// Whether rows of `op` come in an order a query may rely on.
fn orders_rows(op: &Op) -> bool {
    let mut current = Some(op);
    while let Some(op) = current {
        if matches!(op, Op::Sort { .. } | Op::Top { .. }) {
            return true;
        }
        current = op.input();
    }
    false
}

/// The estimated join: which side is hashed, and the rows it emits.
struct Choice {
    build_left: bool,
    rows: f64,
}

impl Choice {
    /// `None` when the per-row plan is estimated cheaper (see the module's
    /// doc for the terms).
    fn estimate(
        left: &Op,
        right: &Op,
        per_row_work: f64,
        keys: &[(Expr, Expr)],
        catalog: &dyn Catalog,
        outer: bool,
    ) -> Option<Choice> {
        let left_rows = rows(left, catalog);
        let right_rows = rows(right, catalog);
        let right_work = work(right, catalog);
        let per_row = left_rows * per_row_work;
        let build_left = !outer && left_rows < right_rows && !orders_rows(left);
        let (built, probed) = if build_left {
            (left_rows, right_rows)
        } else {
            (right_rows, left_rows)
        };
        let hashed = right_work + BUILD * built + PROBE * probed;
        if hashed * GAIN >= per_row {
            return None;
        }
        let distinct = keys
            .iter()
            .filter_map(|(l, r)| {
                Some(distinct_values(l, catalog)?.max(distinct_values(r, catalog)?))
            })
            .fold(1.0f64, f64::max);
        let distinct = if distinct > 1.0 {
            distinct
        } else {
            left_rows.max(right_rows)
        };
        let mut rows = left_rows * right_rows / distinct.max(1.0);
        if outer {
            rows = rows.max(left_rows);
        }
        Some(Choice { build_left, rows })
    }
}

/// Distinct values of `n.key` (HLL, from the catalog) when `e` is one.
fn distinct_values(e: &Expr, catalog: &dyn Catalog) -> Option<f64> {
    match e {
        Expr::Property { key, .. } => catalog.distinct_node_values(key).map(|d| d as f64),
        _ => None,
    }
}
