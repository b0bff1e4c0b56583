//! The approximate nearest-neighbour graph behind a vector index, behind a
//! trait of our own so that the store sees only points and vectors: points
//! are only ever added (a replaced or deleted vector stays, and the store
//! decides every answer in the reader's view), and nothing is ever loaded
//! from a file: a graph is built from the store at start-up. The graph is
//! our own HNSW (module `hnsw`, docs/adr/0122-our-own-hnsw.md).

use crate::hnsw::Graph;
use crate::Similarity;

/// Neighbours per node per layer (`M`; Neo4j's default for `vector.hnsw.m`).
pub const CONNECTIONS: usize = 16;
/// Candidates kept while inserting (`efConstruction`; Neo4j's default).
pub const EF_CONSTRUCTION: usize = 100;

/// An approximate nearest-neighbour graph over points numbered by the
/// caller. Insertion and search may run on many threads at once.
pub trait AnnGraph: Send + Sync {
    /// Adds `vector` as point `point` (numbers are never reused).
    fn insert(&self, point: usize, vector: &[f32]);
    /// About the `k` points nearest `query`, nearest first, searching with
    /// `ef` candidates (at least `k`).
    fn search(&self, query: &[f32], k: usize, ef: usize) -> Vec<usize>;
}

/// A new HNSW graph ranking by `similarity`. `expected` (a size hint) is
/// not needed: the graph grows by chunks.
pub fn hnsw(similarity: Similarity, _expected: usize) -> Box<dyn AnnGraph> {
    let normalise = similarity == Similarity::Cosine;
    Box::new(HnswGraph {
        graph: Graph::new(normalise, CONNECTIONS, EF_CONSTRUCTION),
        normalise,
    })
}

/// Under cosine, points and queries are normalised once and ranked by
/// their dot product: the same order as the cosine, without computing two
/// norms per distance.
struct HnswGraph {
    graph: Graph,
    normalise: bool,
}

impl AnnGraph for HnswGraph {
    fn insert(&self, point: usize, vector: &[f32]) {
        if self.normalise {
            self.graph.insert(point, &normalised(vector));
        } else {
            self.graph.insert(point, vector);
        }
    }

    fn search(&self, query: &[f32], k: usize, ef: usize) -> Vec<usize> {
        if self.normalise {
            self.graph.search(&normalised(query), k, ef.max(k))
        } else {
            self.graph.search(query, k, ef.max(k))
        }
    }
}

/// `v / |v|` (a vector a cosine index holds is never zero).
fn normalised(v: &[f32]) -> Vec<f32> {
    let norm = v.iter().map(|x| *x as f64 * *x as f64).sum::<f64>().sqrt();
    v.iter().map(|x| (*x as f64 / norm) as f32).collect()
}
