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
///
/// Each edge is kept once, oriented from the endpoint of lower degree to
/// the higher (ties by index), and a triangle is counted at its lowest
/// corner as `|out(u) ∩ out(v)|` for each `u -> v`: a hub's huge list is
/// never walked from the hub, which bounds the work by `O(m^1.5)`.
pub fn triangle_count(graph: &Graph) -> u64 {
    let n = graph.vertex_count();
    let degree: Vec<usize> = (0..n as u32)
        .into_par_iter()
        .map(|v| graph.degree(v, Direction::Both))
        .collect();
    let before = |a: u32, b: u32| (degree[a as usize], a) < (degree[b as usize], b);
    let oriented: Vec<Vec<u32>> = (0..n as u32)
        .into_par_iter()
        .map(|u| {
            let mut out: Vec<u32> = graph
                .slices(u, Direction::Both)
                .iter()
                .flat_map(|(targets, _)| targets.iter().copied())
                .filter(|&w| before(u, w))
                .collect();
            out.sort_unstable();
            out.dedup();
            out
        })
        .collect();
    oriented
        .par_iter()
        .map(|out| {
            out.iter()
                .map(|&v| intersection_size(out, &oriented[v as usize]))
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

#[cfg(test)]
mod model {
    use super::*;

    #[test]
    fn counts_as_a_brute_force_over_vertex_triples() {
        let g = crate::random_graph(60, 700, 5);
        let sets = distinct_neighbours(&g, Direction::Both);
        let linked = |a: u32, b: u32| sets[a as usize].binary_search(&b).is_ok();
        let mut expected = 0u64;
        for a in 0..60 {
            for b in a + 1..60 {
                for c in b + 1..60 {
                    if linked(a, b) && linked(b, c) && linked(a, c) {
                        expected += 1;
                    }
                }
            }
        }
        assert!(expected > 0);
        assert_eq!(triangle_count(&g), expected);
    }
}
