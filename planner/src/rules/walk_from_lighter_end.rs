//! `walk_from_lighter_end`: a chain of hops whose two ends are each pinned
//! to a few nodes by seekable conditions (`(a:Person {id: x})<-[:HAS_CREATOR]-
//! (:Comment)-[:REPLY_OF]->(:Post)-[:HAS_CREATOR]->(b:Person {id: y})`) is
//! walked from whichever end has fewer relationships of its first hop,
//! decided per pair of end nodes at run time from their degrees.
//!
//! Why at run time: the written plan seeks `a`, walks everything `a`
//! reaches and keeps the paths ending at `b`; its cost is `a`'s degree,
//! which statistics cannot tell for a node named by a value bound per row
//! (LDBC SNB IC14 weighs each relationship of each shortest path by the
//! replies between its two persons; a person with 2,388 comments beside
//! one with 19 is walked from the heavy side half of the time). A degree
//! is one read of the adjacency (`Expr::Degree`, ADR 0189), so comparing
//! the two ends' degrees per pair costs less than one relationship row.
//!
//! Shape matched, top-down: `Filter*` (among them conditions a seek serves
//! on `b`, whose values read no slot the chain binds) over `Expand ->b`
//! over (`Filter*` over `Expand`)* down to the first hop `Expand a->`, over
//! `Filter*` (on `a`, a seek serving them) over `NodeScan a` over
//! `Argument` (the start of a plan, so both branches begin from its row);
//! at least two hops, none into, each starting where the one under it
//! ended. Rewritten as a union of two branches over the same pair of
//! seeks (`a`'s, then `b`'s, then the filters reading only the two ends and
//! slots bound outside the chain, such as a disjunction pairing them):
//!
//! * `Degree(a) * ka <= Degree(b) * kb`: the hops as written, the last one
//!   into `b`;
//! * otherwise: the hops reversed from `b`, the first one into `a`, each
//!   filter of the chain placed after the hop that binds what it reads.
//!
//! Only where the two walks' average costs (the first hop's average
//! fan-out times the weight below) are within [`MAX_SKEW`] of each other:
//! past that, statistics name the cheaper end, and reading the heavy end's
//! degree (a count over its relationships) would cost what walking it does.
//!
//! `ka` and `kb` weigh a first-hop row by the rows the hops after it are
//! expected to add (`1 + f2 + f2*f3 + ...` from the types' average
//! fan-outs in each walk's direction). Each pair passes exactly one branch
//! (degrees are integers, so exactly one comparison holds), and either
//! branch finds the pair's paths exactly (the same relationships walked
//! from the other end), so the union has the written plan's rows; a MATCH
//! defines no row order. The filters that read the relationships or the
//! chain's nodes together stay above the union.

use super::{peel_filters as peel, walk_children, wrap_filters as wrap, RewriteRule};
use crate::cardinality::{fan_out, known_list_length, node_frontier};
use crate::expr::{slots_of, BinaryOp, Expr, Slot};
use crate::index_query::{IndexDescriptor, IndexEntity, IndexHint};
use crate::plan::{ExpandSpec, Op};
use crate::Catalog;
use nereid_values::Value;

pub struct WalkFromLighterEnd;

impl RewriteRule for WalkFromLighterEnd {
    fn name(&self) -> &'static str {
        "walk_from_lighter_end"
    }

    fn rewrite(&self, plan: Op, catalog: &dyn Catalog) -> Op {
        let indexes = super::indexes_of(catalog, IndexEntity::Node);
        let hints = catalog.hints();
        walk(
            plan,
            &Seeks {
                catalog,
                indexes: &indexes,
                hints: &hints,
            },
        )
    }
}

/// Most nodes each end may be estimated to name: every pair of them is a
/// walk of its own, so the rule is for ends a value pins, not for scans.
const MAX_KNOWN: f64 = 4.0;

/// Largest ratio of the two walks' average costs for which the choice is
/// left to run time: past it, statistics alone name the cheaper end.
const MAX_SKEW: f64 = 4.0;

struct Seeks<'a> {
    catalog: &'a dyn Catalog,
    indexes: &'a [IndexDescriptor],
    hints: &'a [IndexHint],
}

