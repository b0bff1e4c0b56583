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
//!
//! A run with a tolerance solves the same ranks in their linear-system
//! form instead: because the dangling rank spreads by the same `p` as the
//! random jump, the fixed point `x` of the formula is `y / |y|` for the `y`
//! with `y = (1 - d) * p + d * P y` (`P` the transitions along edges, the
//! dangling rank leaking out). Iterating that leaky form converges in far
//! fewer passes on graphs with many dangling or isolated vertices (half of
//! a Kronecker graph's at scale 22: ~8 passes' time instead of ~15 to 1e-4),
//! since the rank they hold no longer moves around the whole graph every
//! pass. A run without one (Graphalytics' fixed iteration counts) keeps
//! the formula's iterates exactly.

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
    /// Stop early once the ranks move less than this in total (L1,
    /// relative to their sum); 0 runs every iteration of the formula.
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

/// Vertices per unit of parallel work: large enough to amortise the
/// scheduling, small enough that a hub's long row does not leave one
/// thread alone at the end of a pass.
const CHUNK: usize = 2048;

/// The power iteration, jumping by `jump` (uniformly when `None`).
///
/// One pass over the vertices per iteration: each vertex sums the shares
/// (`rank / degree`, computed once per vertex and iteration, not once
/// per edge) of its in-neighbours, and at once writes its new rank, its
/// own next share (into a second buffer: the current shares are still
/// being read) and its part of the next dangling rank. Buffers are reused
/// across iterations. Sums over chunks are added in chunk order, so the
/// ranks are the same for every thread count and schedule.
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
    // The rows pulled from: one CSR direction, or both for `Both`.
    let (rows, more_rows) = match dir.reverse() {
        Direction::Out => (graph.out(), None),
        Direction::In => (graph.inc(), None),
        Direction::Both => (graph.out(), Some(graph.inc())),
    };
    let d = options.damping;
    let nf = n as f64;
    // 1 / out-degree, 0 for a dangling vertex (its rank spreads evenly).
    let inverse_degree: Vec<f64> = (0..n as u32)
        .into_par_iter()
        .with_min_len(CHUNK)
        .map(|v| match graph.degree(v, dir) {
            0 => 0.0,
            k => 1.0 / k as f64,
        })
        .collect();
    // The leaky linear-system form (module docs) when a tolerance bounds
    // the run.
    let leaky = options.tolerance > 0.0;
    let mut rank = vec![1.0 / nf; n];
    let mut next = vec![0.0; n];
    let mut share = vec![0f32; n];
    let mut next_share = vec![0f32; n];
    let mut dangling = contribute(&rank, &inverse_degree, &mut share);
    let mut total = 1.0;
    for _ in 0..options.iterations {
        stop.check()?;
        // What the jump and the dangling vertices give each vertex, per
        // unit of its jump probability (the leaky form lets the dangling
        // rank go).
        let spread = (1.0 - d) + if leaky { 0.0 } else { d * dangling };
        let uniform = spread / nf;
        let parts: Vec<(f64, f64, f64)> = next
            .par_chunks_mut(CHUNK)
            .zip(next_share.par_chunks_mut(CHUNK))
            .zip(rank.par_chunks(CHUNK))
            .zip(inverse_degree.par_chunks(CHUNK))
            .enumerate()
            .map(|(c, (((next, next_share), rank), inverse_degree))| {
                let first = c * CHUNK;
                let (mut change, mut dangling, mut total) = (0.0, 0.0, 0.0);
                for (i, (slot, out)) in next.iter_mut().zip(next_share).enumerate() {
                    let v = first + i;
                    let pulled = gather(rows.neighbours(v as u32), &share)
                        + more_rows.map_or(0.0, |csr| gather(csr.neighbours(v as u32), &share));
                    let base = jump.map_or(uniform, |p| spread * p[v]);
                    let r = base + d * pulled;
                    *slot = r;
                    *out = (r * inverse_degree[i]) as f32;
                    if inverse_degree[i] == 0.0 {
                        dangling += r;
                    }
                    change += (r - rank[i]).abs();
                    total += r;
                }
                (change, dangling, total)
            })
            .collect();
        std::mem::swap(&mut rank, &mut next);
        std::mem::swap(&mut share, &mut next_share);
        dangling = parts.iter().map(|&(_, dangling, _)| dangling).sum();
        let change: f64 = parts.iter().map(|&(change, _, _)| change).sum();
        total = parts.iter().map(|&(_, _, total)| total).sum();
        if change < options.tolerance * total {
            break;
        }
    }
    if leaky && total > 0.0 {
        rank.par_iter_mut()
            .with_min_len(CHUNK)
            .for_each(|r| *r /= total);
    }
    Ok(rank)
}

