//! PageRank by power iteration, pulling each vertex's rank from its
//! in-neighbours (no atomics). Dangling vertices (no edge out) spread their
//! rank evenly over all vertices, as LDBC Graphalytics specifies:
//! `PR'(v) = (1 - d) / n + d * sum(PR(u) / deg(u) for u -> v) + d * D / n`,
//! `D` the dangling vertices' rank, starting from `1 / n`.

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
        let base = (1.0 - d) / nf + d * dangling / nf;
        let back = dir.reverse();
        let next: Vec<f64> = (0..n as u32)
            .into_par_iter()
            .map(|v| {
                let pulled: f64 = graph
                    .slices(v, back)
                    .iter()
                    .map(|(from, _)| from.iter().map(|&u| contribution[u as usize]).sum::<f64>())
                    .sum();
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
