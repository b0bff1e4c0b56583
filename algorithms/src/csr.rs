//! Compressed sparse rows: the static form every multi-pass kernel reads.
//!
//! A [`Graph`] holds both directions of the same edge list (out-edges by
//! source, in-edges by target), so a kernel can follow edges either way or
//! both without rebuilding anything; the per-edge weights sit beside the
//! targets in the same order, in 4 bytes when every weight is a single-
//! precision value and in 8 otherwise. Vertices are dense `u32` indices;
//! what they stand for (store nodes, Graphalytics ids) is the caller's
//! business.

use crate::csr_build::{build_direction, Pieces, Reversed, Rows};
use crate::weight_order::RowOrder;
use rayon::prelude::*;

/// One piece of an edge list as dense index pairs, and their weights
/// (empty when there are none): what a view reads from one grid cell.
pub type CellEdges = (Vec<(u32, u32)>, Vec<f64>);

/// Which edges a kernel follows from a vertex.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    Out,
    In,
    Both,
}

impl Direction {
    /// The direction that walks the same edges backwards.
    pub fn reverse(self) -> Direction {
        match self {
            Direction::Out => Direction::In,
            Direction::In => Direction::Out,
            Direction::Both => Direction::Both,
        }
    }
}

/// One direction's adjacency: `targets[offsets[v]..offsets[v + 1]]` are
/// the neighbours of `v`, sorted ascending (ties by weight), or in the
/// weight order its graph's [`Graph::row_order`] names.
#[derive(Debug, Default)]
pub struct Csr {
    pub(crate) offsets: Vec<usize>,
    pub(crate) targets: Vec<u32>,
    pub(crate) weights: WeightColumn,
}

/// A direction's weights: none, or one per edge in the narrowest float
/// that holds every weight exactly.
#[derive(Debug, Default)]
pub(crate) enum WeightColumn {
    #[default]
    None,
    Single(Vec<f32>),
    Double(Vec<f64>),
}

/// One row's weights, position for position with its targets.
#[derive(Copy, Clone, Debug)]
pub enum Weights<'a> {
    None,
    Single(&'a [f32]),
    Double(&'a [f64]),
}

impl<'a> Weights<'a> {
    pub fn len(self) -> usize {
        match self {
            Weights::None => 0,
            Weights::Single(w) => w.len(),
            Weights::Double(w) => w.len(),
        }
    }

    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    pub fn get(self, i: usize) -> f64 {
        match self {
            Weights::None => panic!("a row without weights"),
            Weights::Single(w) => f64::from(w[i]),
            Weights::Double(w) => w[i],
        }
    }

    pub fn iter(self) -> impl Iterator<Item = f64> + 'a {
        (0..self.len()).map(move |i| self.get(i))
    }

    /// Calls `visit` with each of `targets` and its weight (nothing when
    /// the row has no weights), deciding the width once per row: the inner
    /// loop stays as tight as over a plain slice.
    pub fn each(self, targets: &[u32], mut visit: impl FnMut(u32, f64)) {
        match self {
            Weights::None => {}
            Weights::Single(w) => {
                for (&t, &w) in targets.iter().zip(w) {
                    visit(t, f64::from(w));
                }
            }
            Weights::Double(w) => {
                for (&t, &w) in targets.iter().zip(w) {
                    visit(t, w);
                }
            }
        }
    }
}

impl Csr {
    pub fn neighbours(&self, v: u32) -> &[u32] {
        let v = v as usize;
        &self.targets[self.offsets[v]..self.offsets[v + 1]]
    }

    /// The weights of [`Csr::neighbours`], position for position
    /// ([`Weights::None`] when the view was built without weights).
    pub fn weights(&self, v: u32) -> Weights<'_> {
        let row = self.offsets[v as usize]..self.offsets[v as usize + 1];
        match &self.weights {
            WeightColumn::None => Weights::None,
            WeightColumn::Single(w) => Weights::Single(&w[row]),
            WeightColumn::Double(w) => Weights::Double(&w[row]),
        }
    }

    pub fn degree(&self, v: u32) -> usize {
        let v = v as usize;
        self.offsets[v + 1] - self.offsets[v]
    }

    fn bytes(&self) -> usize {
        let weights = match &self.weights {
            WeightColumn::None => 0,
            WeightColumn::Single(w) => w.len() * size_of::<f32>(),
            WeightColumn::Double(w) => w.len() * size_of::<f64>(),
        };
        self.offsets.len() * size_of::<usize>() + self.targets.len() * size_of::<u32>() + weights
    }
}