/// Top-down: a chain is seen first from its topmost filter, with every
/// filter above its last hop.
fn walk(plan: Op, seeks: &Seeks) -> Op {
    if let Some(chain) = Chain::matching(&plan, seeks) {
        return chain.rewrite(plan);
    }
    walk_children(plan, &|child| walk(child, seeks))
}

/// A matched chain: what the rewrite needs, read off the plan by
/// reference (the plan itself is taken apart only once it is known to
/// match).
struct Chain {
    a: Slot,
    b: Slot,
    /// The weights of a first-hop row from `a` and from `b`.
    ka: f64,
    kb: f64,
}

impl Chain {
    fn matching(plan: &Op, seeks: &Seeks) -> Option<Chain> {
        let Op::Filter { .. } = plan else {
            return None;
        };
        let (above, mut core) = peel_ref(plan);
        let mut hops: Vec<&ExpandSpec> = Vec::new();
        let on_a = loop {
            let Op::Expand { input, spec } = core else {
                return None;
            };
            let plain = !spec.into
                && spec.from != spec.to
                && spec.far_end_in.is_none()
                && spec.far_end_adjacent.is_none();
            if !plain || hops.last().is_some_and(|upper| upper.from != spec.to) {
                return None;
            }
            hops.push(spec);
            let (filters, below) = peel_ref(input);
            match below {
                Op::NodeScan { input, out, labels } if *out == spec.from => {
                    if !matches!(**input, Op::Argument) {
                        return None;
                    }
                    break (filters, labels);
                }
                other => core = other,
            }
        };
        hops.reverse();
        if hops.len() < 2 {
            return None;
        }
        let a = hops[0].from;
        let b = hops[hops.len() - 1].to;
        let chain = chain_slots(&hops);
        let (on_a, a_labels) = on_a;
        let b_labels = labels_of(&above, b);
        let on_b: Vec<&Expr> = above
            .iter()
            .copied()
            .filter(|f| on_end(f, b, &chain) && !matches!(f, Expr::HasLabels { .. }))
            .collect();
        let on_a: Vec<&Expr> = on_a
            .iter()
            .copied()
            .filter(|f| !matches!(f, Expr::HasLabels { .. }))
            .collect();
        for (end, labels, conditions) in [(a, a_labels, &on_a), (b, &b_labels, &on_b)] {
            if !seeks.serve(conditions, end, labels)
                || pinned(seeks.catalog, end, hops[0].rel, labels, conditions) > MAX_KNOWN
            {
                return None;
            }
        }
        let forward: Vec<&ExpandSpec> = hops.clone();
        let backward: Vec<&ExpandSpec> = hops.iter().rev().copied().collect();
        let ka = weight(seeks.catalog, &forward, false);
        let kb = weight(seeks.catalog, &backward, true);
        // Where the ends' average first hops already tell the walks apart,
        // the written plan stands (the start is chosen by the rules that
        // order a pattern): reading the heavy end's degree would cost about
        // what walking it does.
        let first = hops[0];
        let last = hops[hops.len() - 1];
        let from_a = ka * fan_out(seeks.catalog, &first.types, first.dir).unwrap_or(1.0);
        let from_b = kb * fan_out(seeks.catalog, &last.types, last.dir.reversed()).unwrap_or(1.0);
        if from_a.max(from_b) > MAX_SKEW * from_a.min(from_b).max(f64::MIN_POSITIVE) {
            return None;
        }
        Some(Chain { a, b, ka, kb })
    }

