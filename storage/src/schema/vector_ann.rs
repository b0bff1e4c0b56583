//! The approximate graph of a vector index with fixed dimensions: every
//! vector ever given an indexed entity (committed or not, later replaced
//! or deleted) is a point, numbered in insertion order, with the entity it
//! was written to. Like the index's entries it is a superset of what any
//! snapshot reads; a query takes the graph's candidates and decides and
//! scores each in the reader's view (module `vector_search`), so a stale
//! point can cost time, never a wrong answer. Nothing is removed: the graph
//! is rebuilt from the store at start-up (docs/adr/0101-hnsw-behind-the-exact-path.md).

use super::defs::IndexKind;
use nereid_vector::{hnsw, AnnGraph, CONNECTIONS};
use parking_lot::RwLock;

pub(crate) struct VectorAnn {
    graph: Box<dyn AnnGraph>,
    /// The index's fixed dimensions (memory accounting).
    dimensions: usize,
    /// Point number -> the entity and the fingerprint of the vector it
    /// was given: a point is *live* for a reader only while the entity's
    /// vector in its view has that fingerprint.
    entities: RwLock<Vec<(u64, u64)>>,
}

impl VectorAnn {
    /// The graph of an index of `kind`: only a vector index with fixed
    /// dimensions has one (vectors of different lengths share no space;
    /// such an index is searched exactly).
    pub(crate) fn for_kind(kind: IndexKind) -> Option<VectorAnn> {
        let IndexKind::Vector {
            dimensions: Some(dimensions),
            similarity,
        } = kind
        else {
            return None;
        };
        Some(VectorAnn {
            graph: hnsw(similarity, 1024),
            dimensions: dimensions as usize,
            entities: RwLock::new(Vec::new()),
        })
    }

    /// Adds `vector`, just written to `entity` (already checked against the
    /// index). The point is numbered before it is linked in, so a search
    /// never meets a point without its entity.
    pub(crate) fn insert(&self, entity: u64, vector: &[f32]) {
        let point = {
            let mut entities = self.entities.write();
            entities.push((entity, fingerprint(vector)));
            entities.len() - 1
        };
        self.graph.insert(point, vector);
    }

    /// Points ever added (stale ones included).
    pub(crate) fn len(&self) -> usize {
        self.entities.read().len()
    }

    /// Bytes the graph takes, estimated per point: its vector's copy,
    /// the links of its bottom layer (twice [`CONNECTIONS`], a 16-byte
    /// neighbour each) and its entity and fingerprint. Upper layers hold
    /// a small fraction of the points and are left out.
    pub(crate) fn approximate_bytes(&self) -> usize {
        let per_point = self.dimensions * size_of::<f32>() + 2 * CONNECTIONS * 16 + 16;
        self.len() * per_point
    }

    /// The entities and vector fingerprints of about the `k` points
    /// nearest `query`, nearest first.
    pub(crate) fn candidates(&self, query: &[f32], k: usize, ef: usize) -> Vec<(u64, u64)> {
        let points = self.graph.search(query, k, ef);
        let entities = self.entities.read();
        points
            .into_iter()
            .filter_map(|p| entities.get(p).copied())
            .collect()
    }
}

/// A vector's fingerprint: a hash of its elements' bits (SipHash with
/// fixed keys, so equal vectors agree across threads and runs).
pub(crate) fn fingerprint(vector: &[f32]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    for x in vector {
        x.to_bits().hash(&mut hasher);
    }
    hasher.finish()
}
