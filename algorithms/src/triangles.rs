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
/// The vertices are renumbered by falling degree (ties by index) and each
/// edge is kept once, pointing to the lower number (the endpoint of
/// higher degree); a triangle is counted at its highest-numbered corner
/// `u`: for each `u -> v`, the `w` with `v -> w` that `u` also reaches. A
/// hub's huge list is never walked from the hub, which bounds the work by
/// `O(m^1.5)`; the lists read most, those of the hubs, sit together at
/// the front of one flat array; and `u`'s list is marked in a bitmap (one
/// per worker, `n` bits: cache-resident) so that each `w` costs one
/// independent load instead of a step of a merge whose branches a random
/// graph makes unpredictable.
pub fn triangle_count(graph: &Graph) -> u64 {
    let oriented = Oriented::by_degree(graph);
    let words = oriented.len().div_ceil(64);
    (0..oriented.len() as u32)
        .into_par_iter()
        .with_min_len(256)
        .map_init(
            || vec![0u64; words],
            |marks, u| {
                let out = oriented.row(u);
                for &v in out {
                    marks[v as usize / 64] |= 1 << (v % 64);
                }
                let mut count = 0u64;
                for &v in out {
                    for &w in oriented.row(v) {
                        count += (marks[w as usize / 64] >> (w % 64)) & 1;
                    }
                }
                for &v in out {
                    marks[v as usize / 64] = 0;
                }
                count
            },
        )
        .sum()
}

/// The simple undirected graph renumbered by falling degree, each edge
/// once from its higher number to its lower, rows sorted.
struct Oriented {
    offsets: Vec<usize>,
    targets: Vec<u32>,
}

impl Oriented {
    fn by_degree(graph: &Graph) -> Oriented {
        let n = graph.vertex_count();
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.par_sort_unstable_by_key(|&v| {
            (std::cmp::Reverse(graph.degree(v, Direction::Both)), v)
        });
        let mut number = vec![0u32; n];
        for (new, &old) in order.iter().enumerate() {
            number[old as usize] = new as u32;
        }
        let rows: Vec<Vec<u32>> = order
            .par_iter()
            .enumerate()
            .map(|(u, &old)| {
                let mut out: Vec<u32> = graph
                    .slices(old, Direction::Both)
                    .iter()
                    .flat_map(|(targets, _)| targets.iter())
                    .map(|&w| number[w as usize])
                    .filter(|&w| (w as usize) < u)
                    .collect();
                out.sort_unstable();
                out.dedup();
                out
            })
            .collect();
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0);
        for row in &rows {
            offsets.push(offsets.last().copied().unwrap_or(0) + row.len());
        }
        Oriented {
            offsets,
            targets: rows.concat(),
        }
    }

    fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    fn row(&self, v: u32) -> &[u32] {
        let v = v as usize;
        &self.targets[self.offsets[v]..self.offsets[v + 1]]
    }
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

/// Size of the intersection of two sorted, duplicate-free lists, by a
/// merge without branches on the comparisons (which a random graph makes
/// unpredictable): both cursors move by the outcome as a number.
fn intersection_size(a: &[u32], b: &[u32]) -> u64 {
    let (mut i, mut j, mut count) = (0, 0, 0u64);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        count += u64::from(x == y);
        i += usize::from(x <= y);
        j += usize::from(y <= x);
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
