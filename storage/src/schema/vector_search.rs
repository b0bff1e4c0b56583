//! Nearest neighbours through a vector index. Exactly, every entry is a
//! candidate; through the approximate graph (module `vector_ann`), the
//! graph's nearest points are. Either way each candidate is decided in the reader's view (the entity has the label and a
//! vector the index accepts *as this reader sees it*), scored, and the `k`
//! best kept. Because writers add entries before they commit and stale
//! entries go only once no snapshot needs them, the answer is exactly what
//! scoring every entity of the label would give: a transaction sees its own
//! uncommitted vectors, others only after commit, a snapshot stays stable,
//! a rollback leaves nothing (docs/adr/0097-vector-search-in-transactions.md).

use super::image::{check_vector, resolved_values, Resolved};
use super::index::PropertyIndex;
use super::vector_ann::{fingerprint, VectorAnn};
use crate::txn::Reader;
use nereid_vector::{Similarity, Vector};
use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashSet};
use std::ops::Bound;

/// One scored entity; the heap's order puts the worst on top (lowest
/// score, then the larger id), so it can be evicted.
#[derive(PartialEq)]
struct Scored(f64, u64);

impl Eq for Scored {}

impl Ord for Scored {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .0
            .total_cmp(&self.0)
            .then_with(|| self.1.cmp(&other.1))
    }
}

impl PartialOrd for Scored {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// The `k` entities of `index` most similar to `query` in `reader`'s view,
/// best first (ties by entity id), with their scores: among the caller's
/// candidates exactly when it gives them (a pre-filter), else through the
/// index's approximate graph when it has one, else exactly.
pub(crate) fn nearest(
    reader: &Reader<'_>,
    index: &PropertyIndex,
    similarity: Similarity,
    k: usize,
    query: &Vector,
    among: Option<&[u64]>,
    accept: &mut dyn FnMut(u64, f64) -> bool,
) -> Vec<(u64, f64)> {
    let search = Search {
        reader,
        index,
        resolved: Resolved::of(reader.store, index).into_owned(),
        similarity,
        k,
        query,
    };
    match (among, &index.ann) {
        (Some(candidates), _) => search.among(candidates, accept),
        (None, Some(ann)) => search.through(ann, accept),
        (None, None) => search.exact(accept),
    }
}

/// Candidates the graph's search keeps at the bottom layer at least
/// (`ef`); recall@10 at such widths: benches/RESULTS.md.
const SEARCH_WIDTH: usize = 100;

/// One query's inputs.
struct Search<'a> {
    reader: &'a Reader<'a>,
    index: &'a PropertyIndex,
    resolved: Resolved,
    similarity: Similarity,
    k: usize,
    query: &'a Vector,
}

impl Search<'_> {
    /// Every vector a reader can see is a point of the graph; the graph's
    /// nearest points are decided and scored in the reader's view, and the
    /// search widened while stale points crowd out `k` visible ones.
    fn through(
        &self,
        ann: &VectorAnn,
        accept: &mut dyn FnMut(u64, f64) -> bool,
    ) -> Vec<(u64, f64)> {
        let points = ann.len();
        let mut wanted = self.k;
        loop {
            let mut best = Best::new(self.k);
            let ef = (2 * wanted).max(SEARCH_WIDTH);
            // An entity whose vector was set twice to the same value has two
            // points with the current fingerprint: it counts once.
            let mut current = HashSet::new();
            for (entity, point) in ann.candidates(self.query.as_slice(), wanted, ef) {
                // A stale point (the entity's vector replaced since) is
                // skipped: the current vector has a point of its own.
                if !current.contains(&entity) && self.offer(&mut best, entity, Some(point), accept)
                {
                    current.insert(entity);
                }
            }
            if best.len() >= self.k {
                return best.into_sorted();
            }
            if wanted >= points {
                // Fewer than `k` visible, or the graph missed some: be exact.
                return self.exact(accept);
            }
            wanted = (wanted * 4).min(points);
        }
    }

    /// Every entry decided and scored.
    fn exact(&self, accept: &mut dyn FnMut(u64, f64) -> bool) -> Vec<(u64, f64)> {
        let mut best = Best::new(self.k);
        self.index
            .scan(Bound::Unbounded, Bound::Unbounded, false, |_, entity| {
                self.offer(&mut best, entity, None, accept);
                true
            });
        best.into_sorted()
    }

    /// Each of `candidates` (duplicates once) decided and scored.
    fn among(
        &self,
        candidates: &[u64],
        accept: &mut dyn FnMut(u64, f64) -> bool,
    ) -> Vec<(u64, f64)> {
        let mut best = Best::new(self.k);
        let mut previous = None;
        let mut sorted;
        let candidates = if candidates.is_sorted() {
            candidates
        } else {
            sorted = candidates.to_vec();
            sorted.sort_unstable();
            &sorted[..]
        };
        for &entity in candidates {
            if previous != Some(entity) {
                self.offer(&mut best, entity, None, accept);
            }
            previous = Some(entity);
        }
        best.into_sorted()
    }

    /// Scores `entity` into `best` if it has a vector in the reader's view
    /// (with the fingerprint `point`, when given) and `accept` passes it.
    /// Whether that vector was there (offered, accepted or not).
    fn offer(
        &self,
        best: &mut Best,
        entity: u64,
        point: Option<u64>,
        accept: &mut dyn FnMut(u64, f64) -> bool,
    ) -> bool {
        let Some(vector) = vector_of(self.reader, self.index, &self.resolved, entity) else {
            return false;
        };
        if vector.len() != self.query.len()
            || point.is_some_and(|p| p != fingerprint(vector.as_slice()))
        {
            return false;
        }
        let score = self
            .similarity
            .score(vector.as_slice(), self.query.as_slice());
        if accept(entity, score) {
            best.offer(score, entity);
        }
        true
    }
}

/// `entity`'s vector as `reader` sees it; `None` unless it has the index's
/// label and a vector the index accepts in that view.
fn vector_of(
    reader: &Reader<'_>,
    index: &PropertyIndex,
    resolved: &Resolved,
    entity: u64,
) -> Option<Vector> {
    let values = resolved_values(reader, index, resolved, entity)?;
    check_vector(index.def.kind, &values[0]).ok()
}

/// The `k` best scores offered so far.
struct Best {
    k: usize,
    heap: BinaryHeap<Scored>,
}

impl Best {
    fn new(k: usize) -> Self {
        Best {
            k,
            heap: BinaryHeap::with_capacity(k.min(4096) + 1),
        }
    }

    fn offer(&mut self, score: f64, entity: u64) {
        self.heap.push(Scored(score, entity));
        if self.heap.len() > self.k {
            self.heap.pop();
        }
    }

    fn len(&self) -> usize {
        self.heap.len()
    }

    fn into_sorted(self) -> Vec<(u64, f64)> {
        let mut out: Vec<(u64, f64)> = self.heap.into_iter().map(|Scored(s, e)| (e, s)).collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        out
    }
}
