//! Compressed sparse rows: the static form every multi-pass kernel reads.
//!
//! A [`Graph`] holds both directions of the same edge list (out-edges by
//! source, in-edges by target), so a kernel can follow edges either way or
//! both without rebuilding anything; the per-edge weights sit beside the
//! targets in the same order. Vertices are dense `u32` indices; what they
//! stand for (store nodes, Graphalytics ids) is the caller's business.

use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};

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
/// the neighbours of `v`, sorted ascending (ties by weight).
#[derive(Debug, Default)]
pub struct Csr {
    offsets: Vec<usize>,
    targets: Vec<u32>,
    weights: Option<Vec<f64>>,
}

impl Csr {
    pub fn neighbours(&self, v: u32) -> &[u32] {
        let v = v as usize;
        &self.targets[self.offsets[v]..self.offsets[v + 1]]
    }

    /// The weights of [`Csr::neighbours`], position for position (empty
    /// when the view was built without weights).
    pub fn weights(&self, v: u32) -> &[f64] {
        let v = v as usize;
        match &self.weights {
            Some(w) => &w[self.offsets[v]..self.offsets[v + 1]],
            None => &[],
        }
    }

    pub fn degree(&self, v: u32) -> usize {
        let v = v as usize;
        self.offsets[v + 1] - self.offsets[v]
    }

    fn bytes(&self) -> usize {
        self.offsets.len() * size_of::<usize>()
            + self.targets.len() * size_of::<u32>()
            + self
                .weights
                .as_ref()
                .map_or(0, |w| w.len() * size_of::<f64>())
    }
}

/// A directed multigraph over vertices `0..n` in both CSR directions.
#[derive(Debug, Default)]
pub struct Graph {
    n: usize,
    out: Csr,
    inc: Csr,
}

impl Graph {
    /// Builds both directions from an edge list in parallel (on the
    /// current rayon pool). `weights`, when given, has one entry per edge.
    ///
    /// Panics if an endpoint is `>= n` or the weights do not match the
    /// edges: callers map their own ids to dense indices first.
    pub fn from_edges(n: usize, edges: &[(u32, u32)], weights: Option<&[f64]>) -> Graph {
        assert!(weights.is_none_or(|w| w.len() == edges.len()));
        let (out, inc) = rayon::join(
            || build(n, edges, weights, |&(s, d)| (s, d)),
            || build(n, edges, weights, |&(s, d)| (d, s)),
        );
        Graph { n, out, inc }
    }

    pub fn vertex_count(&self) -> usize {
        self.n
    }

    pub fn edge_count(&self) -> usize {
        self.out.targets.len()
    }

