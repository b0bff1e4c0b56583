//! Bulk-load input formats, read into typed node and relationship records.
//!
//! Two formats, named as a loader request names them:
//! - `opencypher`: Neptune's openCypher CSV and neo4j-admin's import CSV,
//!   which share the system columns `:ID` / `name:ID(space)`, `:LABEL`,
//!   `:START_ID(space)`, `:END_ID(space)`, `:TYPE`, `:IGNORE` and differ
//!   only in type names (`age:Int` / `age:int`; both are read);
//! - `csv`: Neptune's Gremlin CSV (`~id`, `~label`, `~from`, `~to`,
//!   `name:Type(cardinality)[]`).
//!
//! A [`Reader`] streams one file (decompressing `.gz` / `.zst`) and yields
//! [`Record`]s whose properties are already [`nereid_values::Value`]s.
//! Every error names file, physical line and column.
//!
//! Invariant: this crate knows nothing of storage, the engine or Cypher.
//! It turns bytes into records; what a load does with them (ids, merging,
//! transactions, `failOnError`) is the loader's business.

mod compression;
mod error;
mod header;
mod plain;
mod reader;
mod record;
mod split;
mod temporal;
mod value_type;

pub use error::Error;
pub use header::{Cardinality, FileKind, Header, PropertyColumn};
pub use plain::PlainRecords;
pub use reader::Reader;
pub use record::{NodeRecord, Record, RelationshipRecord};
pub use value_type::ValueType;

/// An input format, by the name a load request uses.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// `opencypher`: openCypher / neo4j-admin import CSV.
    OpenCypher,
    /// `csv`: Neptune's Gremlin CSV.
    NeptuneCsv,
}

impl Format {
    /// `opencypher` or `csv` (case-insensitive); `None` for any other name,
    /// so RDF formats can join the list without changing callers.
    pub fn from_name(name: &str) -> Option<Format> {
        if name.eq_ignore_ascii_case("opencypher") {
            Some(Format::OpenCypher)
        } else if name.eq_ignore_ascii_case("csv") {
            Some(Format::NeptuneCsv)
        } else {
            None
        }
    }
}

/// How fields are separated. Single bytes: both tools take one character.
#[derive(Clone, Debug)]
pub struct Options {
    pub delimiter: u8,
    /// Between array elements and between labels.
    pub array_delimiter: u8,
    pub quote: u8,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            delimiter: b',',
            array_delimiter: b';',
            quote: b'"',
        }
    }
}