/// Writes every vertex's first share of its rank per out-edge into
/// `contribution` and returns the rank of the dangling vertices.
///
/// The shares are kept in single precision, as GAPBS keeps its scores:
/// the pull reads one share per edge at a random place, and 4 bytes per
/// vertex keep twice as many of them in cache as 8 (4 MB instead of 8 at
/// a million vertices). Ranks and sums stay in double precision; a
/// share's rounding (relative 6e-8) is far below Graphalytics' tolerance
/// (relative 1e-4).
fn contribute(rank: &[f64], inverse_degree: &[f64], contribution: &mut [f32]) -> f64 {
    let dangling: Vec<f64> = contribution
        .par_chunks_mut(CHUNK)
        .zip(rank.par_chunks(CHUNK))
        .zip(inverse_degree.par_chunks(CHUNK))
        .map(|((contribution, rank), inverse_degree)| {
            let mut dangling = 0.0;
            for ((c, &r), &inv) in contribution.iter_mut().zip(rank).zip(inverse_degree) {
                *c = (r * inv) as f32;
                if inv == 0.0 {
                    dangling += r;
                }
            }
            dangling
        })
        .collect();
    dangling.iter().sum()
}

/// The sum of `values` at `indices`, in four independent running sums so
/// that the additions do not wait on one another (a row of a hub holds
/// thousands of entries).
fn gather(indices: &[u32], values: &[f32]) -> f64 {
    let value = |u: u32| f64::from(values[u as usize]);
    let mut sums = [0.0f64; 4];
    let mut quads = indices.chunks_exact(4);
    for q in &mut quads {
        sums[0] += value(q[0]);
        sums[1] += value(q[1]);
        sums[2] += value(q[2]);
        sums[3] += value(q[3]);
    }
    let tail: f64 = quads.remainder().iter().map(|&u| value(u)).sum();
    (sums[0] + sums[1]) + (sums[2] + sums[3]) + tail
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

    /// Equal to a relative 1e-5: the kernel rounds each vertex's share
    /// to single precision (relative 6e-8 per share), the model does not.
    fn assert_close(a: &[f64], b: &[f64]) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() <= 1e-5 * y.abs(), "{x} vs {y}");
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

    fn converged(graph: &Graph, tolerance: f64, iterations: u32) -> Vec<f64> {
        let options = PageRankOptions {
            iterations,
            tolerance,
            ..options()
        };
        pagerank(graph, &options, Stop::NEVER).unwrap()
    }

    fn l1(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).map(|(x, y)| (x - y).abs()).sum()
    }

    /// Fewer edges than vertices: most vertices dangling, many isolated,
    /// where the two forms' iterates differ most.
    fn sparse_graph() -> Graph {
        crate::random_graph(500, 400, 23)
    }

    #[test]
    fn the_leaky_form_reaches_the_formulas_fixed_point() {
        let g = sparse_graph();
        let formula = converged(&g, 0.0, 400);
        let leaky = converged(&g, 1e-12, 400);
        assert!((leaky.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        assert_close(&leaky, &formula);
        // Not the formula's own iterates: after 3 passes they differ.
        assert!(l1(&converged(&g, 0.0, 3), &converged(&g, 1e-12, 3)) > 1e-3);
    }

    #[test]
    fn personalised_leaky_ranks_reach_the_fixed_point() {
        let g = sparse_graph();
        let sources = [(3, 1.0), (250, 3.0)];
        let run = |tolerance| {
            let options = PageRankOptions {
                iterations: 400,
                tolerance,
                ..options()
            };
            personalized_pagerank(&g, &options, &sources, Stop::NEVER).unwrap()
        };
        // Vertices the sources do not reach keep only what is left of the
        // first pass's 1 / n, which each form decays for its own number of
        // passes: compare in total (the shares' single precision allows
        // ~1e-7), not vertex by vertex.
        let (leaky, formula) = (run(1e-12), run(0.0));
        assert!(l1(&leaky, &formula) < 1e-6, "{}", l1(&leaky, &formula));
        assert!(
            leaky[250] > leaky[3] && leaky[3] > 0.05,
            "{} {}",
            leaky[250],
            leaky[3]
        );
    }

    #[test]
    fn a_tolerance_bounds_the_distance_to_the_fixed_point() {
        let g = crate::random_graph(2000, 5000, 5);
        let fixed = converged(&g, 0.0, 400);
        for tolerance in [1e-3, 1e-4, 1e-6] {
            let ranks = converged(&g, tolerance, 100);
            // A pass contracts the error by the damping factor at least,
            // so the error left is at most d / (1 - d) times the last move,
            // twice that after normalising.
            assert!(l1(&ranks, &fixed) <= 2.0 * 0.85 / 0.15 * tolerance);
        }
    }
}
