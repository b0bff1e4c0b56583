//! Triangles and the local clustering coefficient (LCC), both over the
//! simple graph: each vertex's distinct neighbours, without itself.
//!
//! LCC follows LDBC Graphalytics: the neighbourhood `N(v)` of a vertex is
//! every vertex adjacent to it either way; its coefficient is the number of
//! edges `u -> w` with `u, w` in `N(v)`, divided by `|N(v)| (|N(v)| - 1)`
//! (0 below two neighbours). Followed both ways each undirected edge counts
//! twice, which gives the undirected definition.

use crate::csr::{distinct_neighbours, Direction, Graph};
use rayon::prelude::*;

/// The number of triangles in the graph, directions ignored: each set of
/// three mutually adjacent vertices counts once.
pub fn triangle_count(graph: &Graph) -> u64 {
    let sets = distinct_neighbours(graph, Direction::Both);
    (0..sets.len())
        .into_par_iter()
        .map(|u| {
            below(&sets[u], u as u32)
                .iter()
                .map(|&v| intersection_size(below(&sets[u], v), below(&sets[v as usize], v)))
                .sum::<u64>()
        })
        .sum()
}

/// Every vertex's local clustering coefficient, counting edges among its
/// neighbours along `dir` (`Both` treats the graph as undirected).
pub fn local_clustering(graph: &Graph, dir: Direction) -> Vec<f64> {
    let neighbourhoods = distinct_neighbours(graph, Direction::Both);
    let linked = if dir == Direction::Both {
        None
    } else {
        Some(distinct_neighbours(graph, dir))
    };
    let linked = linked.as_ref().unwrap_or(&neighbourhoods);
    neighbourhoods
        .par_iter()
        .map(|hood| {
            let d = hood.len() as f64;
            if hood.len() < 2 {
                return 0.0;
            }
            let edges: u64 = hood
                .iter()
                .map(|&u| intersection_size(&linked[u as usize], hood))
                .sum();
            edges as f64 / (d * (d - 1.0))
        })
        .collect()
}

/// The members of a sorted list below `limit`.
fn below(set: &[u32], limit: u32) -> &[u32] {
    &set[..set.partition_point(|&x| x < limit)]
}

/// Size of the intersection of two sorted, duplicate-free lists.
fn intersection_size(a: &[u32], b: &[u32]) -> u64 {
    let (mut i, mut j, mut count) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                count += 1;
                i += 1;
                j += 1;
            }
        }
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_four_clique_has_four_triangles_and_coefficient_one() {
        let edges = [
            (0, 1),
            (0, 2),
            (0, 3),
            (1, 2),
            (1, 3),
            (2, 3),
            (3, 4),
            (2, 1),
        ];
        let g = Graph::from_edges(5, &edges, None);
        assert_eq!(triangle_count(&g), 4);
        let lcc = local_clustering(&g, Direction::Both);
        assert_eq!(lcc[0], 1.0);
        assert_eq!(lcc[4], 0.0);
        assert_eq!(lcc[3], 0.5);
    }
}