    pub fn has_weights(&self) -> bool {
        self.out.weights.is_some()
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
    /// empty unless `dir` is `Both`): a tight loop over a slice is much
    /// faster than one over a chained iterator.
    pub fn slices(&self, v: u32, dir: Direction) -> [(&[u32], &[f64]); 2] {
        fn of(csr: &Csr, v: u32) -> (&[u32], &[f64]) {
            (csr.neighbours(v), csr.weights(v))
        }
        match dir {
            Direction::Out => [of(&self.out, v), (&[], &[])],
            Direction::In => [of(&self.inc, v), (&[], &[])],
            Direction::Both => [of(&self.out, v), of(&self.inc, v)],
        }
    }

    /// [`Graph::neighbours`] with each edge's weight.
    pub fn weighted(&self, v: u32, dir: Direction) -> impl Iterator<Item = (u32, f64)> + '_ {
        fn pair(csr: &Csr, v: u32) -> impl Iterator<Item = (u32, f64)> + '_ {
            csr.neighbours(v)
                .iter()
                .copied()
                .zip(csr.weights(v).iter().copied())
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

/// Rows per block of [`build`]: a block's rows are filled while its
/// targets sit in a core's cache (4,096 rows of a Kronecker graph's
/// average degree 30 hold ~0.5 MB).
const BLOCK_ROWS: usize = 1 << 12;

/// One direction in two passes, without atomic read-modify-writes:
/// 1. the edge list, cut into chunks, is bucketed by block of rows (each
///    chunk counts its edges per block, a prefix sum gives every (block,
///    chunk) run its place, each chunk writes its runs: a few hundred
///    sequential output streams instead of one random write per edge);
/// 2. each block, in parallel, counts its rows' degrees, fills its rows
///    from its bucket (a cache-sized region) and sorts each row by
///    (target, weight).
///
/// Buckets keep chunk order, so the rows come out the same for every
/// thread count; the sort then makes them independent of the input order.
fn build(
    n: usize,
    edges: &[(u32, u32)],
    weights: Option<&[f64]>,
    key: impl Fn(&(u32, u32)) -> (u32, u32) + Sync,
) -> Csr {
    let blocks = n.div_ceil(BLOCK_ROWS);
    let chunk_len = edges
        .len()
        .div_ceil(4 * rayon::current_num_threads())
        .max(1 << 16);
    let counts: Vec<Vec<usize>> = edges
        .par_chunks(chunk_len)
        .map(|chunk| {
            let mut count = vec![0usize; blocks];
            for e in chunk {
                count[key(e).0 as usize / BLOCK_ROWS] += 1;
            }
            count
        })
        .collect();
    // Runs in block order, chunks in order within a block.
    let mut run_starts = vec![vec![0usize; blocks]; counts.len()];
    let mut block_bounds = Vec::with_capacity(blocks + 1);
    let mut at = 0usize;
    for b in 0..blocks {
        block_bounds.push(at);
        for (c, count) in counts.iter().enumerate() {
            run_starts[c][b] = at;
            at += count[b];
        }
    }
    block_bounds.push(at);
    // Relaxed stores are plain stores: the atomics only let chunks write
    // their disjoint runs of one vector from several threads.
    let bucket: Vec<AtomicU64> = (0..edges.len())
        .into_par_iter()
        .map(|_| AtomicU64::new(0))
        .collect();
    let bucket_weights: Option<Vec<AtomicU64>> = weights.map(|w| {
        (0..w.len())
            .into_par_iter()
            .map(|_| AtomicU64::new(0))
            .collect()
    });
    edges
        .par_chunks(chunk_len)
        .enumerate()
        .zip(run_starts)
        .for_each(|((c, chunk), mut next)| {
            for (i, e) in chunk.iter().enumerate() {
                let (row, target) = key(e);
                let slot = &mut next[row as usize / BLOCK_ROWS];
                bucket[*slot].store(u64::from(row) << 32 | u64::from(target), Ordering::Relaxed);
                if let (Some(w), Some(bw)) = (weights, &bucket_weights) {
                    bw[*slot].store(w[c * chunk_len + i].to_bits(), Ordering::Relaxed);
                }
                *slot += 1;
            }
        });
    let mut offsets = vec![0usize; n + 1];
    offsets[n] = edges.len();
    let mut targets = vec![0u32; edges.len()];
    let mut row_weights = weights.map(|w| vec![0f64; w.len()]);
    let target_blocks = split_rows(&mut targets, &block_bounds);
    let weight_blocks: Vec<Option<&mut [f64]>> = match &mut row_weights {
        Some(w) => split_rows(w, &block_bounds).into_iter().map(Some).collect(),
        None => (0..blocks).map(|_| None).collect(),
    };
    offsets[..n]
        .par_chunks_mut(BLOCK_ROWS)
        .zip(target_blocks)
        .zip(weight_blocks)
        .enumerate()
        .for_each(|(b, ((row_offsets, targets), weights))| {
            let (lo, hi) = (block_bounds[b], block_bounds[b + 1]);
            let block = Block {
                first_row: b * BLOCK_ROWS,
                base: lo,
                bucket: &bucket[lo..hi],
                bucket_weights: bucket_weights.as_ref().map(|w| &w[lo..hi]),
            };
            block.fill(row_offsets, targets, weights);
        });
    Csr {
        offsets,
        targets,
        weights: row_weights,
    }
}

/// One block of rows of [`build`]'s second pass: its bucketed edges
/// (`row << 32 | target`) and their weights' bits.
struct Block<'a> {
    first_row: usize,
    /// Position of the block's first edge in the whole direction.
    base: usize,
    bucket: &'a [AtomicU64],
    bucket_weights: Option<&'a [AtomicU64]>,
}

impl Block<'_> {
    /// Writes the block's row offsets, its rows' targets (and weights),
    /// each row sorted by (target, weight).
    fn fill(&self, row_offsets: &mut [usize], targets: &mut [u32], weights: Option<&mut [f64]>) {
        let rows = row_offsets.len();
        let local_row = |packed: u64| (packed >> 32) as usize - self.first_row;
        let mut starts = vec![0usize; rows + 1];
        for e in self.bucket {
            starts[local_row(e.load(Ordering::Relaxed)) + 1] += 1;
        }
        for r in 0..rows {
            starts[r + 1] += starts[r];
        }
        for (offset, &start) in row_offsets.iter_mut().zip(&starts) {
            *offset = self.base + start;
        }
        let mut cursor = starts.clone();
        match (weights, self.bucket_weights) {
            (Some(weights), Some(bucket_weights)) => {
                for (e, w) in self.bucket.iter().zip(bucket_weights) {
                    let packed = e.load(Ordering::Relaxed);
                    let at = &mut cursor[local_row(packed)];
                    targets[*at] = packed as u32;
                    weights[*at] = f64::from_bits(w.load(Ordering::Relaxed));
                    *at += 1;
                }
                let mut pairs = Vec::new();
                for r in 0..rows {
                    let row = starts[r]..starts[r + 1];
                    sort_weighted_row(&mut targets[row.clone()], &mut weights[row], &mut pairs);
                }
            }
            _ => {
                for e in self.bucket {
                    let packed = e.load(Ordering::Relaxed);
                    let at = &mut cursor[local_row(packed)];
                    targets[*at] = packed as u32;
                    *at += 1;
                }
                for r in 0..rows {
                    targets[starts[r]..starts[r + 1]].sort_unstable();
                }
            }
        }
    }
}

