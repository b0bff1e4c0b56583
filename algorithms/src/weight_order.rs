//! Rows sorted by weight: the weight-sorted CSR of the Poseidon paper's
//! EgoNet experiment (§7), where taking a vertex's `k` heaviest (or
//! lightest) edges is reading the first `k` of its row instead of
//! selecting them from all of it.
//!
//! Only the egonet asks for it (as its own cached view, [`ViewSpec`]'s
//! `row_order`): every other kernel relies on rows sorted by target
//! (triangle counting merges rows, similarity intersects them).
//!
//! [`ViewSpec`]: crate::ViewSpec

use crate::csr::{Csr, Graph, WeightColumn};
use crate::csr_build::{sort_row_pairs, Weight};
use rayon::prelude::*;
use std::cmp::Ordering;

/// How a view's rows are ordered.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum RowOrder {
    /// By target, then weight: what every kernel but the egonet reads.
    #[default]
    Target,
    /// By weight descending, then target ascending.
    HeaviestFirst,
    /// By weight ascending, then target ascending.
    LightestFirst,
}

impl RowOrder {
    /// The weight-sorted order that puts the edges a top-`k` pick wants
    /// first.
    pub fn by_weight(heaviest: bool) -> RowOrder {
        if heaviest {
            RowOrder::HeaviestFirst
        } else {
            RowOrder::LightestFirst
        }
    }

    /// Compares two `(target, weight)` edges of one row in this order.
    pub(crate) fn compare(self, a: (u32, f64), b: (u32, f64)) -> Ordering {
        match self {
            RowOrder::Target => a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)),
            RowOrder::HeaviestFirst => b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)),
            RowOrder::LightestFirst => a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)),
        }
    }
}

/// Edges per parallel task at least: small rows are sorted in batches.
const MIN_TASK_EDGES: usize = 1 << 16;

impl Graph {
    /// Re-sorts every row of both directions into `order` (a graph without
    /// weights keeps its rows: there is nothing to order them by).
    pub(crate) fn sort_rows(&mut self, order: RowOrder) {
        if order == RowOrder::Target || !self.has_weights() {
            return;
        }
        let (out, inc) = self.directions_mut();
        sort_direction(out, order);
        sort_direction(inc, order);
        self.set_row_order(order);
    }
}

fn sort_direction(csr: &mut Csr, order: RowOrder) {
    let offsets = &csr.offsets;
    match &mut csr.weights {
        WeightColumn::None => {}
        WeightColumn::Single(w) => sort_rows_of(offsets, &mut csr.targets, w, order),
        WeightColumn::Double(w) => sort_rows_of(offsets, &mut csr.targets, w, order),
    }
}

/// Sorts each row `offsets` delimits, in parallel over runs of whole rows.
fn sort_rows_of<W: Packed>(
    offsets: &[usize],
    targets: &mut [u32],
    weights: &mut [W],
    order: RowOrder,
) {
    let n = offsets.len() - 1;
    // Runs of rows cut where the edges before them pass a multiple of the
    // task size, so that one long row or many short ones make one task.
    let mut bounds = vec![0usize];
    let mut last_cut = 0usize;
    for (row, &offset) in offsets.iter().enumerate().take(n).skip(1) {
        if offset - last_cut >= MIN_TASK_EDGES {
            bounds.push(row);
            last_cut = offset;
        }
    }
    bounds.push(n);
    let mut runs = Vec::with_capacity(bounds.len() - 1);
    let (mut rest_t, mut rest_w) = (targets, weights);
    for pair in bounds.windows(2) {
        let len = offsets[pair[1]] - offsets[pair[0]];
        let (t, tail_t) = std::mem::take(&mut rest_t).split_at_mut(len);
        let (w, tail_w) = std::mem::take(&mut rest_w).split_at_mut(len);
        runs.push((pair[0], pair[1], t, w));
        rest_t = tail_t;
        rest_w = tail_w;
    }
    runs.into_par_iter()
        .for_each_init(Buffers::default, |buffers, (first, end, t, w)| {
            let base = offsets[first];
            for row in first..end {
                let range = offsets[row] - base..offsets[row + 1] - base;
                sort_row(&mut t[range.clone()], &mut w[range], order, buffers);
            }
        });
}

