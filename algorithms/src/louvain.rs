//! Community detection by modularity, the Louvain method (Blondel,
//! Guillaume, Lambiotte and Lefebvre, 2008): each level moves single
//! vertices to the neighbouring community that raises modularity most,
//! until an iteration gains less than `iteration_tolerance`; then every
//! community becomes one vertex of a smaller graph and the next level
//! starts, until a level gains less than `level_tolerance`.
//!
//! Edges are undirected for modularity (an edge counts from both ends,
//! weights summed); vertices are visited in index order and a tie keeps a
//! vertex where it is, so the result does not depend on thread timing.
//! The local moves are sequential (their order is what makes Louvain
//! converge); building the first level's adjacency is parallel.

use crate::csr::{Direction, Graph};
use crate::error::AlgorithmError;
use crate::stop::Stop;
use rayon::prelude::*;
use std::collections::HashMap;

/// The limits Neptune's `louvain` takes.
#[derive(Clone, Copy, Debug)]
pub struct LouvainOptions {
    pub max_levels: u32,
    pub max_iterations: u32,
    pub level_tolerance: f64,
    pub iteration_tolerance: f64,
}

impl Default for LouvainOptions {
    fn default() -> Self {
        LouvainOptions {
            max_levels: 10,
            max_iterations: 10,
            level_tolerance: 0.01,
            iteration_tolerance: 0.0001,
        }
    }
}

/// The community of every vertex (named by its smallest vertex) and the
/// modularity of that partition.
#[derive(Clone, Debug, PartialEq)]
pub struct Communities {
    pub community: Vec<u32>,
    pub modularity: f64,
}

/// A symmetric weighted adjacency: `rows[v]` lists `(u, weight)` with
/// parallel edges merged; a self-loop carries twice its weight, as the
/// adjacency matrix of an undirected graph does.
struct Level {
    rows: Vec<Vec<(u32, f64)>>,
}

impl Level {
    fn from_graph(graph: &Graph) -> Level {
        let rows = (0..graph.vertex_count() as u32)
            .into_par_iter()
            .map(|v| {
                let mut row: Vec<(u32, f64)> = if graph.has_weights() {
                    graph.weighted(v, Direction::Both).collect()
                } else {
                    graph
                        .neighbours(v, Direction::Both)
                        .map(|u| (u, 1.0))
                        .collect()
                };
                merge(&mut row);
                row
            })
            .collect();
        Level { rows }
    }

    fn strength(&self, v: usize) -> f64 {
        self.rows[v].iter().map(|&(_, w)| w).sum()
    }

    /// The graph whose vertices are the communities `of` (numbered
    /// `0..count`), with the weights between them summed.
    fn aggregate(&self, of: &[u32], count: usize) -> Level {
        let mut rows: Vec<Vec<(u32, f64)>> = vec![Vec::new(); count];
        for (v, row) in self.rows.iter().enumerate() {
            let c = of[v] as usize;
            rows[c].extend(row.iter().map(|&(u, w)| (of[u as usize], w)));
        }
        rows.par_iter_mut().for_each(merge);
        Level { rows }
    }
}

/// Sorts a row by neighbour and sums the weights of repeated neighbours.
fn merge(row: &mut Vec<(u32, f64)>) {
    row.sort_unstable_by_key(|&(u, _)| u);
    row.dedup_by(|next, kept| {
        if next.0 == kept.0 {
            kept.1 += next.1;
            true
        } else {
            false
        }
    });
}

/// Runs Louvain on `graph` (weights from the view when it has them, 1
/// otherwise).
pub fn louvain(
    graph: &Graph,
    options: &LouvainOptions,
    stop: Stop,
) -> Result<Communities, AlgorithmError> {
    let n = graph.vertex_count();
    let mut level = Level::from_graph(graph);
    // `member[v]`: the vertex of the current level that vertex `v` of the
    // input graph has been merged into.
    let mut member: Vec<u32> = (0..n as u32).collect();
    let mut modularity = partition_modularity(&level, &(0..n as u32).collect::<Vec<_>>());
    for _ in 0..options.max_levels {
        let (assignment, gained) = local_moves(&level, options, modularity, stop)?;
        let (renumbered, count) = renumber(&assignment);
        if count == level.rows.len() {
            break;
        }
        for m in member.iter_mut() {
            *m = renumbered[*m as usize];
        }
        let next = level.aggregate(&renumbered, count);
        let quality = partition_modularity(&next, &(0..count as u32).collect::<Vec<_>>());
        level = next;
        let level_gain = quality - modularity;
        modularity = quality;
        if level_gain < options.level_tolerance || gained < options.level_tolerance {
            break;
        }
    }
    Ok(Communities {
        community: name_by_smallest(&member),
        modularity,
    })
}

