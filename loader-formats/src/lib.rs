//! Bulk-load input formats, read into typed node and relationship records.
//!
//! Two formats, named as a loader request names them:
//! - `opencypher`: Neptune's openCypher CSV and neo4j-admin's import CSV,
//!   which share the system columns `:ID` / `name:ID(space)`, `:LABEL`,
//!   `:START_ID(space)`, `:END_ID(space)`, `:TYPE`, `:IGNORE` and differ
//!   only in type names (`age:Int` / `age:int`; both are read);
//! - `csv`: Neptune's Gremlin CSV (`~id`, `~label`, `~from`, `~to`,
//!   `name:Type(cardinality)[]`);
//! - `ntriples`, `nquads`, `turtle`: RDF documents, read by [`RdfReader`]
//!   into the same records (an IRI is a vertex id, `rdf:type` objects
//!   labels, literals properties, other objects relationships).
//!
//! A [`Reader`] streams one file (decompressing `.gz` / `.zst`) and yields
//! [`Record`]s whose properties are already [`nereid_values::Value`]s.
//! Every error names file, physical line and column.
//!
//! [`RdfWriter`] is the RDF mapping backwards, for the export.
//!
//! Invariant: this crate knows nothing of storage, the engine or Cypher.
//! It turns bytes into records; what a load does with them (ids, merging,
//! transactions, `failOnError`) is the loader's business.

mod compression;
mod decimal;
mod error;
mod header;
mod pieces;
mod plain;
mod rdf;
mod reader;
mod record;
mod split;
mod temporal;
#[cfg(test)]
mod test_random;
mod value_type;

pub use decimal::canonical_decimal;
pub use error::Error;
pub use header::{Cardinality, FileKind, Header, PropertyColumn};
pub use pieces::{piece_starts, Reached};
pub use plain::PlainRecords;
pub use rdf::{add_value, merge_value, IriNumbers, RdfReader, RdfSyntax, RdfWriter, GRAPH_KEY};
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

/// Any input format a load may name: a CSV format or an RDF syntax.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum InputFormat {
    Csv(Format),
    Rdf(RdfSyntax),
}

impl InputFormat {
    /// The CSV names of [`Format::from_name`], and `ntriples`, `nquads`,
    /// `turtle` (case-insensitive).
    pub fn from_name(name: &str) -> Option<InputFormat> {
        if let Some(csv) = Format::from_name(name) {
            return Some(InputFormat::Csv(csv));
        }
        let syntax = match name.to_ascii_lowercase().as_str() {
            "ntriples" => RdfSyntax::NTriples,
            "nquads" => RdfSyntax::NQuads,
            "turtle" => RdfSyntax::Turtle,
            _ => return None,
        };
        Some(InputFormat::Rdf(syntax))
    }

    /// The name [`InputFormat::from_name`] reads back (lower case).
    pub fn name(self) -> &'static str {
        match self {
            InputFormat::Csv(Format::OpenCypher) => "opencypher",
            InputFormat::Csv(Format::NeptuneCsv) => "csv",
            InputFormat::Rdf(RdfSyntax::NTriples) => "ntriples",
            InputFormat::Rdf(RdfSyntax::NQuads) => "nquads",
            InputFormat::Rdf(RdfSyntax::Turtle) => "turtle",
        }
    }

    /// The file extensions (before any `.gz` / `.zst`) a directory source
    /// of this format is listed by.
    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            InputFormat::Csv(_) => &[".csv"],
            InputFormat::Rdf(RdfSyntax::NTriples) => &[".nt"],
            InputFormat::Rdf(RdfSyntax::NQuads) => &[".nq"],
            InputFormat::Rdf(RdfSyntax::Turtle) => &[".ttl"],
        }
    }
}

/// The names [`InputFormat::from_name`] accepts, for error messages.
pub const FORMAT_NAMES: &str = "opencypher, csv, ntriples, nquads or turtle";

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
