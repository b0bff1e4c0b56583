//! Vector queries through a transaction: the `k` entities of a vector index
//! nearest a query vector, in this transaction's view (its own writes
//! included; module `schema::vector_search`).

use super::Txn;
use crate::error::{Result, StorageError};
use crate::schema::{nearest, EntityKind, IndexKind};
use nereid_values::Value;
use nereid_vector::Vector;

/// The most neighbours one query may ask for: beyond it an answer is no
/// longer a search but a dump, and the heap would be sized by the caller.
pub const MAX_NEIGHBOURS: i64 = 1 << 20;

impl Txn {
    /// The `k` entities (node or relationship ids, as `entity` says) of the
    /// vector index `name` most similar to `query`, best first, with their
    /// scores. Refused (nothing read) when there is no such online index,
    /// `k` is not in `1..=MAX_NEIGHBOURS`, or `query` is not a vector of the
    /// index's dimensions valid for its similarity. Only entities `accept`
    /// (given the entity and its score) passes are answers: the search
    /// widens while fewer than `k` pass (a filtered search).
    pub fn vector_query(
        &self,
        name: &str,
        entity: EntityKind,
        k: i64,
        query: &Value,
        accept: &mut dyn FnMut(u64, f64) -> bool,
    ) -> Result<Vec<(u64, f64)>> {
        self.query_vectors(name, entity, k, query, None, accept)
    }

    /// [`Txn::vector_query`] answered from `candidates` only, each decided
    /// in this view and scored exactly: a pre-filtered search, for a caller
    /// that knows every entity `accept` can pass is among them (from a
    /// label or a property index) and that they are few enough to score
    /// them all rather than walk the graph.
    pub fn vector_query_among(
        &self,
        name: &str,
        entity: EntityKind,
        k: i64,
        query: &Value,
        candidates: &[u64],
        accept: &mut dyn FnMut(u64, f64) -> bool,
    ) -> Result<Vec<(u64, f64)>> {
        self.query_vectors(name, entity, k, query, Some(candidates), accept)
    }

    fn query_vectors(
        &self,
        name: &str,
        entity: EntityKind,
        k: i64,
        query: &Value,
        among: Option<&[u64]>,
        accept: &mut dyn FnMut(u64, f64) -> bool,
    ) -> Result<Vec<(u64, f64)>> {
        let refused = |m: String| StorageError::VectorQueryRefused(m);
        let catalog = self.store.schema.catalog();
        let index = catalog
            .index_named(name)
            .filter(|i| i.def.entity == entity && i.def.kind.is_vector())
            .ok_or_else(|| refused(format!("There is no such vector schema index: {name}")))?;
        let IndexKind::Vector {
            dimensions,
            similarity,
        } = index.def.kind
        else {
            return Err(refused(format!(
                "There is no such vector schema index: {name}"
            )));
        };
        if !index.is_online() {
            return Err(refused(format!(
                "Index `{name}` is not online yet; wait for it with db.awaitIndex"
            )));
        }
        if !(1..=MAX_NEIGHBOURS).contains(&k) {
            return Err(refused(format!(
                "Invalid input for 'numberOfNearestNeighbours': {k}; it must be between 1 and {MAX_NEIGHBOURS}"
            )));
        }
        let vector = Vector::from_value(query)
            .map_err(|e| refused(format!("Invalid query vector: {e}")))?
            .ok_or_else(|| refused("Invalid query vector: null".into()))?;
        if let Some(d) = dimensions {
            if vector.len() != d as usize {
                return Err(refused(format!(
                    "Index query vector has {} dimensions, but indexed vectors have {d}.",
                    vector.len()
                )));
            }
        }
        similarity
            .check(&vector)
            .map_err(|e| refused(format!("Invalid query vector: {e}")))?;
        index
            .reads
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        Ok(nearest(
            &self.reader(),
            index,
            similarity,
            k as usize,
            &vector,
            among,
            accept,
        ))
    }
}
