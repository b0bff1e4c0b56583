//! The approximate nearest-neighbour graph behind a vector index, behind a
//! trait of our own so that the store never meets the library: `hnsw_rs`
//! has no delete or update and exits the process on bad files or more than
//! 256 connections (reference/dependencies.md §3.4). So points are only
//! ever added (a replaced or deleted vector stays, and the store decides
//! every answer in the reader's view), the connection count is ours and
//! fixed, and nothing is ever loaded from a file: a graph is built from the
//! store at start-up.

use crate::Similarity;
use hnsw_rs::anndists::dist::{DistDot, DistL2, Distance};
use hnsw_rs::hnsw::Hnsw;

/// Neighbours per node per layer (`M`; Neo4j's default for `vector.hnsw.m`).
pub const CONNECTIONS: usize = 16;
/// Candidates kept while inserting (`efConstruction`; Neo4j's default).
pub const EF_CONSTRUCTION: usize = 100;
const MAX_LAYERS: usize = 16;

/// An approximate nearest-neighbour graph over points numbered by the
/// caller. Insertion and search may run on many threads at once.
pub trait AnnGraph: Send + Sync {
    /// Adds `vector` as point `point` (numbers are never reused).
    fn insert(&self, point: usize, vector: &[f32]);
    /// About the `k` points nearest `query`, nearest first, searching with
    /// `ef` candidates (at least `k`).
    fn search(&self, query: &[f32], k: usize, ef: usize) -> Vec<usize>;
}

/// A new HNSW graph ranking by `similarity`, sized for about `expected`
/// points (a hint; it grows past it).
pub fn hnsw(similarity: Similarity, expected: usize) -> Box<dyn AnnGraph> {
    match similarity {
        Similarity::Cosine => Box::new(HnswGraph::new(DistDot {}, true, expected)),
        Similarity::Euclidean => Box::new(HnswGraph::new(DistL2 {}, false, expected)),
    }
}

/// Under cosine, points and queries are normalised once and ranked by
/// their dot product: the same order as the cosine, without computing two
/// norms per distance.
struct HnswGraph<D: Distance<f32> + Send + Sync> {
    graph: Hnsw<'static, f32, D>,
    normalise: bool,
}

impl<D: Distance<f32> + Send + Sync> HnswGraph<D> {
    fn new(distance: D, normalise: bool, expected: usize) -> Self {
        HnswGraph {
            normalise,
            graph: Hnsw::new(
                CONNECTIONS,
                expected.max(1024),
                MAX_LAYERS,
                EF_CONSTRUCTION,
                distance,
            ),
        }
    }
}

impl<D: Distance<f32> + Send + Sync> AnnGraph for HnswGraph<D> {
    fn insert(&self, point: usize, vector: &[f32]) {
        if self.normalise {
            self.graph.insert_slice((&normalised(vector), point));
        } else {
            self.graph.insert_slice((vector, point));
        }
    }

    fn search(&self, query: &[f32], k: usize, ef: usize) -> Vec<usize> {
        let normal;
        let query = if self.normalise {
            normal = normalised(query);
            &normal
        } else {
            query
        };
        self.graph
            .search(query, k, ef.max(k))
            .into_iter()
            .map(|n| n.d_id)
            .collect()
    }
}

/// `v / |v|` (a vector a cosine index holds is never zero).
fn normalised(v: &[f32]) -> Vec<f32> {
    let norm = v.iter().map(|x| *x as f64 * *x as f64).sum::<f64>().sqrt();
    v.iter().map(|x| (*x as f64 / norm) as f32).collect()
}