/// `values` cut into the runs `bounds` delimits (`bounds[i]..bounds[i + 1]`).
fn split_rows<'a, T>(values: &'a mut [T], bounds: &[usize]) -> Vec<&'a mut [T]> {
    let mut rows = Vec::with_capacity(bounds.len().saturating_sub(1));
    let mut rest = values;
    for pair in bounds.windows(2) {
        let (row, tail) = rest.split_at_mut(pair[1] - pair[0]);
        rows.push(row);
        rest = tail;
    }
    rows
}

/// Sorts one row's targets and weights together by (target, weight),
/// through `pairs` (a buffer reused across rows).
fn sort_weighted_row(targets: &mut [u32], weights: &mut [f64], pairs: &mut Vec<(u32, f64)>) {
    let in_order = |a: &(u32, f64), b: &(u32, f64)| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1));
    let sorted = targets
        .windows(2)
        .zip(weights.windows(2))
        .all(|(t, w)| in_order(&(t[0], w[0]), &(t[1], w[1])).is_le());
    if sorted {
        return;
    }
    pairs.clear();
    pairs.extend(targets.iter().copied().zip(weights.iter().copied()));
    pairs.sort_unstable_by(in_order);
    for ((t, w), &(target, weight)) in targets.iter_mut().zip(weights.iter_mut()).zip(&*pairs) {
        *t = target;
        *w = weight;
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_directions_hold_every_edge_sorted_with_weights() {
        let edges = [(0, 2), (0, 1), (2, 0), (1, 2), (0, 1)];
        let weights = [1.0, 3.0, 2.0, 4.0, 0.5];
        let g = Graph::from_edges(3, &edges, Some(&weights));
        assert_eq!(g.out().neighbours(0), &[1, 1, 2]);
        assert_eq!(g.out().weights(0), &[0.5, 3.0, 1.0]);
        assert_eq!(g.inc().neighbours(2), &[0, 1]);
        assert_eq!(g.inc().weights(2), &[1.0, 4.0]);
        assert_eq!(
            g.neighbours(2, Direction::Both).collect::<Vec<_>>(),
            [0, 0, 1]
        );
        assert_eq!(g.degree(0, Direction::Both), 4);
        assert_eq!(g.edge_count(), 5);
        assert_eq!(distinct_neighbours(&g, Direction::Both)[0], [1, 2]);
    }

    /// Many blocks, many chunks, hubs and empty rows: every row holds its
    /// edges sorted by (target, weight), as a sort of the whole list gives.
    #[test]
    fn blocked_build_matches_a_sort_of_the_edge_list() {
        let n = 3 * BLOCK_ROWS + 5;
        let mut state = 7u64;
        let mut next = move |below: usize| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) as usize % below) as u32
        };
        let edges: Vec<(u32, u32)> = (0..300_000)
            .map(|i| match i % 7 {
                0 => (5, next(n)),
                1 => (next(n), 2 * BLOCK_ROWS as u32 + 1),
                _ => (next(n / 2) * 2, next(n)),
            })
            .collect();
        let weights: Vec<f64> = (0..edges.len()).map(|_| f64::from(next(9))).collect();
        let g = Graph::from_edges(n, &edges, Some(&weights));
        for (csr, flip) in [(g.out(), false), (g.inc(), true)] {
            let mut expected: Vec<(u32, u32, f64)> = edges
                .iter()
                .zip(&weights)
                .map(|(&(s, d), &w)| if flip { (d, s, w) } else { (s, d, w) })
                .collect();
            expected.sort_by(|a, b| (a.0, a.1).cmp(&(b.0, b.1)).then(a.2.total_cmp(&b.2)));
            let got: Vec<(u32, u32, f64)> = (0..n as u32)
                .flat_map(|v| {
                    csr.neighbours(v)
                        .iter()
                        .zip(csr.weights(v))
                        .map(move |(&t, &w)| (v, t, w))
                })
                .collect();
            assert_eq!(got, expected);
        }
        let plain = Graph::from_edges(n, &edges, None);
        for v in 0..n as u32 {
            assert_eq!(plain.out().neighbours(v), g.out().neighbours(v));
            assert_eq!(plain.inc().neighbours(v), g.inc().neighbours(v));
        }
    }
}