/// A directed multigraph over vertices `0..n` in both CSR directions.
#[derive(Debug, Default)]
pub struct Graph {
    n: usize,
    out: Csr,
    inc: Csr,
    order: RowOrder,
    /// [`Graph::heaviest_integer_weight`], found on first use.
    heaviest_integer: std::sync::OnceLock<Option<u32>>,
}

impl Graph {
    /// Builds both directions from an edge list in parallel (on the
    /// current rayon pool). `weights`, when given, has one entry per edge.
    ///
    /// Panics if an endpoint is `>= n` or the weights do not match the
    /// edges: callers map their own ids to dense indices first.
    pub fn from_edges(n: usize, edges: &[(u32, u32)], weights: Option<&[f64]>) -> Graph {
        Graph::from_pieces(n, &[edges], weights.map(|w| [w]).as_ref().map(|w| &w[..]))
    }

    /// [`Graph::from_edges`] over an edge list in pieces (the view's
    /// cells), read where they lie: never concatenated. The directions are
    /// built one after the other, each in parallel, so only one
    /// direction's transient arrays are alive at a time. Weights are kept
    /// in single precision when every one of them is a single-precision
    /// value (integers up to 2^24, halves, ...), else in double.
    pub fn from_pieces(n: usize, edges: &[&[(u32, u32)]], weights: Option<&[&[f64]]>) -> Graph {
        let out = out_direction(n, edges, weights, Rows::ByTarget);
        let inc = reversed(&out);
        Graph::of_directions(n, out, inc)
    }

    /// [`Graph::from_pieces`] over pieces it owns (the view's cells: an
    /// edge list with its weights, which are empty when there are none),
    /// freed as soon as the out-direction is built: the in-direction, built
    /// from that one, then reuses their memory rather than fresh pages.
    /// Rows end in `order`; a weight order sorts each out-row once, by
    /// weight (not by target first: the weight order's ties are broken by
    /// target, so the first sort would be undone).
    pub fn from_cells(n: usize, cells: Vec<CellEdges>, weighted: bool, order: RowOrder) -> Graph {
        let by_weight = weighted && order != RowOrder::Target;
        let out = {
            let edges: Vec<&[(u32, u32)]> = cells.iter().map(|(e, _)| &e[..]).collect();
            let weights: Option<Vec<&[f64]>> =
                weighted.then(|| cells.iter().map(|(_, w)| &w[..]).collect());
            let rows = if by_weight {
                Rows::LeftForLater
            } else {
                Rows::ByTarget
            };
            out_direction(n, &edges, weights.as_deref(), rows)
        };
        drop(cells);
        let inc = reversed(&out);
        let mut graph = Graph::of_directions(n, out, inc);
        graph.sort_rows(order);
        graph
    }

    /// A graph of two built directions, rows by target.
    fn of_directions(n: usize, out: Csr, inc: Csr) -> Graph {
        Graph {
            n,
            out,
            inc,
            order: RowOrder::Target,
            heaviest_integer: std::sync::OnceLock::new(),
        }
    }

    /// The largest weight when every weight is a non-negative integer
    /// that a `u32` holds (`Some(0)` without edges); `None` otherwise or
    /// without weights. Found once per graph, in parallel.
    pub(crate) fn heaviest_integer_weight(&self) -> Option<u32> {
        *self
            .heaviest_integer
            .get_or_init(|| match &self.out.weights {
                WeightColumn::None => None,
                WeightColumn::Single(w) => heaviest_integer(w),
                WeightColumn::Double(w) => heaviest_integer(w),
            })
    }

