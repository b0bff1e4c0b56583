//! RDF documents (N-Triples, N-Quads, Turtle) read with oxttl into the
//! same node and relationship records as the CSV formats
//! (docs/adr/0108-onegraph-rdf.md).
//!
//! A document is read whole before its first record is yielded: the
//! triples of one subject may lie anywhere in it, and one vertex record
//! per subject (with every label and property) is what a loader needs.
//! Reading starts at the first `next()`, so a loader that iterates files
//! on several threads parses them in parallel; an N-Triples or N-Quads
//! document is also read in pieces parsed on every core (`parallel.rs`).
//!
//! Any syntax error (with its line and column), undefined prefix or
//! invalid IRI ends the document with that error and no records: a
//! document is loaded whole or not at all. A loader that fails the whole
//! load on an error anyway may ask for each piece's records as soon as it
//! is parsed ([`RdfReader::streamed`]), and merge them meanwhile.

mod group;
mod lines;
mod literal;
mod numbered;
mod numbers;
mod parallel;
mod write;

use std::io::Read;
use std::sync::Arc;

use oxttl::{TurtleParseError, TurtleParser};

pub use group::{add_value, merge_value, GRAPH_KEY};
pub use numbers::IriNumbers;
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
    /// Records yielded per piece as parsed ([`RdfReader::streamed`]).
    streamed: bool,
    /// Records numbered by this dictionary ([`RdfReader::numbered`]).
    numbers: Option<Arc<IriNumbers>>,
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
            streamed: false,
            numbers: None,
            records: Box::new(std::iter::empty()),
        })
    }

    /// Makes the reader yield each piece's records as soon as that piece
    /// is parsed (N-Triples and N-Quads), instead of after the whole
    /// document: a syntax error may then come after records of the same
    /// document. For a loader that fails the whole load on any error, where
    /// nothing of it is applied either way: it merges the document while
    /// it is parsed and never holds every record of it at once.
    pub fn streamed(mut self) -> RdfReader<'a> {
        self.streamed = true;
        self
    }

    /// Makes the reader number its vertices by `numbers` (shared by every
    /// reader of a load) instead of spelling them: node records carry a
    /// number and no id, edge records their ends' numbers and no ids, and
    /// only subjects with labels or properties have node records. For the
    /// bulk loader, which merges records by number
    /// (docs/adr/0155-rdf-records-numbered-by-a-shared-dictionary.md).
    pub fn numbered(mut self, numbers: Arc<IriNumbers>) -> RdfReader<'a> {
        self.numbers = Some(numbers);
        self
    }

    fn read(&mut self, input: Box<dyn Read + Send + 'a>, compression: Compression) {
        let quads = match self.syntax {
            RdfSyntax::Turtle => return self.read_turtle(input, compression),
            RdfSyntax::NTriples => false,
            RdfSyntax::NQuads => true,
        };
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let grouping = Grouping::of(&self.blank_scope, self.numbers.clone());
        let pieces = parallel::Pieces::new(input, quads, grouping, threads);
        let file = self.file.clone();
        let failed = move |e| piece_error(&file, e, compression);
        if self.streamed {
            self.records = Box::new(pieces.flat_map(move |piece| {
                let records: Box<dyn Iterator<Item = _> + Send> = match piece {
                    Ok(group) => Box::new(group.into_records().map(Ok)),
                    Err(e) => Box::new(std::iter::once(Err(failed(e)))),
                };
                records
            }));
            return;
        }
        let mut groups = Vec::new();
        for piece in pieces {
            match piece {
                Ok(group) => groups.push(group),
                Err(e) => {
                    self.records = Box::new(std::iter::once(Err(failed(e))));
                    return;
                }
            }
        }
        self.records = Box::new(groups.into_iter().flat_map(|g| g.into_records().map(Ok)));
    }

    /// Turtle, whose statements span lines and whose prefixes are read in
    /// order: one pass on one thread.
    fn read_turtle(&mut self, input: Box<dyn Read + Send + 'a>, compression: Compression) {
        let mut grouped = Grouping::of(&self.blank_scope, self.numbers.clone()).start();
        let parser = TurtleParser::new().for_reader(input);
        let outcome = parser
            .into_iter()
            .try_for_each(|triple| triple.map(|t| _ = grouped.add(in_default_graph(t), 0)));
        self.records = match outcome {
            Ok(()) => Box::new(grouped.into_records().map(Ok)),
            Err(e) => Box::new(std::iter::once(Err(error(&self.file, e, compression)))),
        };
    }
}

