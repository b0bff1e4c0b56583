//! `join_order`: the order in which one MATCH's tree of hops is walked.
//!
//! A pattern without cycles is lowered as a scan of one node and a chain of
//! `Expand`s (not into) in the order written; filters sit above the operator
//! that binds what they read. Every connected order of the same hops
//! matches the same rows (a MATCH defines no row order), so this rule
//! enumerates them and keeps the cheapest by estimate: a dynamic program
//! over the connected sets of the pattern's nodes (left-deep: each step adds
//! one hop to a bound node, the DPccp enumeration restricted to expands),
//! exact up to [`DP_LIMIT`] nodes and greedy past it
//! (docs/adr/0107-join-enumeration.md).
//!
//! Cost: the sum of the estimated rows every operator of the order emits.
//! A start costs its frontier (module `cardinality`: labels, property
//! equalities, ids, indexes); a hop multiplies the rows by the relationship
//! type's average fan-out in the direction walked and by the share of the
//! new node's frontier that its own filters keep. A hop without statistics
//! (no type, several types, a type the catalog does not count) leaves the
//! pattern as written. The written order is replaced only when the best is
//! estimated at least [`GAIN`] times cheaper, so plans do not churn on
//! estimates that barely differ.
//!
//! Shape matched, top-down: `Filter*` / `Expand` (not into) / ... /
//! `Filter*` / `NodeScan` / the rest, with at least two expands whose nodes
//! form a tree. The filters are placed again, each directly above the first
//! operator of the new order after which everything it reads is bound (in
//! their old relative order); the new start absorbs the label tests on it.

use super::{peel_filters, reads_only, wrap_filters, RewriteRule};
use crate::cardinality::{fan_out, node_frontier};
use crate::expr::{slots_of, Expr, Slot};
use crate::plan::{ExpandSpec, Op};
use crate::Catalog;

pub struct JoinOrder;

impl RewriteRule for JoinOrder {
    fn name(&self) -> &'static str {
        "join_order"
    }

    fn rewrite(&self, plan: Op, catalog: &dyn Catalog) -> Op {
        walk(plan, catalog)
    }
}

/// Patterns of up to this many nodes are ordered exactly (2^12 connected
/// sets at most, each extended by its few hops); longer ones greedily.
const DP_LIMIT: usize = 12;

/// How much cheaper than the written order the best must be estimated.
const GAIN: f64 = 2.0;

fn walk(plan: Op, catalog: &dyn Catalog) -> Op {
    if expands_in_chain(&plan) >= 2 {
        let (region, base) = Region::take(plan);
        let base = nereid_stack::deeper(|| walk(base, catalog));
        return region.decide(catalog, base);
    }
    super::walk_children(plan, &|child| walk(child, catalog))
}

/// The number of `Expand`s (not into) between the top of `plan` and a
/// `NodeScan` with only filters besides; 0 when the shape is different.
fn expands_in_chain(plan: &Op) -> usize {
    let mut hops = 0;
    let mut current = plan;
    loop {
        match current {
            Op::Filter { input, .. } => current = input,
            Op::Expand { input, spec } if !spec.into => {
                hops += 1;
                current = input;
            }
            Op::NodeScan { .. } => return hops,
            _ => return 0,
        }
    }
}

/// A matched pattern taken apart: its start, hops (bottom-up, as walked)
/// and filters (bottom-up, each with the number of hops below it).
struct Region {
    start: Slot,
    start_labels: Vec<String>,
    hops: Vec<ExpandSpec>,
    filters: Vec<(usize, Expr)>,
}

impl Region {
    /// Takes the shape [`expands_in_chain`] accepted apart: the region and
    /// what lies under its scan.
    fn take(plan: Op) -> (Region, Op) {
        let mut hops = Vec::new();
        // Top-down: (hops above, filter).
        let mut filters: Vec<(usize, Expr)> = Vec::new();
        let mut current = plan;
        loop {
            let (peeled, rest) = peel_filters(current);
            filters.extend(peeled.into_iter().rev().map(|f| (hops.len(), f)));
            match rest {
                Op::Expand { input, spec } => {
                    hops.push(spec);
                    current = *input;
                }
                Op::NodeScan { input, out, labels } => {
                    hops.reverse();
                    filters.reverse();
                    let total = hops.len();
                    let region = Region {
                        start: out,
                        start_labels: labels,
                        hops,
                        filters: filters
                            .into_iter()
                            .map(|(above, f)| (total - above, f))
                            .collect(),
                    };
                    return (region, *input);
                }
                _ => unreachable!("expands_in_chain accepted the shape"),
            }
        }
    }

    /// The pattern's nodes, the start first, then each hop's new end.
    fn nodes(&self) -> Vec<Slot> {
        std::iter::once(self.start)
            .chain(self.hops.iter().map(|h| h.to))
            .collect()
    }

