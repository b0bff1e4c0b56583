//! Single-source shortest paths over non-negative weights: delta-stepping
//! (Meyer and Sanders, 2003) and a frontier-driven Bellman-Ford, both
//! label-correcting and parallel. Tentative distances are atomic cells
//! (`sssp_distance.rs`): 4-byte integers when the weights allow it exactly,
//! `f64` bits otherwise.
//!
//! Both compute, for every vertex, the least sum along any path, each sum
//! taken edge by edge from the source, so they agree bit for bit with
//! Dijkstra's algorithm.

use crate::csr::{Direction, Graph};
use crate::error::AlgorithmError;
use crate::sssp_distance::{fits_exact32, Distance, Exact32, Float64};
use crate::stop::Stop;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};

/// The distance of every vertex from `source` (`f64::INFINITY` where no
/// path leads). Parents are derived on request ([`ShortestPaths::parents`]):
/// a pass over every edge that a caller wanting distances only (the
/// kernels' most common call, and GAPBS's measure) does not pay.
#[derive(Debug, Clone, PartialEq)]
pub struct ShortestPaths {
    pub distance: Vec<f64>,
    source: u32,
    dir: Direction,
}

impl ShortestPaths {
    /// For each reached vertex an in-neighbour (along the run's direction)
    /// whose distance plus the edge's weight gives its own; `u32::MAX` for
    /// the unreached and for the source. `graph` is the one the run read.
    pub fn parents(&self, graph: &Graph) -> Vec<u32> {
        let distance = &self.distance;
        let back = self.dir.reverse();
        (0..distance.len() as u32)
            .into_par_iter()
            .map(|v| {
                if v == self.source || distance[v as usize].is_infinite() {
                    return u32::MAX;
                }
                graph
                    .weighted(v, back)
                    .find(|&(u, w)| distance[u as usize] + w == distance[v as usize])
                    .map_or(u32::MAX, |(u, _)| u)
            })
            .collect()
    }
}

/// Delta-stepping: vertices wait in buckets of width `delta` by tentative
/// distance; the lowest non-empty bucket is relaxed in parallel until it
/// stays empty, then the next. The graph must carry weights.
pub fn delta_stepping(
    graph: &Graph,
    source: u32,
    dir: Direction,
    delta: f64,
    stop: Stop,
) -> Result<ShortestPaths, AlgorithmError> {
    if fits_exact32(graph) {
        delta_stepping_in::<Exact32>(graph, source, dir, delta, stop)
    } else {
        delta_stepping_in::<Float64>(graph, source, dir, delta, stop)
    }
}

fn delta_stepping_in<D: Distance>(
    graph: &Graph,
    source: u32,
    dir: Direction,
    delta: f64,
    stop: Stop,
) -> Result<ShortestPaths, AlgorithmError> {
    let dist = distances::<D>(graph.vertex_count(), source);
    let bucket_of = |d: D::Value| (D::widen(d) / delta) as u64;
    let mut buckets = Buckets::new(source);
    while let Some((current, waiting)) = buckets.pop_first() {
        stop.check()?;
        let frontier: Vec<u32> = waiting
            .into_iter()
            .filter(|&v| bucket_of(dist[v as usize].get()) == current)
            .collect();
        if frontier.is_empty() {
            continue;
        }
        // Relaxing can refill the current bucket: it comes back first.
        for (d, v) in relax(graph, dir, &frontier, &dist) {
            buckets.push(bucket_of(d).max(current), v);
        }
    }
    Ok(finish(dir, source, dist))
}

/// Buckets held densely within [`WINDOW`] of the lowest one a run has
/// reached, sparsely past it: integer weights with a delta of 1 put
/// nearly every relaxed vertex a few buckets ahead (a map lookup per
/// vertex there was a large part of a run), while distances far beyond
/// `delta` would make one dense list huge.
struct Buckets {
    /// Bucket `base + i` is `near[i]`.
    base: u64,
    near: std::collections::VecDeque<Vec<u32>>,
    far: BTreeMap<u64, Vec<u32>>,
}

/// Buckets held densely ahead of the lowest one.
const WINDOW: u64 = 1 << 10;

impl Buckets {
    fn new(source: u32) -> Buckets {
        Buckets {
            base: 0,
            near: std::collections::VecDeque::from([vec![source]]),
            far: BTreeMap::new(),
        }
    }

    /// Files `v` under bucket `b` (never below the one last popped).
    fn push(&mut self, b: u64, v: u32) {
        debug_assert!(b >= self.base);
        let i = b - self.base;
        if i >= WINDOW {
            self.far.entry(b).or_default().push(v);
            return;
        }
        self.near_mut(i as usize).push(v);
    }

    /// Bucket `base + i`, the window grown to hold it (`i < WINDOW`).
    fn near_mut(&mut self, i: usize) -> &mut Vec<u32> {
        if i >= self.near.len() {
            self.near.resize_with(i + 1, Vec::new);
        }
        &mut self.near[i]
    }

