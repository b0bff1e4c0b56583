//! Closeness centrality by multi-source BFS (Poseidon paper §7: many
//! concurrent BFSes as bit vectors, the SpMM formulation). Each vertex
//! holds one bit per source of a batch of 64: a level visits every vertex
//! once and ORs its neighbours' frontier words into its own, so 64
//! searches cost about as much as one. Batches run in parallel.
//!
//! The score of `v` is built from its distances to the sources *along*
//! `dir` (how fast `v` reaches the others): the searches therefore run
//! from the sources against `dir`. With every vertex as a source the
//! answer is exact; with fewer it estimates from a sample.

use crate::csr::{Direction, Graph};
use crate::error::AlgorithmError;
use crate::stop::Stop;
use rayon::prelude::*;

/// Sources searched together: one bit of a `u64` each.
const LANES: usize = 64;

/// Per vertex: how many sources it reaches and the sum of the distances.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Reach {
    pub reached: u64,
    pub distance_sum: u64,
}

impl Reach {
    /// One over the sum of distances (`normalize == false`), or one over
    /// their mean (`normalize == true`); 0 for a vertex reaching nothing.
    pub fn score(self, normalize: bool) -> f64 {
        if self.distance_sum == 0 {
            0.0
        } else if normalize {
            self.reached as f64 / self.distance_sum as f64
        } else {
            1.0 / self.distance_sum as f64
        }
    }
}

/// The distances from every vertex to each of `sources` along `dir`,
/// summed per vertex (a vertex does not count itself).
pub fn closeness(
    graph: &Graph,
    sources: &[u32],
    dir: Direction,
    stop: Stop,
) -> Result<Vec<Reach>, AlgorithmError> {
    let n = graph.vertex_count();
    sources
        .par_chunks(LANES)
        .map(|batch| search_batch(graph, batch, dir, stop))
        .try_reduce(
            || vec![Reach::default(); n],
            |mut a, b| {
                for (x, y) in a.iter_mut().zip(b) {
                    x.reached += y.reached;
                    x.distance_sum += y.distance_sum;
                }
                Ok(a)
            },
        )
}

/// One batch of up to 64 searches, level by level. A vertex pulls the
/// bits of the previous frontier from its neighbours along `dir` (they
/// are the vertices that reach it against `dir`).
fn search_batch(
    graph: &Graph,
    batch: &[u32],
    dir: Direction,
    stop: Stop,
) -> Result<Vec<Reach>, AlgorithmError> {
    let n = graph.vertex_count();
    let mut seen = vec![0u64; n];
    let mut frontier = vec![0u64; n];
    for (lane, &source) in batch.iter().enumerate() {
        seen[source as usize] |= 1 << lane;
        frontier[source as usize] |= 1 << lane;
    }
    let mut reach = vec![Reach::default(); n];
    let mut level = 0u64;
    loop {
        stop.check()?;
        level += 1;
        let next: Vec<u64> = (0..n as u32)
            .into_par_iter()
            .map(|v| {
                let mut bits = 0u64;
                for u in graph.neighbours(v, dir) {
                    bits |= frontier[u as usize];
                }
                bits & !seen[v as usize]
            })
            .collect();
        let mut any = false;
        for (v, &bits) in next.iter().enumerate() {
            if bits != 0 {
                any = true;
                seen[v] |= bits;
                let found = u64::from(bits.count_ones());
                reach[v].reached += found;
                reach[v].distance_sum += found * level;
            }
        }
        if !any {
            return Ok(reach);
        }
        frontier = next;
    }
}

/// `count` distinct vertices of `0..n`, the same for the same arguments
/// (a seeded partial shuffle), or all of them when `count >= n`.
pub fn sample_sources(n: usize, count: usize, seed: u64) -> Vec<u32> {
    let mut all: Vec<u32> = (0..n as u32).collect();
    if count >= n {
        return all;
    }
    let mut state = seed ^ 0x9e37_79b9_7f4a_7c15;
    for i in 0..count {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let j = i + ((state >> 33) as usize) % (n - i);
        all.swap(i, j);
    }
    all.truncate(count);
    all.sort_unstable();
    all
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{bfs, random_graph, UNREACHED};

    /// One plain BFS per source, against `dir`, summed per vertex.
    fn sequential(graph: &Graph, sources: &[u32], dir: Direction) -> Vec<Reach> {
        let mut reach = vec![Reach::default(); graph.vertex_count()];
        for &s in sources {
            let tree = bfs(graph, s, dir.reverse(), None, Stop::NEVER).unwrap();
            for (v, &d) in tree.level.iter().enumerate() {
                if d != UNREACHED && d > 0 {
                    reach[v].reached += 1;
                    reach[v].distance_sum += u64::from(d);
                }
            }
        }
        reach
    }

    #[test]
    fn equals_one_bfs_per_source_on_random_graphs() {
        for seed in 0..6 {
            let g = random_graph(150, 400, seed);
            let sources: Vec<u32> = (0..150).collect();
            for dir in [Direction::Out, Direction::In, Direction::Both] {
                assert_eq!(
                    closeness(&g, &sources, dir, Stop::NEVER).unwrap(),
                    sequential(&g, &sources, dir),
                    "seed {seed}, {dir:?}"
                );
            }
            let sample = sample_sources(150, 70, seed);
            assert_eq!(
                closeness(&g, &sample, Direction::Out, Stop::NEVER).unwrap(),
                sequential(&g, &sample, Direction::Out)
            );
        }
    }

    #[test]
    fn a_path_scores_its_middle_highest() {
        // 0 - 1 - 2 - 3 - 4, both ways.
        let edges = [(0, 1), (1, 2), (2, 3), (3, 4)];
        let g = Graph::from_edges(5, &edges, None);
        let reach = closeness(&g, &[0, 1, 2, 3, 4], Direction::Both, Stop::NEVER).unwrap();
        assert_eq!(
            reach[2],
            Reach {
                reached: 4,
                distance_sum: 6
            }
        );
        assert_eq!(
            reach[0],
            Reach {
                reached: 4,
                distance_sum: 10
            }
        );
        assert_eq!(reach[2].score(true), 4.0 / 6.0);
        assert_eq!(reach[0].score(false), 0.1);
    }

    #[test]
    fn samples_are_distinct_sorted_and_repeatable() {
        let a = sample_sources(1000, 100, 7);
        assert_eq!(a, sample_sources(1000, 100, 7));
        assert_eq!(a.len(), 100);
        assert!(a.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(sample_sources(5, 9, 1), vec![0, 1, 2, 3, 4]);
    }
}