/// How a document's records are built: spelled (`group.rs`) or
/// numbered (`numbered.rs`); cloned for each piece.
#[derive(Clone)]
pub(crate) struct Grouping {
    blank_scope: String,
    numbers: Option<Arc<IriNumbers>>,
}

impl Grouping {
    fn of(blank_scope: &str, numbers: Option<Arc<IriNumbers>>) -> Grouping {
        Grouping {
            blank_scope: blank_scope.to_owned(),
            numbers,
        }
    }

    /// An empty group of records.
    pub(crate) fn start(&self) -> Group {
        match &self.numbers {
            None => Group::Spelled(group::Grouped::new(&self.blank_scope)),
            Some(n) => Group::Numbered(numbered::Numbered::new(&self.blank_scope, n.clone())),
        }
    }

    /// An empty group for the quads of oxttl's lenient parse, which checks
    /// them itself, once per distinct IRI (numbered groups only: `None`
    /// for spelled ones, which take the strict parse's quads).
    pub(crate) fn start_checking(&self) -> Option<Group> {
        let numbers = self.numbers.clone()?;
        let group = numbered::Numbered::new(&self.blank_scope, numbers);
        Some(Group::Numbered(group.checking()))
    }
}

/// The records of a document or piece, as they are built.
pub(crate) enum Group {
    Spelled(group::Grouped),
    Numbered(numbered::Numbered),
}

impl Group {
    fn reserve(&mut self, statements: usize) {
        match self {
            Group::Spelled(g) => g.reserve(statements),
            Group::Numbered(g) => g.reserve(statements),
        }
    }

    /// Adds a quad; false (from a checking group) when the strict parse
    /// would have refused it.
    fn add(&mut self, quad: oxrdf::Quad, line: u64) -> bool {
        match self {
            Group::Spelled(g) => {
                g.add(quad, line);
                true
            }
            Group::Numbered(g) => g.add(quad.as_ref(), line),
        }
    }

    fn into_records(self) -> Box<dyn Iterator<Item = Record> + Send> {
        match self {
            Group::Spelled(g) => Box::new(g.into_records()),
            Group::Numbered(g) => Box::new(g.into_records()),
        }
    }
}

/// The error of a piece of the document `file`, its line counted from the
/// document's start.
fn piece_error(file: &str, e: parallel::PieceError, compression: Compression) -> Error {
    match e {
        parallel::PieceError::Io(e) => error(file, TurtleParseError::Io(e), compression),
        parallel::PieceError::Syntax {
            error: syntax,
            lines_before,
        } => {
            let mut e = error(file, TurtleParseError::Syntax(syntax), compression);
            if let Error::RdfSyntax { line, .. } = &mut e {
                *line += lines_before;
            }
            e
        }
    }
}

fn error(file: &str, e: TurtleParseError, compression: Compression) -> Error {
    match e {
        TurtleParseError::Syntax(e) => {
            let at = e.location().start;
            Error::RdfSyntax {
                file: file.to_owned(),
                line: at.line + 1,
                column: at.column + 1,
                message: e.message().to_owned(),
            }
        }
        TurtleParseError::Io(source) if compression != Compression::None => Error::Truncated {
            file: file.to_owned(),
            line: 0,
            source,
        },
        TurtleParseError::Io(source) => Error::Io {
            file: file.to_owned(),
            source,
        },
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
mod lines_tests;
#[cfg(test)]
mod parallel_tests;
#[cfg(test)]
mod tests;