    /// The lowest non-empty bucket and its vertices. The bucket stays
    /// the window's first (emptied) until the next call, so relaxing it
    /// can file vertices under it again.
    fn pop_first(&mut self) -> Option<(u64, Vec<u32>)> {
        loop {
            match self.near.front_mut() {
                Some(front) if !front.is_empty() => {
                    return Some((self.base, std::mem::take(front)));
                }
                Some(_) => {
                    self.near.pop_front();
                    self.base += 1;
                    continue;
                }
                None => {}
            }
            // The window is empty: it moves to the next far bucket, taking
            // every far bucket inside it along.
            let (&first, _) = self.far.first_key_value()?;
            self.base = first;
            while let Some(entry) = self.far.first_entry() {
                if *entry.key() - first >= WINDOW {
                    break;
                }
                let (b, vertices) = entry.remove_entry();
                *self.near_mut((b - first) as usize) = vertices;
            }
        }
    }
}

/// Bellman-Ford restricted to the vertices whose distance changed in the
/// previous round.
pub fn bellman_ford(
    graph: &Graph,
    source: u32,
    dir: Direction,
    stop: Stop,
) -> Result<ShortestPaths, AlgorithmError> {
    if fits_exact32(graph) {
        bellman_ford_in::<Exact32>(graph, source, dir, stop)
    } else {
        bellman_ford_in::<Float64>(graph, source, dir, stop)
    }
}

fn bellman_ford_in<D: Distance>(
    graph: &Graph,
    source: u32,
    dir: Direction,
    stop: Stop,
) -> Result<ShortestPaths, AlgorithmError> {
    let n = graph.vertex_count();
    let dist = distances::<D>(n, source);
    let queued: Vec<AtomicBool> = (0..n)
        .into_par_iter()
        .map(|_| AtomicBool::new(false))
        .collect();
    let mut frontier = vec![source];
    while !frontier.is_empty() {
        stop.check()?;
        let improved = relax(graph, dir, &frontier, &dist);
        frontier = improved
            .into_iter()
            .filter(|&(_, v)| !queued[v as usize].swap(true, Ordering::Relaxed))
            .map(|(_, v)| v)
            .collect();
        frontier
            .par_iter()
            .for_each(|&v| queued[v as usize].store(false, Ordering::Relaxed));
    }
    Ok(finish(dir, source, dist))
}

fn distances<D: Distance>(n: usize, source: u32) -> Vec<D> {
    let dist: Vec<D> = (0..n).into_par_iter().map(|_| D::unreached()).collect();
    dist[source as usize].set(D::ZERO);
    dist
}

/// Frontiers smaller than this are relaxed on the calling thread: with a
/// small delta most buckets hold a handful of vertices, and splitting them
/// over the pool would cost more than the work.
const SEQUENTIAL_BELOW: usize = 256;

/// Relaxes every edge out of `frontier`; the vertices whose distance went
/// down, with the distance they got.
fn relax<D: Distance>(
    graph: &Graph,
    dir: Direction,
    frontier: &[u32],
    dist: &[D],
) -> Vec<(D::Value, u32)> {
    let relax_from = |mut improved: Vec<(D::Value, u32)>, &u: &u32| {
        let du = dist[u as usize].get();
        for (targets, weights) in graph.slices(u, dir) {
            weights.each(targets, |w, weight| {
                let candidate = D::add(du, weight);
                // A plain load first: most edges do not improve their
                // target, and a read costs far less than the locked
                // read-modify-write the minimum takes.
                let cell = &dist[w as usize];
                if candidate >= cell.get() {
                    return;
                }
                if cell.lower(candidate) {
                    improved.push((candidate, w));
                }
            });
        }
        improved
    };
    if frontier.len() < SEQUENTIAL_BELOW {
        return frontier.iter().fold(Vec::new(), relax_from);
    }
    frontier
        .par_iter()
        .fold(Vec::new, relax_from)
        .reduce(Vec::new, crate::concat)
}

/// Final distances.
fn finish<D: Distance>(dir: Direction, source: u32, dist: Vec<D>) -> ShortestPaths {
    let distance: Vec<f64> = dist.into_par_iter().map(|d| D::widen(d.get())).collect();
    ShortestPaths {
        distance,
        source,
        dir,
    }
}