    /// How the rows of both directions are ordered.
    pub fn row_order(&self) -> RowOrder {
        self.order
    }

    pub(crate) fn set_row_order(&mut self, order: RowOrder) {
        self.order = order;
    }

    pub(crate) fn directions_mut(&mut self) -> (&mut Csr, &mut Csr) {
        (&mut self.out, &mut self.inc)
    }

    pub fn vertex_count(&self) -> usize {
        self.n
    }

    pub fn edge_count(&self) -> usize {
        self.out.targets.len()
    }

    pub fn has_weights(&self) -> bool {
        !matches!(self.out.weights, WeightColumn::None)
    }

    pub fn out(&self) -> &Csr {
        &self.out
    }

    pub fn inc(&self) -> &Csr {
        &self.inc
    }

    /// Memory held by the adjacency arrays.
    pub fn bytes(&self) -> usize {
        self.out.bytes() + self.inc.bytes()
    }

    /// Neighbours of `v` in `dir` (for `Both`, out then in; an edge in
    /// both directions appears twice).
    pub fn neighbours(&self, v: u32, dir: Direction) -> impl Iterator<Item = u32> + '_ {
        let (first, second): (&[u32], &[u32]) = match dir {
            Direction::Out => (self.out.neighbours(v), &[]),
            Direction::In => (self.inc.neighbours(v), &[]),
            Direction::Both => (self.out.neighbours(v), self.inc.neighbours(v)),
        };
        first.iter().chain(second).copied()
    }

    /// The neighbours of `v` in `dir` as at most two slices (the second
    /// empty unless `dir` is `Both`), each with its weights: a tight loop
    /// over a slice is much faster than one over a chained iterator.
    pub fn slices(&self, v: u32, dir: Direction) -> [(&[u32], Weights<'_>); 2] {
        fn of(csr: &Csr, v: u32) -> (&[u32], Weights<'_>) {
            (csr.neighbours(v), csr.weights(v))
        }
        const NONE: (&[u32], Weights<'_>) = (&[], Weights::None);
        match dir {
            Direction::Out => [of(&self.out, v), NONE],
            Direction::In => [of(&self.inc, v), NONE],
            Direction::Both => [of(&self.out, v), of(&self.inc, v)],
        }
    }

    /// [`Graph::neighbours`] with each edge's weight.
    pub fn weighted(&self, v: u32, dir: Direction) -> impl Iterator<Item = (u32, f64)> + '_ {
        fn pair(csr: &Csr, v: u32) -> impl Iterator<Item = (u32, f64)> + '_ {
            csr.neighbours(v).iter().copied().zip(csr.weights(v).iter())
        }
        let (first, second) = match dir {
            Direction::Out => (pair(&self.out, v), None),
            Direction::In => (pair(&self.inc, v), None),
            Direction::Both => (pair(&self.out, v), Some(pair(&self.inc, v))),
        };
        first.chain(second.into_iter().flatten())
    }

    pub fn degree(&self, v: u32, dir: Direction) -> usize {
        match dir {
            Direction::Out => self.out.degree(v),
            Direction::In => self.inc.degree(v),
            Direction::Both => self.out.degree(v) + self.inc.degree(v),
        }
    }
}

/// The largest of `weights` when all are non-negative integers that a
/// `u32` holds (0 when empty), else `None`.
fn heaviest_integer<T: Copy + Into<f64> + Sync>(weights: &[T]) -> Option<u32> {
    weights
        .par_chunks(1 << 16)
        .map(|chunk| {
            chunk.iter().try_fold(0u32, |most, &w| {
                let w: f64 = w.into();
                (w >= 0.0 && w.fract() == 0.0 && w <= f64::from(u32::MAX))
                    .then(|| most.max(w as u32))
            })
        })
        .try_reduce(|| 0, |a, b| Some(a.max(b)))
}

