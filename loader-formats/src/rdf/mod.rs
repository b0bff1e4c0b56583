//! RDF documents (N-Triples, N-Quads, Turtle) read with oxttl into the
//! same node and relationship records as the CSV formats
//! (docs/adr/0108-onegraph-rdf.md).
//!
//! A document is read whole before its first record is yielded: the
//! triples of one subject may lie anywhere in it, and one vertex record
//! per subject (with every label and property) is what a loader needs.
//! Reading starts at the first `next()`, so a loader that iterates files
//! on several threads parses them in parallel; an N-Triples or N-Quads
//! document is also cut into chunks parsed on every core (`parallel.rs`).
//!
//! Any syntax error (with its line and column), undefined prefix or
//! invalid IRI ends the document with that error and no records: a
//! document is loaded whole or not at all.

mod group;
mod literal;
mod parallel;
mod write;

use std::io::Read;

use oxttl::{TurtleParseError, TurtleParser};

pub use group::{add_value, merge_value, GRAPH_KEY};
pub use write::RdfWriter;

use crate::compression::{decoder, Compression};
use crate::record::Record;
use crate::Error;

/// An RDF syntax.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum RdfSyntax {
    NTriples,
    NQuads,
    Turtle,
}

/// Reads one RDF document into records. Iterate it.
pub struct RdfReader<'a> {
    file: String,
    pending: Option<(Box<dyn Read + Send + 'a>, Compression)>,
    syntax: RdfSyntax,
    blank_scope: String,
    /// The document's length in bytes, when known (0 if not).
    length: u64,
    records: Box<dyn Iterator<Item = Result<Record, Error>> + Send + 'a>,
}

impl<'a> RdfReader<'a> {
    /// A reader of `input` (named `file` in errors), decompressed when its
    /// name or first bytes say so; blank nodes become vertices whose ids
    /// start with `_:<blank_scope>_`.
    pub fn new<R: Read + Send + 'a>(
        file: &str,
        input: R,
        syntax: RdfSyntax,
        blank_scope: &str,
    ) -> Result<RdfReader<'a>, Error> {
        let io = |source| Error::Io {
            file: file.to_owned(),
            source,
        };
        let (input, compression) = decoder(file, input).map_err(io)?;
        Ok(RdfReader {
            file: file.to_owned(),
            pending: Some((input, compression)),
            syntax,
            blank_scope: blank_scope.to_owned(),
            length: 0,
            records: Box::new(std::iter::empty()),
        })
    }

    /// Tells the reader the document's length in bytes (a file's size):
    /// an N-Triples or N-Quads document is read whole into one buffer,
    /// and a buffer of the right size writes each page once, where one
    /// that doubles as it fills copies (and faults in) the document again.
    pub fn with_length(mut self, bytes: u64) -> RdfReader<'a> {
        self.length = bytes;
        self
    }

    fn read(&mut self, mut input: Box<dyn Read + Send + 'a>, compression: Compression) {
        let quads = match self.syntax {
            RdfSyntax::Turtle => return self.read_turtle(input, compression),
            RdfSyntax::NTriples => false,
            RdfSyntax::NQuads => true,
        };
        // A compressed document is longer than its file: the buffer grows.
        let mut bytes = Vec::with_capacity(match compression {
            Compression::None => usize::try_from(self.length).unwrap_or(0),
            _ => 0,
        });
        if let Err(e) = input.read_to_end(&mut bytes) {
            let e = self.error(TurtleParseError::Io(e), compression);
            self.records = Box::new(std::iter::once(Err(e)));
            return;
        }
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        self.records = match parallel::parse(&bytes, quads, &self.blank_scope, threads) {
            Ok(groups) => Box::new(groups.into_iter().flat_map(|g| g.into_records().map(Ok))),
            Err(chunk) => {
                let mut e = self.error(TurtleParseError::Syntax(chunk.error), compression);
                if let Error::RdfSyntax { line, .. } = &mut e {
                    *line += chunk.lines_before;
                }
                Box::new(std::iter::once(Err(e)))
            }
        };
    }

    /// Turtle, whose statements span lines and whose prefixes are read in
    /// order: one pass on one thread.
    fn read_turtle(&mut self, input: Box<dyn Read + Send + 'a>, compression: Compression) {
        let mut grouped = group::Grouped::new(&self.blank_scope);
        let parser = TurtleParser::new().for_reader(input);
        let outcome = parser
            .into_iter()
            .try_for_each(|triple| triple.map(|t| grouped.add(in_default_graph(t), 0)));
        self.records = match outcome {
            Ok(()) => Box::new(grouped.into_records().map(Ok)),
            Err(e) => Box::new(std::iter::once(Err(self.error(e, compression)))),
        };
    }

    fn error(&self, e: TurtleParseError, compression: Compression) -> Error {
        match e {
            TurtleParseError::Syntax(e) => {
                let at = e.location().start;
                Error::RdfSyntax {
                    file: self.file.clone(),
                    line: at.line + 1,
                    column: at.column + 1,
                    message: e.message().to_owned(),
                }
            }
            TurtleParseError::Io(source) if compression != Compression::None => Error::Truncated {
                file: self.file.clone(),
                line: 0,
                source,
            },
            TurtleParseError::Io(source) => Error::Io {
                file: self.file.clone(),
                source,
            },
        }
    }
}

fn in_default_graph(triple: oxrdf::Triple) -> oxrdf::Quad {
    triple.in_graph(oxrdf::GraphName::DefaultGraph)
}

impl Iterator for RdfReader<'_> {
    type Item = Result<Record, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some((input, compression)) = self.pending.take() {
            self.read(input, compression);
        }
        self.records.next()
    }
}

#[cfg(test)]
mod parallel_tests;
#[cfg(test)]
mod tests;
