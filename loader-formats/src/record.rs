//! The records a reader yields: what a loader needs to create one node or
//! one relationship, in the engine's own value type so it converts nothing.

use std::sync::Arc;

use nereid_values::Value;

/// A node row. `id` is unique within `id_space` (`None` = the global space
/// of files whose `:ID` names no space).
#[derive(Clone, Debug, PartialEq)]
pub struct NodeRecord {
    pub id: String,
    pub id_space: Option<Arc<str>>,
    pub labels: Vec<Arc<str>>,
    /// In header order; absent (empty) fields are left out.
    pub properties: Vec<(Arc<str>, Value)>,
    /// The physical line the row starts on.
    pub line: u64,
    /// Its position among the node records of its group, from a reader
    /// that yields a document's vertices as a group followed by the edges
    /// between them (RDF, `rdf/group.rs`): a group starts at position 0.
    /// `None` from a reader that groups nothing (CSV).
    pub in_group: Option<usize>,
}

/// A relationship row; its ends are node ids within their id spaces.
#[derive(Clone, Debug, PartialEq)]
pub struct RelationshipRecord {
    /// The relationship's own id, when the file has an `:ID` / `~id` column.
    pub id: Option<String>,
    pub start: String,
    pub start_space: Option<Arc<str>>,
    pub end: String,
    pub end_space: Option<Arc<str>>,
    pub rel_type: Arc<str>,
    pub properties: Vec<(Arc<str>, Value)>,
    pub line: u64,
    /// The positions of its start and end among the node records of its
    /// group ([`NodeRecord::in_group`]), which came just before it: a
    /// loader that kept what those records resolved to needs no lookup
    /// of the ids. `None` from a reader that groups nothing.
    pub ends_in_group: Option<(usize, usize)>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Record {
    Node(NodeRecord),
    Relationship(RelationshipRecord),
}
