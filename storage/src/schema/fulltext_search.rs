//! Full-text queries through an index: candidates from the postings
//! (module `fulltext_postings`), each decided in the reader's view (the
//! entity carries one of the index's labels and its values as this reader
//! sees them match the query), scored by BM25 and ordered best first.
//! Because writers add postings before they commit and nothing a snapshot
//! may read is removed, the answer is exactly what analyzing every entity
//! of the labels would give: a transaction sees its own uncommitted text,
//! others only after commit, a snapshot stays stable, a rollback leaves
//! nothing (docs/adr/0125-full-text-indexes-on-the-store.md).

use super::fulltext_postings::{analyze_value, FulltextPostings};
use super::image::entity_values;
use super::index::PropertyIndex;
use crate::txn::Reader;
use nereid_fulltext::{Doc, Query};
use std::ops::Bound;

/// The entities of `index` that match `query` in `reader`'s view, with
/// their scores, best first (ties by entity id).
pub(crate) fn search(
    reader: &Reader<'_>,
    index: &PropertyIndex,
    postings: &FulltextPostings,
    query: &Query,
) -> Vec<(u64, f64)> {
    let mut candidates = Vec::new();
    if query.matches_all() {
        index.scan(Bound::Unbounded, Bound::Unbounded, false, |_, entity| {
            candidates.push(entity);
            true
        });
    } else {
        for leaf in query.positive_leaves() {
            for at in postings.fields_of(leaf.field.as_deref()) {
                postings.candidates(at, &leaf.matcher, &mut candidates);
            }
        }
    }
    candidates.sort_unstable();
    candidates.dedup();
    let mut hits: Vec<(u64, f64)> = candidates
        .into_iter()
        .filter_map(|entity| {
            let doc = document(reader, index, postings, entity)?;
            Some((entity, query.score(&doc, postings)?))
        })
        .collect();
    hits.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    hits
}

/// `entity` as the index sees it in `reader`'s view: its string (and
/// string list) values of the index's keys, analyzed; `None` when it is not in the index there.
fn document(
    reader: &Reader<'_>,
    index: &PropertyIndex,
    postings: &FulltextPostings,
    entity: u64,
) -> Option<Doc> {
    let values = entity_values(reader, index, entity)?;
    let fields: Vec<_> = index
        .def
        .keys
        .iter()
        .zip(values)
        .filter_map(|(key, value)| Some((key.clone(), analyze_value(postings.analyzer, &value)?)))
        .collect();
    (!fields.is_empty()).then_some(Doc { fields })
}
