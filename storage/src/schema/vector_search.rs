//! Nearest neighbours through a vector index, exactly: every entry is a
//! candidate, decided in the reader's view (the entity has the label and a
//! vector the index accepts *as this reader sees it*), scored, and the `k`
//! best kept. Because writers add entries before they commit and stale
//! entries go only once no snapshot needs them, the answer is exactly what
//! scoring every entity of the label would give: a transaction sees its own
//! uncommitted vectors, others only after commit, a snapshot stays stable,
//! a rollback leaves nothing (docs/adr/0097-vector-search-in-transactions.md).

use super::image::{check_vector, resolved_values, Resolved};
use super::index::PropertyIndex;
use crate::txn::Reader;
use nereid_vector::{Similarity, Vector};
use std::cmp::Ordering;
use std::collections::BinaryHeap;
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
/// best first (ties by entity id), with their scores.
pub(crate) fn nearest(
    reader: &Reader<'_>,
    index: &PropertyIndex,
    similarity: Similarity,
    k: usize,
    query: &Vector,
) -> Vec<(u64, f64)> {
    let resolved = Resolved::of(reader.store, index);
    let mut best: BinaryHeap<Scored> = BinaryHeap::with_capacity(k.min(4096) + 1);
    index.scan(Bound::Unbounded, Bound::Unbounded, false, |_, entity| {
        let Some(values) = resolved_values(reader, index, &resolved, entity) else {
            return true;
        };
        let Ok(vector) = check_vector(index.def.kind, &values[0]) else {
            return true;
        };
        if vector.len() != query.len() {
            return true;
        }
        let score = similarity.score(vector.as_slice(), query.as_slice());
        best.push(Scored(score, entity));
        if best.len() > k {
            best.pop();
        }
        true
    });
    let mut out: Vec<(u64, f64)> = best.into_iter().map(|Scored(s, e)| (e, s)).collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    out
}