/// One row's targets and weights sorted together into `order`, through
/// `buffers` (reused across rows): as packed integer keys when the
/// weights are single precision, by comparing pairs otherwise.
fn sort_row<W: Packed>(
    targets: &mut [u32],
    weights: &mut [W],
    order: RowOrder,
    buffers: &mut Buffers<W>,
) {
    if targets.len() < 2 {
        return;
    }
    let keys = &mut buffers.keys;
    if W::pack_row(targets, weights, order, keys) {
        keys.sort_unstable();
        for ((t, w), &key) in targets.iter_mut().zip(weights.iter_mut()).zip(&*keys) {
            (*t, *w) = W::unpack_key(key, order);
        }
        return;
    }
    sort_row_pairs(targets, weights, &mut buffers.pairs, |a, b| {
        order.compare((a.0, a.1.widen()), (b.0, b.1.widen()))
    });
}

/// A weight width's packing of a row into integer keys (see [`pack`]).
trait Packed: Weight {
    /// Fills `keys` with the row's keys; false when this width does not
    /// fit beside a target (the row is then sorted by comparing pairs).
    fn pack_row(targets: &[u32], weights: &[Self], order: RowOrder, keys: &mut Vec<u64>) -> bool;
    fn unpack_key(key: u64, order: RowOrder) -> (u32, Self);
}

impl Packed for f32 {
    fn pack_row(targets: &[u32], weights: &[f32], order: RowOrder, keys: &mut Vec<u64>) -> bool {
        keys.clear();
        keys.extend(
            targets
                .iter()
                .zip(weights)
                .map(|(&t, &w)| pack(t, w, order)),
        );
        true
    }
    fn unpack_key(key: u64, order: RowOrder) -> (u32, f32) {
        unpack(key, order)
    }
}

impl Packed for f64 {
    fn pack_row(_: &[u32], _: &[f64], _: RowOrder, _: &mut Vec<u64>) -> bool {
        false
    }
    fn unpack_key(key: u64, order: RowOrder) -> (u32, f64) {
        let (target, weight) = unpack(key, order);
        (target, f64::from(weight))
    }
}

/// A worker's buffers, reused from row to row.
#[derive(Default)]
struct Buffers<W> {
    /// Packed (weight, target) keys, for weights that fit beside a target.
    keys: Vec<u64>,
    pairs: Vec<(u32, W)>,
}

/// `w`'s bits mapped so that unsigned order is `f32::total_cmp`'s.
fn ordered_bits(w: f32) -> u32 {
    let bits = w.to_bits();
    if bits >> 31 == 1 {
        !bits
    } else {
        bits | 1 << 31
    }
}

/// The inverse of [`ordered_bits`].
fn from_ordered_bits(bits: u32) -> f32 {
    f32::from_bits(if bits >> 31 == 1 {
        bits & !(1 << 31)
    } else {
        !bits
    })
}

/// Row keys for a single-precision row: the weight's ordered bits (negated
/// for heaviest first) above the target, so that sorting plain integers
/// sorts the row (much cheaper than a comparator over float pairs).
fn pack(target: u32, weight: f32, order: RowOrder) -> u64 {
    let bits = ordered_bits(weight);
    let bits = if order == RowOrder::HeaviestFirst {
        !bits
    } else {
        bits
    };
    u64::from(bits) << 32 | u64::from(target)
}

