//! Compressed sparse rows: the static form every multi-pass kernel reads.
//!
//! A [`Graph`] holds both directions of the same edge list (out-edges by
//! source, in-edges by target), so a kernel can follow edges either way or
//! both without rebuilding anything; the per-edge weights sit beside the
//! targets in the same order. Vertices are dense `u32` indices; what they
//! stand for (store nodes, Graphalytics ids) is the caller's business.

use rayon::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

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

/// One direction: counts degrees, scatters edge numbers into their rows,
/// sorts each row, then gathers targets and weights.
fn build(
    n: usize,
    edges: &[(u32, u32)],
    weights: Option<&[f64]>,
    key: impl Fn(&(u32, u32)) -> (u32, u32) + Sync,
) -> Csr {
    let degree: Vec<AtomicUsize> = (0..n)
        .into_par_iter()
        .map(|_| AtomicUsize::new(0))
        .collect();
    edges.par_iter().for_each(|e| {
        degree[key(e).0 as usize].fetch_add(1, Ordering::Relaxed);
    });
    let mut offsets = Vec::with_capacity(n + 1);
    let mut total = 0usize;
    offsets.push(0);
    for d in &degree {
        total += d.load(Ordering::Relaxed);
        offsets.push(total);
    }
    // Reuse the counters as per-row cursors.
    degree
        .par_iter()
        .zip(&offsets[..n])
        .for_each(|(cursor, &start)| cursor.store(start, Ordering::Relaxed));
    let slots: Vec<AtomicUsize> = (0..edges.len())
        .into_par_iter()
        .map(|_| AtomicUsize::new(0))
        .collect();
    edges.par_iter().enumerate().for_each(|(i, e)| {
        let at = degree[key(e).0 as usize].fetch_add(1, Ordering::Relaxed);
        slots[at].store(i, Ordering::Relaxed);
    });
    let mut order: Vec<usize> = slots.into_par_iter().map(AtomicUsize::into_inner).collect();
    // Sort each row by (target, weight) so that results do not depend on
    // the scatter's thread interleaving.
    let mut rows: Vec<&mut [usize]> = Vec::with_capacity(n);
    let mut rest = order.as_mut_slice();
    for v in 0..n {
        let (row, tail) = rest.split_at_mut(offsets[v + 1] - offsets[v]);
        rows.push(row);
        rest = tail;
    }
    let weight_of = |i: usize| weights.map_or(0.0, |w| w[i]);
    rows.into_par_iter().for_each(|row| {
        row.sort_unstable_by(|&a, &b| {
            key(&edges[a])
                .1
                .cmp(&key(&edges[b]).1)
                .then(weight_of(a).total_cmp(&weight_of(b)))
        });
    });
    let targets = order.par_iter().map(|&i| key(&edges[i]).1).collect();
    let weights = weights.map(|w| order.par_iter().map(|&i| w[i]).collect());
    Csr {
        offsets,
        targets,
        weights,
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
}