    /// The region over `base`, walked in the cheapest order, or as it was
    /// when no estimate is possible or the gain is small.
    fn decide(self, catalog: &dyn Catalog, base: Op) -> Op {
        let nodes = self.nodes();
        let is_tree = self.hops.iter().enumerate().all(|(i, h)| {
            nodes[..=i].contains(&h.from) && h.to != h.from && !nodes[..=i].contains(&h.to)
        });
        let estimates = is_tree
            .then(|| Estimates::new(&self, &nodes, catalog))
            .flatten();
        let chosen = estimates.and_then(|est| {
            let written: Vec<usize> = (0..self.hops.len()).collect();
            let written_cost = est.cost(0, &written);
            let (start, order, cost) = if nodes.len() <= DP_LIMIT {
                est.best_exact()
            } else {
                est.best_greedy()
            };
            (cost * GAIN < written_cost).then_some((start, order))
        });
        match chosen {
            Some((start, order)) => self.reordered(&nodes, start, &order).build(base),
            None => self.written(base),
        }
    }

    /// The operators as they were taken apart.
    fn written(self, base: Op) -> Op {
        let mut filters = self.filters.into_iter().peekable();
        let mut above = |plan: Op, hops_below: usize| {
            let mut here = Vec::new();
            while let Some((_, f)) = filters.next_if(|(below, _)| *below == hops_below) {
                here.push(f);
            }
            wrap_filters(plan, here)
        };
        let scan = Op::NodeScan {
            input: Box::new(base),
            out: self.start,
            labels: self.start_labels,
        };
        let mut plan = above(scan, 0);
        for (i, spec) in self.hops.into_iter().enumerate() {
            let expand = Op::Expand {
                input: Box::new(plan),
                spec,
            };
            plan = above(expand, i + 1);
        }
        plan
    }

    /// Starts at node `start` (an index into the nodes) and walks the hops
    /// in `order`, each oriented away from the bound node.
    fn reordered(self, nodes: &[Slot], start: usize, order: &[usize]) -> Ordered {
        let mut filters = Vec::new();
        if !self.start_labels.is_empty() {
            filters.push(Expr::HasLabels {
                expr: Box::new(Expr::Slot(self.start)),
                labels: self.start_labels,
            });
        }
        filters.extend(self.filters.into_iter().map(|(_, f)| f));
        let mut bound = vec![nodes[start]];
        let mut hops = Vec::with_capacity(order.len());
        for &h in order {
            let spec = self.hops[h].clone();
            let spec = if bound.contains(&spec.from) {
                spec
            } else {
                spec.reversed()
            };
            bound.push(spec.to);
            hops.push(spec);
        }
        Ordered {
            start: nodes[start],
            hops,
            filters,
        }
    }
}

/// A region in the order it is to be walked.
struct Ordered {
    start: Slot,
    hops: Vec<ExpandSpec>,
    filters: Vec<Expr>,
}

impl Ordered {
    /// The operators over `base`, each filter above the first operator
    /// after which what it reads from the pattern is bound.
    fn build(self, base: Op) -> Op {
        let pattern: Vec<Slot> = std::iter::once(self.start)
            .chain(self.hops.iter().flat_map(|h| [h.rel, h.to]))
            .collect();
        let mut bound = vec![self.start];
        let mut pending: Vec<Expr> = self.filters;
        let mut labels: Vec<String> = Vec::new();
        let (absorbed, rest): (Vec<Expr>, Vec<Expr>) = pending
            .into_iter()
            .partition(|f| labels_of(f, self.start).is_some());
        for f in absorbed {
            for l in labels_of(&f, self.start).unwrap_or_default() {
                if !labels.contains(&l) {
                    labels.push(l);
                }
            }
        }
        pending = rest;
        let scan = Op::NodeScan {
            input: Box::new(base),
            out: self.start,
            labels,
        };
        let mut plan = place(scan, &mut pending, &pattern, &bound);
        for spec in self.hops {
            bound.push(spec.rel);
            bound.push(spec.to);
            let expand = Op::Expand {
                input: Box::new(plan),
                spec,
            };
            plan = place(expand, &mut pending, &pattern, &bound);
        }
        wrap_filters(plan, pending)
    }
}

/// `plan` under the filters of `pending` whose pattern slots are all
/// `bound` (taken out of `pending`, relative order kept).
fn place(plan: Op, pending: &mut Vec<Expr>, pattern: &[Slot], bound: &[Slot]) -> Op {
    let (ready, waiting): (Vec<Expr>, Vec<Expr>) =
        std::mem::take(pending).into_iter().partition(|f| {
            let mut reads = Vec::new();
            slots_of(f, &mut reads);
            reads
                .iter()
                .all(|s| !pattern.contains(s) || bound.contains(s))
        });
    *pending = waiting;
    wrap_filters(plan, ready)
}

/// The labels `filter` tests on `slot` when it is only such a test.
fn labels_of(filter: &Expr, slot: Slot) -> Option<Vec<String>> {
    match filter {
        Expr::HasLabels { expr, labels } if **expr == Expr::Slot(slot) => Some(labels.clone()),
        _ => None,
    }
}

/// The cheapest order found for one connected node set: (cost, rows,
/// start, hops in order).
type Partial = (f64, f64, usize, Vec<usize>);