/// One level's local moves: returns each vertex's community and the
/// modularity gained. `start` is the modularity of `level` with every
/// vertex alone, which the caller already knows (the previous level's
/// result, or the input's singletons).
fn local_moves(
    level: &Level,
    options: &LouvainOptions,
    start: f64,
    stop: Stop,
) -> Result<(Vec<u32>, f64), AlgorithmError> {
    let n = level.rows.len();
    let strength: Vec<f64> = (0..n).map(|v| level.strength(v)).collect();
    let two_m: f64 = strength.iter().sum();
    let mut community: Vec<u32> = (0..n as u32).collect();
    if two_m <= 0.0 {
        return Ok((community, 0.0));
    }
    // Total strength of each community.
    let mut total: Vec<f64> = strength.clone();
    debug_assert!((start - partition_modularity(level, &community)).abs() < 1e-9);
    let mut quality = start;
    let mut links: HashMap<u32, f64> = HashMap::new();
    for _ in 0..options.max_iterations {
        stop.check()?;
        let mut moved = false;
        for v in 0..n {
            let own = community[v];
            let k = strength[v];
            links.clear();
            for &(u, w) in &level.rows[v] {
                if u as usize != v {
                    *links.entry(community[u as usize]).or_insert(0.0) += w;
                }
            }
            total[own as usize] -= k;
            // Gain of joining `c`, up to the terms every choice shares.
            let gain = |c: u32, weight: f64| weight - total[c as usize] * k / two_m;
            let mut best = own;
            let mut best_gain = gain(own, links.get(&own).copied().unwrap_or(0.0));
            let mut candidates: Vec<(u32, f64)> = links.iter().map(|(&c, &w)| (c, w)).collect();
            candidates.sort_unstable_by_key(|&(c, _)| c);
            for (c, w) in candidates {
                let g = gain(c, w);
                if g > best_gain + 1e-12 {
                    best = c;
                    best_gain = g;
                }
            }
            total[best as usize] += k;
            if best != own {
                community[v] = best;
                moved = true;
            }
        }
        let next = partition_modularity(level, &community);
        let gained = next - quality;
        quality = next;
        if !moved || gained < options.iteration_tolerance {
            break;
        }
    }
    Ok((community, quality - start))
}

/// Modularity of `community` on `level`: the share of weight inside
/// communities minus the share expected at random.
fn partition_modularity(level: &Level, community: &[u32]) -> f64 {
    let n = level.rows.len();
    let mut inside = vec![0.0; n];
    let mut total = vec![0.0; n];
    let mut two_m = 0.0;
    for (v, row) in level.rows.iter().enumerate() {
        let c = community[v] as usize;
        for &(u, w) in row {
            two_m += w;
            total[c] += w;
            if community[u as usize] as usize == c {
                inside[c] += w;
            }
        }
    }
    if two_m <= 0.0 {
        return 0.0;
    }
    (0..n)
        .map(|c| inside[c] / two_m - (total[c] / two_m).powi(2))
        .sum()
}

/// Dense numbers `0..count` for the communities, in order of first use.
fn renumber(assignment: &[u32]) -> (Vec<u32>, usize) {
    let mut number: HashMap<u32, u32> = HashMap::new();
    let renumbered = assignment
        .iter()
        .map(|c| {
            let next = number.len() as u32;
            *number.entry(*c).or_insert(next)
        })
        .collect();
    (renumbered, number.len())
}

/// Names each group of `member` by the smallest vertex in it.
fn name_by_smallest(member: &[u32]) -> Vec<u32> {
    let mut smallest: HashMap<u32, u32> = HashMap::new();
    for (v, &m) in member.iter().enumerate() {
        smallest.entry(m).or_insert(v as u32);
    }
    member.iter().map(|m| smallest[m]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::random_graph;

    /// `cliques` cliques of `size` vertices, each joined to the next by
    /// one edge.
    fn ring_of_cliques(cliques: u32, size: u32) -> Graph {
        let mut edges = Vec::new();
        for c in 0..cliques {
            let base = c * size;
            for a in 0..size {
                for b in a + 1..size {
                    edges.push((base + a, base + b));
                }
            }
            edges.push((base, ((c + 1) % cliques) * size + 1));
        }
        Graph::from_edges((cliques * size) as usize, &edges, None)
    }

    #[test]
    fn finds_each_clique_of_a_ring_of_cliques() {
        let g = ring_of_cliques(6, 5);
        let found = louvain(&g, &LouvainOptions::default(), Stop::NEVER).unwrap();
        for v in 0..30u32 {
            assert_eq!(found.community[v as usize], (v / 5) * 5, "vertex {v}");
        }
        assert!(found.modularity > 0.7, "{}", found.modularity);
    }

    #[test]
    fn reported_modularity_is_that_of_the_partition_and_beats_singletons() {
        for seed in 0..5 {
            let g = random_graph(200, 800, seed);
            let found = louvain(&g, &LouvainOptions::default(), Stop::NEVER).unwrap();
            let level = Level::from_graph(&g);
            let recomputed = partition_modularity(&level, &found.community);
            assert!((recomputed - found.modularity).abs() < 1e-9, "seed {seed}");
            let singletons: Vec<u32> = (0..200).collect();
            assert!(found.modularity > partition_modularity(&level, &singletons));
            assert!(found.modularity > 0.0);
            for (v, &c) in found.community.iter().enumerate() {
                assert!(c as usize <= v && found.community[c as usize] == c);
            }
        }
    }

    #[test]
    fn weights_pull_vertices_together() {
        // A square 0-1-2-3-0; heavy edges 0-1 and 2-3 make two pairs.
        let edges = [(0, 1), (1, 2), (2, 3), (3, 0)];
        let g = Graph::from_edges(4, &edges, Some(&[10.0, 1.0, 10.0, 1.0]));
        let found = louvain(&g, &LouvainOptions::default(), Stop::NEVER).unwrap();
        assert_eq!(found.community, vec![0, 0, 2, 2]);
    }

    #[test]
    fn an_empty_graph_keeps_every_vertex_alone() {
        let g = Graph::from_edges(3, &[], None);
        let found = louvain(&g, &LouvainOptions::default(), Stop::NEVER).unwrap();
        assert_eq!(found.community, vec![0, 1, 2]);
        assert_eq!(found.modularity, 0.0);
    }
}
