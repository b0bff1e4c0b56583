//! Full-text search as Neo4j's full-text indexes do it, minus Lucene: the
//! analyzers that turn a property's text into terms (module `analyzer`),
//! Lucene's classic query syntax (module `query`) and BM25 scores computed
//! one document at a time (module `score`). Nothing here stores anything:
//! the store keeps the postings and decides which entities a reader sees,
//! then asks this crate whether (and how well) each one matches
//! (docs/adr/0125-full-text-indexes-on-the-store.md).

mod analyzer;
mod porter;
mod query;
mod score;
mod tokenize;

pub use analyzer::{Analyzer, Token};
pub use query::{Leaf, Matcher, Query, QueryError};
pub use score::{Doc, Stats};