/// Each vertex's distinct neighbours in `dir` other than itself, sorted:
/// the simple-graph view triangle counting and clustering need.
pub fn distinct_neighbours(graph: &Graph, dir: Direction) -> Vec<Vec<u32>> {
    (0..graph.vertex_count() as u32)
        .into_par_iter()
        .map(|v| {
            let mut set: Vec<u32> = graph.neighbours(v, dir).filter(|&w| w != v).collect();
            set.sort_unstable();
            set.dedup();
            set
        })
        .collect()
}

/// The out-direction of edges in pieces, weights in single precision when
/// every one of them is a single-precision value.
fn out_direction(n: usize, edges: &[&[(u32, u32)]], weights: Option<&[&[f64]]>, rows: Rows) -> Csr {
    assert!(weights.is_none_or(
        |w| w.len() == edges.len() && w.iter().zip(edges).all(|(w, e)| w.len() == e.len())
    ));
    let single = weights.is_some_and(|pieces| {
        pieces
            .par_iter()
            .all(|w| w.iter().all(|&w| f64::from(w as f32) == w))
    });
    let pieces = Pieces::new(edges, weights, false, rows);
    match (weights, single) {
        (None, _) | (Some(_), true) => build_direction::<f32>(n, &pieces),
        (Some(_), false) => build_direction::<f64>(n, &pieces),
    }
}