/// The vertices of one shortest path from `source` to `target` (both
/// included), or `None` when `target` is unreached. Among the shortest
/// paths it takes one with the fewest edges: a breadth-first search from
/// `source` over the tight edges (`distance[u] + w == distance[v]`), which
/// cannot loop where zero-weight edges tie, as following the kernels'
/// parents could. Sequential and stopped at `target`: a path is asked for
/// a few targets, after the parallel kernel has done the real work.
pub fn shortest_path(
    graph: &Graph,
    dir: Direction,
    source: u32,
    target: u32,
    distance: &[f64],
) -> Option<Vec<u32>> {
    if distance[target as usize].is_infinite() {
        return None;
    }
    let mut parent = vec![u32::MAX; distance.len()];
    parent[source as usize] = source;
    let mut frontier = std::collections::VecDeque::from([source]);
    while let Some(u) = frontier.pop_front() {
        if u == target {
            break;
        }
        for (v, w) in graph.weighted(u, dir) {
            if parent[v as usize] == u32::MAX && distance[u as usize] + w == distance[v as usize] {
                parent[v as usize] = u;
                frontier.push_back(v);
            }
        }
    }
    if parent[target as usize] == u32::MAX {
        return None;
    }
    let mut path = vec![target];
    while let Some(&last) = path.last().filter(|&&v| v != source) {
        path.push(parent[last as usize]);
    }
    path.reverse();
    Some(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Dijkstra with a binary heap, the model both must agree with.
    fn dijkstra(graph: &Graph, source: u32, dir: Direction) -> Vec<f64> {
        use std::cmp::Reverse;
        let mut dist = vec![f64::INFINITY; graph.vertex_count()];
        let mut heap = std::collections::BinaryHeap::from([Reverse((0u64, source))]);
        dist[source as usize] = 0.0;
        while let Some(Reverse((bits, v))) = heap.pop() {
            if f64::from_bits(bits) > dist[v as usize] {
                continue;
            }
            for (w, weight) in graph.weighted(v, dir) {
                let candidate = dist[v as usize] + weight;
                if candidate < dist[w as usize] {
                    dist[w as usize] = candidate;
                    heap.push(Reverse((candidate.to_bits(), w)));
                }
            }
        }
        dist
    }

    #[test]
    fn both_agree_with_dijkstra_on_a_random_graph() {
        let n = 500u32;
        let g = crate::random_graph(n, 4000, 99);
        for dir in [Direction::Out, Direction::Both] {
            let expected = dijkstra(&g, 3, dir);
            // Deltas of 0.001 and 0.01 put most buckets past the dense
            // window (weights up to 27), 2.0 keeps them inside it.
            for paths in [
                delta_stepping(&g, 3, dir, 2.0, Stop::NEVER).unwrap(),
                delta_stepping(&g, 3, dir, 0.01, Stop::NEVER).unwrap(),
                delta_stepping(&g, 3, dir, 0.001, Stop::NEVER).unwrap(),
                bellman_ford(&g, 3, dir, Stop::NEVER).unwrap(),
            ] {
                assert_eq!(paths.distance, expected);
                for target in 0..n {
                    let Some(path) = shortest_path(&g, dir, 3, target, &paths.distance) else {
                        assert!(expected[target as usize].is_infinite());
                        continue;
                    };
                    assert_eq!((path[0], *path.last().unwrap()), (3, target));
                    // Each step is an edge, and their weights add up, one
                    // by one from the source, to the distance.
                    let mut sum = 0.0;
                    for step in path.windows(2) {
                        let weight = g
                            .weighted(step[0], dir)
                            .filter(|&(w, _)| w == step[1])
                            .map(|(_, wt)| wt)
                            .fold(f64::INFINITY, f64::min);
                        sum += weight;
                        assert_eq!(sum, expected[step[1] as usize]);
                    }
                }
                let parents = paths.parents(&g);
                for v in 0..n as usize {
                    let p = parents[v];
                    if p != u32::MAX {
                        assert!(g
                            .weighted(p, dir)
                            .any(|(w, wt)| w as usize == v
                                && expected[p as usize] + wt == expected[v]));
                    }
                }
            }
        }
    }

    #[test]
    fn integer_weights_give_the_distances_dijkstra_gives() {
        // Integer weights (4-byte distances) and the same graph with one
        // weight too heavy for them (the general cells): both exact.
        let n = 400u32;
        let g = crate::random_graph(n, 3000, 7);
        let edges: Vec<(u32, u32)> = (0..n)
            .flat_map(|v| g.out().neighbours(v).iter().map(move |&t| (v, t)))
            .collect();
        let mut weights: Vec<f64> = (0..n)
            .flat_map(|v| g.out().weights(v).iter().collect::<Vec<_>>())
            .map(f64::floor)
            .collect();
        for heavy in [false, true] {
            if heavy {
                weights[0] = 4.0e7;
            }
            let g = Graph::from_edges(n as usize, &edges, Some(&weights));
            assert_eq!(crate::sssp_distance::fits_exact32(&g), !heavy);
            for dir in [Direction::Out, Direction::In] {
                let expected = dijkstra(&g, 5, dir);
                assert_eq!(
                    delta_stepping(&g, 5, dir, 1.0, Stop::NEVER)
                        .unwrap()
                        .distance,
                    expected
                );
                assert_eq!(
                    delta_stepping(&g, 5, dir, 16.0, Stop::NEVER)
                        .unwrap()
                        .distance,
                    expected
                );
                assert_eq!(
                    bellman_ford(&g, 5, dir, Stop::NEVER).unwrap().distance,
                    expected
                );
            }
        }
    }
}
