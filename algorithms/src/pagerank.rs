//! PageRank by power iteration, pulling each vertex's rank from its
//! in-neighbours (no atomics). Dangling vertices (no edge out) spread their
//! rank evenly over all vertices, as LDBC Graphalytics specifies:
//! `PR'(v) = (1 - d) / n + d * sum(PR(u) / deg(u) for u -> v) + d * D / n`,
//! `D` the dangling vertices' rank, starting from `1 / n`.
//!
//! Personalised PageRank replaces the uniform `1 / n` of the random jump
//! (and of the dangling rank's spread) by a distribution over source
//! vertices: `PR'(v) = ((1 - d) + d * D) * p(v) + d * sum(...)`, with
//! `p` summing to 1. With `p(v) = 1 / n` it is the formula above.

use crate::csr::{Direction, Graph};
use crate::error::AlgorithmError;
use crate::stop::Stop;
use rayon::prelude::*;

/// How PageRank runs.
#[derive(Copy, Clone, Debug)]
pub struct PageRankOptions {
    /// Edges a random surfer follows (`Both`: every edge either way).
    pub direction: Direction,
    pub damping: f64,
    pub iterations: u32,
    /// Stop early once the ranks move less than this in total (L1);
    /// 0 runs every iteration.
    pub tolerance: f64,
}

/// Every vertex's rank.
pub fn pagerank(
    graph: &Graph,
    options: &PageRankOptions,
    stop: Stop,
) -> Result<Vec<f64>, AlgorithmError> {
    power_iteration(graph, options, None, stop)
}

/// Every vertex's rank when the surfer jumps only to the vertices of
/// `sources`, each with its weight's share of the total (weights not
/// negative, their sum positive; a vertex may be named twice, its weights
/// add up).
pub fn personalized_pagerank(
    graph: &Graph,
    options: &PageRankOptions,
    sources: &[(u32, f64)],
    stop: Stop,
) -> Result<Vec<f64>, AlgorithmError> {
    let total: f64 = sources.iter().map(|&(_, w)| w).sum();
    let mut jump = vec![0.0; graph.vertex_count()];
    for &(v, w) in sources {
        jump[v as usize] += w / total;
    }
    power_iteration(graph, options, Some(&jump), stop)
}

/// The power iteration, jumping by `jump` (uniformly when `None`).
fn power_iteration(
    graph: &Graph,
    options: &PageRankOptions,
    jump: Option<&[f64]>,
    stop: Stop,
) -> Result<Vec<f64>, AlgorithmError> {
    let n = graph.vertex_count();
    if n == 0 {
        return Ok(Vec::new());
    }
    let dir = options.direction;
    let d = options.damping;
    let nf = n as f64;
    let degree: Vec<f64> = (0..n as u32)
        .into_par_iter()
        .map(|v| graph.degree(v, dir) as f64)
        .collect();
    let mut rank = vec![1.0 / nf; n];
    let mut contribution = vec![0.0; n];
    for _ in 0..options.iterations {
        stop.check()?;
        contribution
            .par_iter_mut()
            .zip(&rank)
            .zip(&degree)
            .for_each(|((c, &r), &deg)| *c = if deg > 0.0 { r / deg } else { 0.0 });
        let dangling: f64 = rank
            .par_iter()
            .zip(&degree)
            .filter(|(_, &deg)| deg == 0.0)
            .map(|(&r, _)| r)
            .sum();
        // What the jump and the dangling vertices give each vertex, per
        // unit of its jump probability.
        let spread = (1.0 - d) + d * dangling;
        let uniform = spread / nf;
        let back = dir.reverse();
        let next: Vec<f64> = (0..n as u32)
            .into_par_iter()
            .map(|v| {
                let pulled: f64 = graph
                    .slices(v, back)
                    .iter()
                    .map(|(from, _)| from.iter().map(|&u| contribution[u as usize]).sum::<f64>())
                    .sum();
                let base = jump.map_or(uniform, |p| spread * p[v as usize]);
                base + d * pulled
            })
            .collect();
        let change: f64 = next.par_iter().zip(&rank).map(|(a, b)| (a - b).abs()).sum();
        rank = next;
        if change < options.tolerance {
            break;
        }
    }
    Ok(rank)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Personalised PageRank the plain way: every edge pushes its share,
    /// one vertex after another.
    fn model(graph: &Graph, d: f64, jump: &[f64], iterations: u32) -> Vec<f64> {
        let n = graph.vertex_count();
        let mut rank = vec![1.0 / n as f64; n];
        for _ in 0..iterations {
            let mut next = vec![0.0; n];
            let mut dangling = 0.0;
            for u in 0..n as u32 {
                let out: Vec<u32> = graph.neighbours(u, Direction::Out).collect();
                if out.is_empty() {
                    dangling += rank[u as usize];
                }
                for v in out.iter().copied() {
                    next[v as usize] += d * rank[u as usize] / out.len() as f64;
                }
            }
            for v in 0..n {
                next[v] += ((1.0 - d) + d * dangling) * jump[v];
            }
            rank = next;
        }
        rank
    }

    fn options() -> PageRankOptions {
        PageRankOptions {
            direction: Direction::Out,
            damping: 0.85,
            iterations: 30,
            tolerance: 0.0,
        }
    }

    fn assert_close(a: &[f64], b: &[f64]) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() < 1e-12, "{x} vs {y}");
        }
    }

    #[test]
    fn personalised_ranks_agree_with_the_model_on_a_random_graph() {
        let n = 300u32;
        let g = crate::random_graph(n, 1500, 7);
        // Vertex 5 named twice: its weights add up (3 of 4.5 in all).
        let sources = [(5, 1.0), (17, 1.5), (5, 2.0)];
        let mut jump = vec![0.0; n as usize];
        jump[5] = 3.0 / 4.5;
        jump[17] = 1.5 / 4.5;
        let ours = personalized_pagerank(&g, &options(), &sources, Stop::NEVER).unwrap();
        assert_close(&ours, &model(&g, 0.85, &jump, 30));
        assert!(ours[5] > ours[17] && ours[17] > ours[100]);
    }

    #[test]
    fn every_vertex_as_an_equal_source_is_plain_pagerank() {
        let n = 200u32;
        let g = crate::random_graph(n, 900, 11);
        let all: Vec<(u32, f64)> = (0..n).map(|v| (v, 2.0)).collect();
        let plain = pagerank(&g, &options(), Stop::NEVER).unwrap();
        let uniform = vec![1.0 / n as f64; n as usize];
        assert_close(&plain, &model(&g, 0.85, &uniform, 30));
        assert_close(
            &personalized_pagerank(&g, &options(), &all, Stop::NEVER).unwrap(),
            &plain,
        );
    }
}
