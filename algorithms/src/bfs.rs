//! Direction-optimising breadth-first search (Beamer, Asanović and
//! Patterson, SC 2012): each level either pushes from the frontier
//! (top-down) or, once the frontier's edges outnumber a fraction of the
//! unexplored ones, lets every unvisited vertex look for a parent in the
//! frontier (bottom-up), which stops at the first hit.

use crate::csr::{Direction, Graph};
use crate::error::AlgorithmError;
use crate::stop::Stop;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};

/// Marks a vertex no search reached (level and parent).
pub const UNREACHED: u32 = u32::MAX;

/// Switch to bottom-up when the frontier's edges exceed the unexplored
/// edges divided by this (the paper's alpha).
const ALPHA: usize = 15;
/// Switch back to top-down when the frontier holds fewer than `n / BETA`
/// vertices (the paper's beta).
const BETA: usize = 18;

/// Hop distance and BFS-tree parent of every vertex ([`UNREACHED`] where
/// the search did not get; a source is its own parent at level 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BfsTree {
    pub level: Vec<u32>,
    pub parent: Vec<u32>,
}

/// Searches from `source` along `dir`, at most `max_depth` levels deep.
pub fn bfs(
    graph: &Graph,
    source: u32,
    dir: Direction,
    max_depth: Option<u32>,
    stop: Stop,
) -> Result<BfsTree, AlgorithmError> {
    let n = graph.vertex_count();
    let parent: Vec<AtomicU32> = (0..n)
        .into_par_iter()
        .map(|_| AtomicU32::new(UNREACHED))
        .collect();
    let level: Vec<AtomicU32> = (0..n)
        .into_par_iter()
        .map(|_| AtomicU32::new(UNREACHED))
        .collect();
    parent[source as usize].store(source, Ordering::Relaxed);
    level[source as usize].store(0, Ordering::Relaxed);
    let mut frontier = vec![source];
    let mut unexplored = edges_in(graph, dir);
    let mut depth = 0u32;
    let mut bottom_up = false;
    while !frontier.is_empty() && max_depth.is_none_or(|max| depth < max) {
        stop.check()?;
        depth += 1;
        let frontier_edges: usize = frontier.par_iter().map(|&v| graph.degree(v, dir)).sum();
        unexplored = unexplored.saturating_sub(frontier_edges);
        bottom_up = if bottom_up {
            frontier.len() >= n / BETA
        } else {
            frontier_edges > unexplored / ALPHA
        };
        let step = Step {
            graph,
            dir,
            parent: &parent,
            level: &level,
            depth,
        };
        frontier = if bottom_up {
            step.bottom_up(&frontier)
        } else {
            step.top_down(&frontier)
        };
    }
    Ok(BfsTree {
        level: level.into_iter().map(AtomicU32::into_inner).collect(),
        parent: parent.into_iter().map(AtomicU32::into_inner).collect(),
    })
}

fn edges_in(graph: &Graph, dir: Direction) -> usize {
    match dir {
        Direction::Both => 2 * graph.edge_count(),
        _ => graph.edge_count(),
    }
}

/// One level of a search: what both kinds of step read and write.
struct Step<'a> {
    graph: &'a Graph,
    dir: Direction,
    parent: &'a [AtomicU32],
    level: &'a [AtomicU32],
    depth: u32,
}

impl Step<'_> {
    /// Every frontier vertex claims its unvisited neighbours.
    fn top_down(&self, frontier: &[u32]) -> Vec<u32> {
        frontier
            .par_iter()
            .fold(Vec::new, |mut next, &v| {
                for w in self.graph.neighbours(v, self.dir) {
                    let slot = &self.parent[w as usize];
                    if slot.load(Ordering::Relaxed) == UNREACHED
                        && slot
                            .compare_exchange(UNREACHED, v, Ordering::Relaxed, Ordering::Relaxed)
                            .is_ok()
                    {
                        self.level[w as usize].store(self.depth, Ordering::Relaxed);
                        next.push(w);
                    }
                }
                next
            })
            .reduce(Vec::new, crate::concat)
    }

    /// Every unvisited vertex looks for a neighbour (against `dir`) in the
    /// frontier; only its own slot is written, so no claim can race.
    fn bottom_up(&self, frontier: &[u32]) -> Vec<u32> {
        let (graph, parent, level) = (self.graph, self.parent, self.level);
        let (dir, depth) = (self.dir, self.depth);
        let n = graph.vertex_count();
        let mut in_frontier = vec![0u64; n.div_ceil(64)];
        for &v in frontier {
            in_frontier[v as usize / 64] |= 1 << (v % 64);
        }
        let back = dir.reverse();
        (0..n as u32)
            .into_par_iter()
            .filter(|&v| {
                if parent[v as usize].load(Ordering::Relaxed) != UNREACHED {
                    return false;
                }
                let found = graph
                    .neighbours(v, back)
                    .find(|&u| in_frontier[u as usize / 64] & (1 << (u % 64)) != 0);
                match found {
                    Some(u) => {
                        parent[v as usize].store(u, Ordering::Relaxed);
                        level[v as usize].store(depth, Ordering::Relaxed);
                        true
                    }
                    None => false,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sequential BFS, the model the parallel one must agree with.
    fn levels_by_queue(graph: &Graph, source: u32, dir: Direction) -> Vec<u32> {
        let mut level = vec![UNREACHED; graph.vertex_count()];
        level[source as usize] = 0;
        let mut queue = std::collections::VecDeque::from([source]);
        while let Some(v) = queue.pop_front() {
            for w in graph.neighbours(v, dir) {
                if level[w as usize] == UNREACHED {
                    level[w as usize] = level[v as usize] + 1;
                    queue.push_back(w);
                }
            }
        }
        level
    }

    #[test]
    fn agrees_with_a_queue_on_a_dense_random_graph() {
        // A graph dense enough that the search goes bottom-up.
        let n = 2000u32;
        let g = crate::random_graph(n, 40_000, 12345);
        for dir in [Direction::Out, Direction::In, Direction::Both] {
            let tree = bfs(&g, 7, dir, None, Stop::NEVER).unwrap();
            assert_eq!(tree.level, levels_by_queue(&g, 7, dir));
            for v in 0..n {
                let p = tree.parent[v as usize];
                if p != UNREACHED && v != 7 {
                    assert_eq!(tree.level[p as usize] + 1, tree.level[v as usize]);
                    assert!(g.neighbours(p, dir).any(|w| w == v));
                }
            }
        }
        let shallow = bfs(&g, 7, Direction::Out, Some(1), Stop::NEVER).unwrap();
        assert!(shallow.level.iter().all(|&l| l == UNREACHED || l <= 1));
    }
}