/// The inverse of [`pack`].
fn unpack(key: u64, order: RowOrder) -> (u32, f32) {
    let bits = (key >> 32) as u32;
    let bits = if order == RowOrder::HeaviestFirst {
        !bits
    } else {
        bits
    };
    (key as u32, from_ordered_bits(bits))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::Direction;

    #[test]
    fn rows_sorted_by_weight_keep_every_edge_and_break_ties_by_target() {
        let edges = [(0, 3), (0, 1), (0, 2), (0, 4), (2, 0), (3, 0), (4, 0)];
        let weights = [2.0, 5.0, 2.0, 0.5, 7.0, 7.0, 1.5];
        let mut g = Graph::from_edges(5, &edges, Some(&weights));
        assert_eq!(g.row_order(), RowOrder::Target);
        g.sort_rows(RowOrder::HeaviestFirst);
        assert_eq!(g.row_order(), RowOrder::HeaviestFirst);
        let out: Vec<(u32, f64)> = g.weighted(0, Direction::Out).collect();
        assert_eq!(out, [(1, 5.0), (2, 2.0), (3, 2.0), (4, 0.5)]);
        let inc: Vec<(u32, f64)> = g.weighted(0, Direction::In).collect();
        assert_eq!(inc, [(2, 7.0), (3, 7.0), (4, 1.5)]);
        g.sort_rows(RowOrder::LightestFirst);
        let out: Vec<(u32, f64)> = g.weighted(0, Direction::Out).collect();
        assert_eq!(out, [(4, 0.5), (2, 2.0), (3, 2.0), (1, 5.0)]);
    }

    #[test]
    fn a_graph_without_weights_keeps_its_target_order() {
        let mut g = Graph::from_edges(3, &[(0, 2), (0, 1)], None);
        g.sort_rows(RowOrder::HeaviestFirst);
        assert_eq!(g.row_order(), RowOrder::Target);
        assert_eq!(g.out().neighbours(0), &[1, 2]);
    }

    #[test]
    fn rows_longer_than_a_task_and_many_short_ones_are_all_sorted() {
        // One row past the task size, then many rows of three.
        let long = MIN_TASK_EDGES as u32 + 10;
        let mut edges: Vec<(u32, u32)> = (0..long).map(|t| (0, t % 1000 + 1)).collect();
        edges.extend((1..1000u32).flat_map(|v| [(v, 0), (v, 1000 - v), (v, v)]));
        let weights: Vec<f64> = (0..edges.len())
            .map(|i| ((i * 7919) % 101) as f64)
            .collect();
        let mut g = Graph::from_edges(1001, &edges, Some(&weights));
        g.sort_rows(RowOrder::HeaviestFirst);
        for v in 0..1001u32 {
            for dir in [Direction::Out, Direction::In] {
                let row: Vec<(u32, f64)> = g.weighted(v, dir).collect();
                assert!(row
                    .windows(2)
                    .all(|p| RowOrder::HeaviestFirst.compare(p[0], p[1]).is_le()));
            }
        }
        assert_eq!(g.edge_count(), edges.len());
    }

    #[test]
    fn packed_keys_sort_as_the_order_compares_and_unpack_exactly() {
        let weights = [
            -3.5f32,
            -0.0,
            0.0,
            1.0e-30,
            2.5,
            f32::INFINITY,
            f32::NEG_INFINITY,
            7.0,
        ];
        for order in [RowOrder::HeaviestFirst, RowOrder::LightestFirst] {
            let mut edges: Vec<(u32, f32)> = Vec::new();
            for (i, &w) in weights.iter().enumerate() {
                edges.push((i as u32 * 3 % 5, w));
                edges.push((u32::MAX - i as u32, w));
            }
            let mut by_keys: Vec<u64> = edges.iter().map(|&(t, w)| pack(t, w, order)).collect();
            by_keys.sort_unstable();
            let by_keys: Vec<(u32, f32)> = by_keys.iter().map(|&k| unpack(k, order)).collect();
            let mut by_compare = edges.clone();
            by_compare.sort_by(|a, b| order.compare((a.0, f64::from(a.1)), (b.0, f64::from(b.1))));
            let bits =
                |v: &[(u32, f32)]| v.iter().map(|&(t, w)| (t, w.to_bits())).collect::<Vec<_>>();
            assert_eq!(bits(&by_keys), bits(&by_compare), "{order:?}");
        }
    }

    #[test]
    fn double_precision_rows_are_sorted_by_comparing_pairs() {
        let edges = [(0, 1), (0, 2), (0, 3)];
        let weights = [0.1, 0.30000000000000004, 0.3];
        let mut g = Graph::from_edges(4, &edges, Some(&weights));
        g.sort_rows(RowOrder::HeaviestFirst);
        let out: Vec<(u32, f64)> = g.weighted(0, Direction::Out).collect();
        assert_eq!(out, [(2, 0.30000000000000004), (3, 0.3), (1, 0.1)]);
    }
}