/// The in-direction of the edges `out` holds, in the same weight width:
/// read row by row, so every row comes out sorted (no sort pass).
fn reversed(out: &Csr) -> Csr {
    let n = out.offsets.len() - 1;
    match out.weights {
        WeightColumn::Double(_) => build_direction::<f64>(n, &Reversed::new(out)),
        _ => build_direction::<f32>(n, &Reversed::<f32>::new(out)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr_build::MIN_BLOCK_ROWS as BLOCK_ROWS;

    fn row_weights(csr: &Csr, v: u32) -> Vec<f64> {
        csr.weights(v).iter().collect()
    }

    #[test]
    fn both_directions_hold_every_edge_sorted_with_weights() {
        let edges = [(0, 2), (0, 1), (2, 0), (1, 2), (0, 1)];
        let weights = [1.0, 3.0, 2.0, 4.0, 0.5];
        let g = Graph::from_edges(3, &edges, Some(&weights));
        assert_eq!(g.out().neighbours(0), &[1, 1, 2]);
        assert_eq!(row_weights(g.out(), 0), [0.5, 3.0, 1.0]);
        assert_eq!(g.inc().neighbours(2), &[0, 1]);
        assert_eq!(row_weights(g.inc(), 2), [1.0, 4.0]);
        assert_eq!(
            g.neighbours(2, Direction::Both).collect::<Vec<_>>(),
            [0, 0, 1]
        );
        assert_eq!(g.degree(0, Direction::Both), 4);
        assert_eq!(g.edge_count(), 5);
        assert_eq!(distinct_neighbours(&g, Direction::Both)[0], [1, 2]);
    }

    /// Weights that single precision holds exactly take 4 bytes; one that
    /// it does not keeps every weight in 8, unrounded.
    #[test]
    fn weights_are_narrowed_only_when_exact() {
        let edges = [(0, 1), (1, 0)];
        let narrow = Graph::from_edges(2, &edges, Some(&[3.0, 0.5]));
        assert!(matches!(narrow.out().weights(0), Weights::Single(_)));
        assert_eq!(narrow.bytes(), 2 * (3 * 8 + 2 * 4 + 2 * 4));
        let wide = Graph::from_edges(2, &edges, Some(&[3.0, 0.1]));
        assert!(matches!(wide.out().weights(0), Weights::Double(_)));
        assert_eq!(row_weights(wide.out(), 1), [0.1]);
        assert_eq!(row_weights(wide.inc(), 0), [0.1]);
        let plain = Graph::from_edges(2, &edges, None);
        assert!(!plain.has_weights() && plain.out().weights(0).is_empty());
    }

    /// Many blocks, many pieces, hubs and empty rows: every row holds its
    /// edges sorted by (target, weight), as a sort of the whole list gives,
    /// however the list is cut into pieces.
    #[test]
    fn blocked_build_matches_a_sort_of_the_edge_list() {
        let n = 3 * BLOCK_ROWS + 5;
        let mut seeded = crate::seeded_below(7);
        let mut next = move |below: usize| seeded(below as u32);
        let edges: Vec<(u32, u32)> = (0..300_000)
            .map(|i| match i % 7 {
                0 => (5, next(n)),
                1 => (next(n), 2 * BLOCK_ROWS as u32 + 1),
                _ => (next(n / 2) * 2, next(n)),
            })
            .collect();
        let exact: Vec<f64> = (0..edges.len()).map(|_| f64::from(next(9))).collect();
        let inexact: Vec<f64> = exact.iter().map(|w| w / 7.0).collect();
        for weights in [&exact, &inexact] {
            let g = Graph::from_edges(n, &edges, Some(weights));
            let cuts = [0, 1, 1, 70_000, 70_001, 200_000, edges.len()];
            let pieces: Vec<&[(u32, u32)]> = cuts.windows(2).map(|c| &edges[c[0]..c[1]]).collect();
            let weight_pieces: Vec<&[f64]> =
                cuts.windows(2).map(|c| &weights[c[0]..c[1]]).collect();
            let cut = Graph::from_pieces(n, &pieces, Some(&weight_pieces));
            let cells = pieces
                .iter()
                .zip(&weight_pieces)
                .map(|(e, w)| (e.to_vec(), w.to_vec()))
                .collect();
            let owned = Graph::from_cells(n, cells, true, RowOrder::Target);
            for (csr, flip) in [
                (g.out(), false),
                (g.inc(), true),
                (cut.out(), false),
                (owned.out(), false),
                (owned.inc(), true),
            ] {
                let mut expected: Vec<(u32, u32, f64)> = edges
                    .iter()
                    .zip(weights)
                    .map(|(&(s, d), &w)| if flip { (d, s, w) } else { (s, d, w) })
                    .collect();
                expected.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)).then(a.2.total_cmp(&b.2)));
                let got: Vec<(u32, u32, f64)> = (0..n as u32)
                    .flat_map(|v| {
                        csr.neighbours(v)
                            .iter()
                            .zip(csr.weights(v).iter())
                            .map(move |(&t, w)| (v, t, w))
                    })
                    .collect();
                assert_eq!(got, expected);
            }
            let plain = Graph::from_edges(n, &edges, None);
            for v in 0..n as u32 {
                assert_eq!(plain.out().neighbours(v), g.out().neighbours(v));
                assert_eq!(plain.inc().neighbours(v), g.inc().neighbours(v));
                assert_eq!(cut.inc().neighbours(v), g.inc().neighbours(v));
                assert_eq!(row_weights(cut.inc(), v), row_weights(g.inc(), v));
            }
        }
    }

    /// A weight-ordered view sorts its out-rows once, by weight; the rows
    /// are those of a target-ordered build sorted again.
    #[test]
    fn weight_ordered_cells_match_a_target_build_sorted_again() {
        let n = 300u32;
        let mut next = crate::seeded_below(5);
        let cells: Vec<CellEdges> = (0..5)
            .map(|_| {
                let edges: Vec<(u32, u32)> = (0..2_000)
                    .map(|i| {
                        if i % 7 == 0 {
                            (3, next(n))
                        } else {
                            (next(n), next(n))
                        }
                    })
                    .collect();
                let weights = edges.iter().map(|_| f64::from(next(6)) / 2.0).collect();
                (edges, weights)
            })
            .collect();
        for order in [RowOrder::HeaviestFirst, RowOrder::LightestFirst] {
            let once = Graph::from_cells(n as usize, cells.clone(), true, order);
            let mut twice = Graph::from_cells(n as usize, cells.clone(), true, RowOrder::Target);
            twice.sort_rows(order);
            assert_eq!(once.row_order(), order);
            for (a, b) in [(once.out(), twice.out()), (once.inc(), twice.inc())] {
                assert_eq!(a.offsets, b.offsets);
                assert_eq!(a.targets, b.targets);
                for v in 0..n {
                    assert_eq!(row_weights(a, v), row_weights(b, v));
                }
            }
        }
    }
}
