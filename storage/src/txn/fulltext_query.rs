//! Full-text queries through a transaction: the entities of a full-text
//! index matching a Lucene query, in this transaction's view (its own
//! writes included; module `schema::fulltext_search`).

use super::Txn;
use crate::error::{Result, StorageError};
use crate::schema::{fulltext_search, EntityKind, IndexKind};
use nereid_fulltext::{Analyzer, Query};

/// How a full-text query's answer is cut: `analyzer` (by Neo4j's name)
/// analyzes the query instead of the index's own.
#[derive(Clone, Debug, Default)]
pub struct FulltextOptions {
    pub skip: usize,
    pub limit: Option<usize>,
    pub analyzer: Option<String>,
}

impl Txn {
    /// The entities (node or relationship ids, as `entity` says) of the
    /// full-text index `name` matching `query`, best first, with their
    /// scores. Refused (nothing read) when there is no such online index,
    /// the analyzer is unknown or the query is not Lucene syntax.
    pub fn fulltext_query(
        &self,
        name: &str,
        entity: EntityKind,
        query: &str,
        options: &FulltextOptions,
    ) -> Result<Vec<(u64, f64)>> {
        let refused = |m: String| StorageError::FulltextQueryRefused(m);
        let catalog = self.store.schema.catalog();
        let index = catalog
            .index_named(name)
            .filter(|i| i.def.kind.is_fulltext())
            .ok_or_else(|| refused(format!("There is no such fulltext schema index: {name}")))?;
        if index.def.entity != entity {
            let (is, not) = match index.def.entity {
                EntityKind::Node => ("NODE", "relationships"),
                EntityKind::Relationship => ("RELATIONSHIP", "nodes"),
            };
            return Err(refused(format!(
                "The '{name}' index is an index on {is}, so it cannot be queried for {not}."
            )));
        }
        let (IndexKind::Fulltext { analyzer, .. }, Some(postings)) =
            (index.def.kind, index.text.as_ref())
        else {
            return Err(refused(format!(
                "There is no such fulltext schema index: {name}"
            )));
        };
        let analyzer = match &options.analyzer {
            None => analyzer,
            Some(wanted) => Analyzer::from_name(wanted)
                .ok_or_else(|| refused(format!("Could not create fulltext analyzer: {wanted}.")))?,
        };
        if !index.is_online() {
            return Err(refused(format!(
                "Index `{name}` is not online yet; wait for it with db.awaitIndex"
            )));
        }
        let parsed = Query::parse(query, analyzer).map_err(|e| refused(e.to_string()))?;
        index
            .reads
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let hits = fulltext_search(&self.reader(), index, postings, &parsed);
        Ok(hits
            .into_iter()
            .skip(options.skip)
            .take(options.limit.unwrap_or(usize::MAX))
            .collect())
    }
}
