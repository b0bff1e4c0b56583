//! Hop-limited single-source shortest paths with a per-hop beam (Neptune's
//! `topksssp`): from the source, each hop relaxes the edges of the nodes
//! the previous hop carried forward; of the nodes whose best distance that
//! hop improves, only the best `limit` (by the new distance, ties to the
//! smaller vertex) are kept and carried on. With every limit unbounded it
//! is Bellman-Ford cut at `hops` rounds, the exact `hops`-hop-limited
//! distances; the limits trade exactness for a bounded frontier, as a beam
//! search does.
//!
//! `cost` picks the order: `Min` keeps the smallest accumulated weights
//! (shortest paths), `Max` the largest. The source is never re-entered; the
//! answer is every node kept at some hop with the best distance found, best
//! first.

use crate::csr::{Direction, Graph};
use crate::error::AlgorithmError;
use crate::stop::Stop;
use std::cmp::Ordering;
use std::collections::HashMap;

/// Which accumulated weights count as best.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cost {
    Min,
    Max,
}

impl Cost {
    /// `a` before `b` when `a` is the better distance.
    fn order(self, a: f64, b: f64) -> Ordering {
        match self {
            Cost::Min => a.total_cmp(&b),
            Cost::Max => b.total_cmp(&a),
        }
    }
}

/// The search's shape.
#[derive(Clone, Debug)]
pub struct TopKHops {
    /// Per hop, the most nodes carried forward (`None`: all); as many hops
    /// as entries.
    pub limits: Vec<Option<usize>>,
    pub direction: Direction,
    pub cost: Cost,
}

/// The nodes reached from `source` and their best distances, best first
/// (ties by vertex). Unweighted graphs count each edge as 1. Only vertices
/// `admit` passes are entered.
pub fn top_k_sssp(
    graph: &Graph,
    source: u32,
    shape: &TopKHops,
    admit: &dyn Fn(u32) -> bool,
    stop: Stop,
) -> Result<Vec<(u32, f64)>, AlgorithmError> {
    let cost = shape.cost;
    let mut best: HashMap<u32, f64> = HashMap::new();
    let mut frontier: Vec<(u32, f64)> = vec![(source, 0.0)];
    let mut candidates: HashMap<u32, f64> = HashMap::new();
    for &limit in &shape.limits {
        stop.check()?;
        candidates.clear();
        for &(u, du) in &frontier {
            let mut relax = |v: u32, w: f64| {
                if v == source || !admit(v) {
                    return;
                }
                let d = du + w;
                let improves = |old: f64| cost.order(d, old) == Ordering::Less;
                if best.get(&v).is_none_or(|&old| improves(old))
                    && candidates.get(&v).is_none_or(|&old| improves(old))
                {
                    candidates.insert(v, d);
                }
            };
            if graph.has_weights() {
                graph
                    .weighted(u, shape.direction)
                    .for_each(|(v, w)| relax(v, w));
            } else {
                graph
                    .neighbours(u, shape.direction)
                    .for_each(|v| relax(v, 1.0));
            }
        }
        let mut kept: Vec<(u32, f64)> = candidates.drain().collect();
        let order = |a: &(u32, f64), b: &(u32, f64)| cost.order(a.1, b.1).then(a.0.cmp(&b.0));
        if let Some(limit) = limit.filter(|&l| l < kept.len()) {
            kept.select_nth_unstable_by(limit, order);
            kept.truncate(limit);
        }
        kept.sort_unstable_by(order);
        for &(v, d) in &kept {
            best.insert(v, d);
        }
        if kept.is_empty() {
            break;
        }
        frontier = kept;
    }
    let mut out: Vec<(u32, f64)> = best.into_iter().collect();
    out.sort_unstable_by(|a, b| cost.order(a.1, b.1).then(a.0.cmp(&b.0)));
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{bellman_ford, random_graph};

    fn shape(limits: &[Option<usize>], cost: Cost) -> TopKHops {
        TopKHops {
            limits: limits.to_vec(),
            direction: Direction::Out,
            cost,
        }
    }

    #[test]
    fn unbounded_hops_equal_bellman_ford() {
        let g = random_graph(60, 300, 17);
        let exact = bellman_ford(&g, 0, Direction::Out, Stop::NEVER).unwrap();
        let all = shape(&[None; 60], Cost::Min);
        let found = top_k_sssp(&g, 0, &all, &|_| true, Stop::NEVER).unwrap();
        let reached = exact
            .distance
            .iter()
            .enumerate()
            .filter(|&(v, d)| v != 0 && d.is_finite())
            .count();
        assert_eq!(found.len(), reached);
        for (v, d) in found {
            assert!((exact.distance[v as usize] - d).abs() < 1e-9, "vertex {v}");
        }
    }

    #[test]
    fn each_hop_keeps_the_best_limit_nodes() {
        // 0 -> 1 (1), 0 -> 2 (5), 0 -> 3 (2), 1 -> 4 (1), 2 -> 5 (1), 3 -> 4 (7), 1 -> 2 (1).
        let edges = [(0, 1), (0, 2), (0, 3), (1, 4), (2, 5), (3, 4), (1, 2)];
        let g = Graph::from_edges(6, &edges, Some(&[1.0, 5.0, 2.0, 1.0, 1.0, 7.0, 1.0]));
        let run = |limits: &[Option<usize>], cost| {
            top_k_sssp(&g, 0, &shape(limits, cost), &|_| true, Stop::NEVER).unwrap()
        };
        // Hop 1 keeps 1 (1) and 3 (2); hop 2 reaches 4 (2) and 2 (2) from 1, 4 (9) from 3.
        assert_eq!(
            run(&[Some(2), Some(5)], Cost::Min),
            vec![(1, 1.0), (2, 2.0), (3, 2.0), (4, 2.0)]
        );
        // One node a hop: 1, then the better of 2 and 4 (both 2: the smaller, 2), then 5.
        assert_eq!(
            run(&[Some(1), Some(1), Some(1)], Cost::Min),
            vec![(1, 1.0), (2, 2.0), (5, 3.0)]
        );
        // The heaviest: hop 1 keeps 2 (5); hop 2 reaches 5 (6).
        assert_eq!(
            run(&[Some(1), Some(1)], Cost::Max),
            vec![(5, 6.0), (2, 5.0)]
        );
        // A vertex filter stops the search at 1.
        let found = top_k_sssp(
            &g,
            0,
            &shape(&[None, None], Cost::Min),
            &|v| v != 1,
            Stop::NEVER,
        )
        .unwrap();
        assert_eq!(found, vec![(3, 2.0), (2, 5.0), (5, 6.0), (4, 9.0)]);
    }
}