    /// Takes the plan apart and builds the union.
    fn rewrite(self, plan: Op) -> Op {
        // Kept to give back should the shape differ from what `matching`
        // read (a bug in this file; plans are small, planning is once).
        let original = plan.clone();
        let (above, mut core) = peel(plan);
        let mut hops: Vec<(ExpandSpec, Vec<Expr>)> = Vec::new();
        let mut filters_above = above;
        let (on_a, a_labels) = loop {
            let Op::Expand { input, spec } = core else {
                debug_assert!(false, "walk_from_lighter_end: the shape changed");
                return original;
            };
            hops.push((spec, std::mem::take(&mut filters_above)));
            let (filters, below) = peel(*input);
            match below {
                Op::NodeScan { out, labels, .. } if out == hops[hops.len() - 1].0.from => {
                    break (filters, labels);
                }
                other => {
                    filters_above = filters;
                    core = other;
                }
            }
        };
        hops.reverse();
        // `hops[i].1`: the filters right above hop `i` (the last hop's are
        // the filters above the whole chain).
        let (a, b) = (self.a, self.b);
        let chain: Vec<Slot> = {
            let specs: Vec<&ExpandSpec> = hops.iter().map(|(s, _)| s).collect();
            chain_slots(&specs)
        };
        let top = std::mem::take(&mut hops.last_mut().expect("two hops").1);
        let b_labels = labels_of(&top.iter().collect::<Vec<_>>(), b);
        let mut on_b = Vec::new();
        let mut on_pair = Vec::new();
        let mut still_above = Vec::new();
        for f in top {
            match f {
                Expr::HasLabels { ref expr, .. } if **expr == Expr::Slot(b) => {}
                f if on_end(&f, b, &chain) => on_b.push(f),
                f if on_pair_only(&f, a, b, &chain) => on_pair.push(f),
                f => still_above.push(f),
            }
        }
        let seeks = |degree_test: Expr| {
            let scan_a = wrap(
                Op::NodeScan {
                    input: Box::new(Op::Argument),
                    out: a,
                    labels: a_labels.clone(),
                },
                on_a.clone(),
            );
            let scan_b = wrap(
                Op::NodeScan {
                    input: Box::new(scan_a),
                    out: b,
                    labels: b_labels.clone(),
                },
                on_b.clone(),
            );
            wrap(scan_b, [on_pair.clone(), vec![degree_test]].concat())
        };
        let first = &hops[0].0;
        let last = &hops[hops.len() - 1].0;
        let lighter_a = Expr::Binary {
            op: BinaryOp::LessEqual,
            lhs: Box::new(weighted(a, first.dir, &first.types, self.ka)),
            rhs: Box::new(weighted(b, last.dir.reversed(), &last.types, self.kb)),
        };
        let lighter_b = Expr::Binary {
            op: BinaryOp::Greater,
            lhs: Box::new(weighted(a, first.dir, &first.types, self.ka)),
            rhs: Box::new(weighted(b, last.dir.reversed(), &last.types, self.kb)),
        };
        // From `a`: as written, the last hop into `b`.
        let count = hops.len();
        let mut from_a = seeks(lighter_a);
        for (i, (spec, filters)) in hops.iter().enumerate() {
            let spec = ExpandSpec {
                into: i + 1 == count,
                ..spec.clone()
            };
            from_a = wrap(
                Op::Expand {
                    input: Box::new(from_a),
                    spec,
                },
                filters.clone(),
            );
        }
        // From `b`: reversed, the first hop into `a`; each filter of the
        // chain where what it reads is bound.
        let mut pending: Vec<Expr> = hops.iter().flat_map(|(_, f)| f.clone()).collect();
        let mut bound: Vec<Slot> = vec![a, b];
        let mut from_b = seeks(lighter_b);
        for (i, (spec, _)) in hops.into_iter().enumerate().rev() {
            let spec = ExpandSpec {
                into: i == 0,
                ..spec.reversed()
            };
            bound.extend(spec.bound_here());
            from_b = Op::Expand {
                input: Box::new(from_b),
                spec,
            };
            let (ready, later): (Vec<Expr>, Vec<Expr>) = pending
                .into_iter()
                .partition(|f| reads_within(f, &bound, &chain));
            from_b = wrap(from_b, ready);
            pending = later;
        }
        let from_b = wrap(from_b, pending);
        wrap(
            Op::Union {
                input: Box::new(from_a),
                other: Box::new(from_b),
            },
            still_above,
        )
    }
}

impl Seeks<'_> {
    fn serve(&self, conditions: &[&Expr], end: Slot, labels: &[String]) -> bool {
        super::seek_serves(self.indexes, self.hints, conditions, end, labels)
    }
}