/// What the enumeration needs per node and per hop.
struct Estimates {
    /// Per node: (estimated frontier with its own filters, the share of it
    /// those filters keep of the nodes with its labels).
    frontier: Vec<f64>,
    keep: Vec<f64>,
    /// Per hop: (index of `from`, index of `to`, fan-out from -> to,
    /// fan-out to -> from).
    hops: Vec<(usize, usize, f64, f64)>,
}

impl Estimates {
    fn new(region: &Region, nodes: &[Slot], catalog: &dyn Catalog) -> Option<Estimates> {
        let mut frontier = Vec::with_capacity(nodes.len());
        let mut keep = Vec::with_capacity(nodes.len());
        for &node in nodes {
            let labels: Vec<String> = if node == region.start {
                region.start_labels.clone()
            } else {
                Vec::new()
            };
            let own: Vec<&Expr> = region
                .filters
                .iter()
                .map(|(_, f)| f)
                .filter(|f| reads_only(f, node))
                .collect();
            let label_tests: Vec<&Expr> = own
                .iter()
                .copied()
                .filter(|f| labels_of(f, node).is_some())
                .collect();
            let all = node_frontier(catalog, node, &labels, &own);
            let labelled = node_frontier(catalog, node, &labels, &label_tests);
            frontier.push(all);
            keep.push((all / labelled.max(1.0)).min(1.0));
        }
        let index = |slot: Slot| nodes.iter().position(|n| *n == slot);
        let mut hops = Vec::with_capacity(region.hops.len());
        for h in &region.hops {
            let forward = fan_out(catalog, &h.types, h.dir)?;
            let backward = fan_out(catalog, &h.types, h.dir.reversed())?;
            hops.push((index(h.from)?, index(h.to)?, forward, backward));
        }
        Some(Estimates {
            frontier,
            keep,
            hops,
        })
    }

    /// Rows after hop `h` walked from the bound set to node `to`.
    fn step(&self, rows: f64, h: usize, towards_to: bool) -> f64 {
        let (from, to, forward, backward) = self.hops[h];
        if towards_to {
            rows * forward * self.keep[to]
        } else {
            rows * backward * self.keep[from]
        }
    }

    /// The cost of starting at node `start` and walking `order`.
    fn cost(&self, start: usize, order: &[usize]) -> f64 {
        let mut bound = vec![start];
        let mut rows = self.frontier[start];
        let mut cost = rows;
        for &h in order {
            let towards_to = bound.contains(&self.hops[h].0);
            rows = self.step(rows, h, towards_to);
            cost += rows;
            bound.push(if towards_to {
                self.hops[h].1
            } else {
                self.hops[h].0
            });
        }
        cost
    }

    /// The cheapest left-deep order over the connected node sets (bit
    /// masks): (start, hops in order, cost).
    fn best_exact(&self) -> (usize, Vec<usize>, f64) {
        let n = self.frontier.len();
        let mut best: Vec<Option<Partial>> = vec![None; 1 << n];
        for (v, &rows) in self.frontier.iter().enumerate() {
            best[1 << v] = Some((rows, rows, v, Vec::new()));
        }
        // A set's extensions have more bits, so increasing masks visit
        // every set after all its subsets.
        for mask in 1..(1usize << n) {
            let Some((cost, rows, start, order)) = best[mask].clone() else {
                continue;
            };
            for (h, &(from, to, _, _)) in self.hops.iter().enumerate() {
                let (has_from, has_to) = ((mask >> from) & 1 == 1, (mask >> to) & 1 == 1);
                if has_from == has_to {
                    continue;
                }
                let next = mask | 1 << from | 1 << to;
                let rows = self.step(rows, h, has_from);
                let cost = cost + rows;
                if best[next].as_ref().is_none_or(|b| cost < b.0) {
                    let mut order = order.clone();
                    order.push(h);
                    best[next] = Some((cost, rows, start, order));
                }
            }
        }
        let (cost, _, start, order) = best[(1 << n) - 1].clone().expect("a tree is connected");
        (start, order, cost)
    }

    /// From the smallest frontier, the hop giving the fewest rows next.
    fn best_greedy(&self) -> (usize, Vec<usize>, f64) {
        let start = (0..self.frontier.len())
            .min_by(|a, b| self.frontier[*a].total_cmp(&self.frontier[*b]))
            .expect("a pattern has nodes");
        let mut bound = vec![start];
        let mut rows = self.frontier[start];
        let mut order = Vec::with_capacity(self.hops.len());
        while order.len() < self.hops.len() {
            let (h, towards_to, next) = self
                .hops
                .iter()
                .enumerate()
                .filter(|(h, _)| !order.contains(h))
                .filter_map(|(h, &(from, to, _, _))| {
                    match (bound.contains(&from), bound.contains(&to)) {
                        (true, false) => Some((h, true, self.step(rows, h, true))),
                        (false, true) => Some((h, false, self.step(rows, h, false))),
                        _ => None,
                    }
                })
                .min_by(|a, b| a.2.total_cmp(&b.2))
                .expect("a tree is connected");
            let (from, to, _, _) = self.hops[h];
            bound.push(if towards_to { to } else { from });
            rows = next;
            order.push(h);
        }
        let cost = self.cost(start, &order);
        (start, order, cost)
    }
}
