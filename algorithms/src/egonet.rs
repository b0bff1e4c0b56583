//! One hop of an EgoNet (Poseidon paper §7, Neptune's `egonet`): from each
//! vertex of a frontier, its `k` heaviest (or lightest) edges to vertices
//! not yet in the egonet; the vertices reached form the next frontier.
//! The top `k` are taken per frontier vertex, as a weight-sorted CSR makes
//! cheap (the first or last `k` of each row); ties go to the smaller
//! vertex index, so the answer does not depend on row order.

use crate::csr::{Direction, Graph};

/// What one hop takes.
#[derive(Clone, Copy, Debug)]
pub struct EgoHop {
    /// Edges kept per frontier vertex; `None`: all.
    pub per_vertex: Option<usize>,
    pub direction: Direction,
    /// Keep the heaviest edges (`true`) or the lightest.
    pub heaviest: bool,
}

/// The edges one hop keeps from `frontier`: `(from, to, weight)` with
/// `from` in the frontier, `to` not in `seen` and accepted by `admit`.
/// `graph` must carry weights.
pub fn ego_hop(
    graph: &Graph,
    frontier: &[u32],
    hop: EgoHop,
    seen: &dyn Fn(u32) -> bool,
    admit: &dyn Fn(u32) -> bool,
) -> Vec<(u32, u32, f64)> {
    let mut kept = Vec::new();
    let mut row: Vec<(u32, f64)> = Vec::new();
    for &from in frontier {
        row.clear();
        row.extend(
            graph
                .weighted(from, hop.direction)
                .filter(|&(to, _)| !seen(to) && admit(to)),
        );
        let order = |a: &(u32, f64), b: &(u32, f64)| {
            let by_weight = if hop.heaviest {
                b.1.total_cmp(&a.1)
            } else {
                a.1.total_cmp(&b.1)
            };
            by_weight.then(a.0.cmp(&b.0))
        };
        let take = hop.per_vertex.unwrap_or(row.len()).min(row.len());
        if take < row.len() {
            row.select_nth_unstable_by(take, order);
            row.truncate(take);
        }
        row.sort_unstable_by(order);
        kept.extend(row.iter().map(|&(to, w)| (from, to, w)));
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_k_heaviest_or_lightest_new_edges_of_each_vertex() {
        // 0 -> 1 (5), 0 -> 2 (1), 0 -> 3 (3), 1 -> 0 (9), 1 -> 4 (2).
        let edges = [(0, 1), (0, 2), (0, 3), (1, 0), (1, 4)];
        let g = Graph::from_edges(5, &edges, Some(&[5.0, 1.0, 3.0, 9.0, 2.0]));
        let hop = |per_vertex, heaviest| EgoHop {
            per_vertex,
            direction: Direction::Out,
            heaviest,
        };
        let none = |_| false;
        let all = |_| true;
        assert_eq!(
            ego_hop(&g, &[0], hop(Some(2), true), &none, &all),
            vec![(0, 1, 5.0), (0, 3, 3.0)]
        );
        assert_eq!(
            ego_hop(&g, &[0], hop(Some(1), false), &none, &all),
            vec![(0, 2, 1.0)]
        );
        // Vertex 0 is already in the egonet: 1's heaviest new edge is to 4.
        let seen = |v| v == 0 || v == 1;
        assert_eq!(
            ego_hop(&g, &[1], hop(Some(1), true), &seen, &all),
            vec![(1, 4, 2.0)]
        );
        assert_eq!(
            ego_hop(&g, &[0], hop(None, true), &none, &|v| v != 1).len(),
            2
        );
    }
}