/// Estimated nodes `conditions` pin `end` to: an `IN` list of known length
/// counts as that many equalities (with a value read from `other`, a slot
/// that is not `end`: one known per row, no parameter to probe).
fn pinned(
    catalog: &dyn Catalog,
    end: Slot,
    other: Slot,
    labels: &[String],
    conditions: &[&Expr],
) -> f64 {
    let mut best = node_frontier(catalog, end, labels, conditions);
    for c in conditions {
        if let Expr::Binary {
            op: BinaryOp::In,
            lhs,
            rhs,
        } = c
        {
            if let Some(length) = known_list_length(catalog, rhs) {
                let one = Expr::Binary {
                    op: BinaryOp::Equal,
                    lhs: lhs.clone(),
                    rhs: Box::new(Expr::Slot(other)),
                };
                best = best.min(length * node_frontier(catalog, end, labels, &[&one]));
            }
        }
    }
    best
}

/// `Degree(end) * k`.
fn weighted(end: Slot, dir: nereid_values::Direction, types: &[String], k: f64) -> Expr {
    Expr::Binary {
        op: BinaryOp::Multiply,
        lhs: Box::new(Expr::Degree {
            node: Box::new(Expr::Slot(end)),
            dir,
            types: types.to_vec(),
        }),
        rhs: Box::new(Expr::Literal(Value::Float(k))),
    }
}

/// `1 + f2 + f2*f3 + ...` over the hops after the first, in the order
/// walked (`reversed`: each hop seen from its other end); a hop without
/// statistics counts as fanning out to one.
fn weight(catalog: &dyn Catalog, hops: &[&ExpandSpec], reversed: bool) -> f64 {
    let mut total = 1.0;
    let mut rows = 1.0;
    for spec in &hops[1..] {
        let dir = if reversed {
            spec.dir.reversed()
        } else {
            spec.dir
        };
        rows *= fan_out(catalog, &spec.types, dir).unwrap_or(1.0);
        total += rows;
    }
    total
}

/// The slots the chain binds: its relationships and the nodes past `a`.
fn chain_slots(hops: &[&ExpandSpec]) -> Vec<Slot> {
    let mut slots = vec![hops[0].from];
    for spec in hops {
        slots.push(spec.rel);
        slots.push(spec.to);
    }
    slots
}

/// A filter on `end` alone among the chain's slots (it may read slots
/// bound outside the chain, whose values are then known per row).
fn on_end(f: &Expr, end: Slot, chain: &[Slot]) -> bool {
    let mut reads = Vec::new();
    slots_of(f, &mut reads);
    reads.contains(&end) && reads.iter().all(|s| *s == end || !chain.contains(s))
}

/// A filter reading both ends and, of the chain's slots, nothing else.
fn on_pair_only(f: &Expr, a: Slot, b: Slot, chain: &[Slot]) -> bool {
    let mut reads = Vec::new();
    slots_of(f, &mut reads);
    reads.contains(&a)
        && reads.contains(&b)
        && reads
            .iter()
            .all(|s| *s == a || *s == b || !chain.contains(s))
}

/// Whether every chain slot `f` reads is in `bound`.
fn reads_within(f: &Expr, bound: &[Slot], chain: &[Slot]) -> bool {
    let mut reads = Vec::new();
    slots_of(f, &mut reads);
    reads
        .iter()
        .all(|s| bound.contains(s) || !chain.contains(s))
}

/// The labels the filters test `slot` for.
fn labels_of(filters: &[&Expr], slot: Slot) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for f in filters {
        if let Expr::HasLabels { expr, labels } = f {
            if **expr == Expr::Slot(slot) {
                for l in labels {
                    if !out.contains(l) {
                        out.push(l.clone());
                    }
                }
            }
        }
    }
    out
}

/// [`peel`] by reference: the filters on top (bottom-up) and what is under
/// them.
fn peel_ref(mut plan: &Op) -> (Vec<&Expr>, &Op) {
    let mut filters = Vec::new();
    while let Op::Filter { input, predicate } = plan {
        filters.push(predicate);
        plan = input;
    }
    filters.reverse();
    (filters, plan)
}
