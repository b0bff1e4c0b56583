//! One hop of an EgoNet (Poseidon paper §7, Neptune's `egonet`): from each
//! vertex of a frontier, its `k` heaviest (or lightest) edges to vertices
//! not yet in the egonet; the vertices reached form the next frontier.
//! The top `k` are taken per frontier vertex, as a weight-sorted CSR makes
//! cheap (the first or last `k` of each row); ties go to the smaller
//! vertex index, so the answer does not depend on row order.

use crate::csr::{Direction, Graph, Weights};
use crate::weight_order::RowOrder;

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
/// `graph` must carry weights. On a graph whose rows are sorted the way
/// the hop picks ([`RowOrder::by_weight`]), each vertex's row is read from
/// its start until `k` edges pass; otherwise the `k` are selected from the
/// whole row. Both give the same edges in the same order.
pub fn ego_hop(
    graph: &Graph,
    frontier: &[u32],
    hop: EgoHop,
    seen: &dyn Fn(u32) -> bool,
    admit: &dyn Fn(u32) -> bool,
) -> Vec<(u32, u32, f64)> {
    let order = RowOrder::by_weight(hop.heaviest);
    let wanted = |to: u32| !seen(to) && admit(to);
    let mut kept = Vec::new();
    if graph.row_order() == order {
        let take = hop.per_vertex.unwrap_or(usize::MAX);
        for &from in frontier.iter().filter(|_| take > 0) {
            let [a, b] = graph.slices(from, hop.direction);
            let mut taken = 0;
            merge_rows(a, b, order, |to, w| {
                if wanted(to) {
                    kept.push((from, to, w));
                    taken += 1;
                }
                taken < take
            });
        }
        return kept;
    }
    let mut row: Vec<(u32, f64)> = Vec::new();
    for &from in frontier {
        row.clear();
        row.extend(
            graph
                .weighted(from, hop.direction)
                .filter(|&(to, _)| wanted(to)),
        );
        let by = |a: &(u32, f64), b: &(u32, f64)| order.compare(*a, *b);
        let take = hop.per_vertex.unwrap_or(row.len()).min(row.len());
        if take < row.len() {
            row.select_nth_unstable_by(take, by);
            row.truncate(take);
        }
        row.sort_unstable_by(by);
        kept.extend(row.iter().map(|&(to, w)| (from, to, w)));
    }
    kept
}

/// Feeds the edges of two rows sorted in `order` to `visit` merged into
/// that order, while it returns true.
fn merge_rows(
    a: (&[u32], Weights<'_>),
    b: (&[u32], Weights<'_>),
    order: RowOrder,
    mut visit: impl FnMut(u32, f64) -> bool,
) {
    let edge = |row: (&[u32], Weights<'_>), i: usize| (row.0[i], row.1.get(i));
    let (mut i, mut j) = (0, 0);
    while i < a.0.len() || j < b.0.len() {
        let next =
            if j == b.0.len() || (i < a.0.len() && order.compare(edge(a, i), edge(b, j)).is_le()) {
                i += 1;
                edge(a, i - 1)
            } else {
                j += 1;
                edge(b, j - 1)
            };
        if !visit(next.0, next.1) {
            return;
        }
    }
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

    proptest::proptest! {
        /// The weight-sorted path reads rows from their start; the general
        /// one selects from whole rows: same edges, same order.
        #[test]
        fn a_weight_sorted_view_picks_what_selection_picks(
            edges in proptest::collection::vec((0u32..24, 0u32..24, 0u8..6), 0..160),
            frontier in proptest::collection::vec(0u32..24, 0..8),
            seen_mask in proptest::prelude::any::<u32>(),
            admit_mask in proptest::prelude::any::<u32>(),
            per_vertex in proptest::option::of(0usize..6),
            heaviest in proptest::prelude::any::<bool>(),
            direction in 0usize..3,
        ) {
            let pairs: Vec<(u32, u32)> = edges.iter().map(|&(s, d, _)| (s, d)).collect();
            let weights: Vec<f64> = edges.iter().map(|&(_, _, w)| f64::from(w) / 2.0).collect();
            let plain = Graph::from_edges(24, &pairs, Some(&weights));
            let mut sorted = Graph::from_edges(24, &pairs, Some(&weights));
            sorted.sort_rows(RowOrder::by_weight(heaviest));
            let hop = EgoHop {
                per_vertex,
                direction: [Direction::Out, Direction::In, Direction::Both][direction],
                heaviest,
            };
            let seen = |v: u32| seen_mask & (1 << v) != 0;
            let admit = |v: u32| admit_mask & (1 << v) == 0 || v.is_multiple_of(3);
            proptest::prop_assert_eq!(
                ego_hop(&sorted, &frontier, hop, &seen, &admit),
                ego_hop(&plain, &frontier, hop, &seen, &admit)
            );
        }
    }
}
