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
    /// The vertex's number in the load's [`crate::IriNumbers`], from an
    /// RDF reader asked to number its records (`RdfReader::numbered`),
    /// which then leaves `id` empty: the loader spells a number once, from
    /// the dictionary. `None` from every other reader.
    pub number: Option<u64>,
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
    /// The numbers of its start and end ([`NodeRecord::number`]) from a
    /// numbering RDF reader, which then leaves `start` and `end` empty (no
    /// copy of two IRIs per edge). `None` from every other reader.
    pub end_numbers: Option<(u64, u64)>,
    /// The start's and the end's id as numbers, each when it is one in
    /// canonical decimal ([`crate::canonical_decimal`]), from a CSV reader
    /// asked for them (`Reader::decimal_ends`), which then leaves that
    /// end's text (`start` or `end`) empty: no string per end for the ids
    /// most files use. `[None, None]` from every other reader.
    pub decimal_ends: [Option<u64>; 2],
}

#[derive(Clone, Debug, PartialEq)]
pub enum Record {
    Node(NodeRecord),
    Relationship(RelationshipRecord),
}
