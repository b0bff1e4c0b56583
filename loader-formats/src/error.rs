//! Every way an input file can be wrong, each with the place it was found.
//!
//! Lines are 1-based physical lines (a quoted field with embedded newlines
//! spans several), columns 1-based byte offsets in that line where the
//! offending field starts: that is what a user needs to open the file at
//! the spot, and what a loader reports per bad row.

use std::io;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{file}: {source}")]
    Io {
        file: String,
        #[source]
        source: io::Error,
    },
    #[error("{file}:{line}: the compressed stream ends early or is corrupt ({source})")]
    Truncated {
        file: String,
        line: u64,
        #[source]
        source: io::Error,
    },
    #[error("{file}:{line}:{column}: a quoted field is never closed")]
    UnterminatedQuote {
        file: String,
        line: u64,
        column: u64,
    },
    #[error("{file}:{line}:{column}: text after the closing quote of a field")]
    TextAfterQuote {
        file: String,
        line: u64,
        column: u64,
    },
    #[error("{file}:{line}:{column}: {found} fields where the header has {expected}")]
    FieldCount {
        file: String,
        line: u64,
        column: u64,
        expected: usize,
        found: usize,
    },
    #[error("{file}:{line}:{column}: `{field}`: {text:?} is not a valid {type_name}")]
    BadValue {
        file: String,
        line: u64,
        column: u64,
        field: String,
        type_name: &'static str,
        text: String,
    },
    #[error("{file}:{line}:{column}: `{field}` is not valid UTF-8")]
    BadUtf8 {
        file: String,
        line: u64,
        column: u64,
        field: String,
    },
    #[error("{file}:{line}:{column}: `{field}` is empty but required")]
    MissingValue {
        file: String,
        line: u64,
        column: u64,
        field: String,
    },
    #[error("{file}:{line}:{column}: unknown type `{type_name}` in header field `{field}`")]
    UnknownType {
        file: String,
        line: u64,
        column: u64,
        field: String,
        type_name: String,
    },
    #[error("{file}:{line}:{column}: header field `{field}`: {reason}")]
    BadHeader {
        file: String,
        line: u64,
        column: u64,
        field: String,
        reason: &'static str,
    },
    #[error("{file}:{line}: the header lacks the required `{column_name}` column")]
    MissingColumn {
        file: String,
        line: u64,
        column_name: &'static str,
    },
    #[error("{file}:{line}:{column}: {message}")]
    RdfSyntax {
        file: String,
        line: u64,
        column: u64,
        message: String,
    },
    #[error("{file}: the file is empty (no header)")]
    NoHeader { file: String },
}

impl Error {
    /// True when the error concerns one data row and the reader can go on
    /// with the next (what a `failOnError: false` load does); false when
    /// the file cannot be read further.
    pub fn is_row_error(&self) -> bool {
        matches!(
            self,
            Error::TextAfterQuote { .. }
                | Error::FieldCount { .. }
                | Error::BadValue { .. }
                | Error::BadUtf8 { .. }
                | Error::MissingValue { .. }
        )
    }

    /// The same error with its line moved on by `by`: an error of a reader
    /// of part of a file counts lines from the part's first
    /// ([`crate::Reader::rows_from`]) until the lines before it are known.
    pub fn shift_lines(&mut self, by: u64) {
        match self {
            Error::Io { .. } | Error::NoHeader { .. } => {}
            Error::Truncated { line, .. }
            | Error::MissingColumn { line, .. }
            | Error::UnterminatedQuote { line, .. }
            | Error::TextAfterQuote { line, .. }
            | Error::FieldCount { line, .. }
            | Error::BadValue { line, .. }
            | Error::BadUtf8 { line, .. }
            | Error::MissingValue { line, .. }
            | Error::UnknownType { line, .. }
            | Error::BadHeader { line, .. }
            | Error::RdfSyntax { line, .. } => *line += by,
        }
    }

    /// `(line, column)` where the error was found, when it has a place.
    pub fn location(&self) -> Option<(u64, u64)> {
        match self {
            Error::Io { .. } | Error::NoHeader { .. } => None,
            Error::Truncated { line, .. } | Error::MissingColumn { line, .. } => Some((*line, 1)),
            Error::UnterminatedQuote { line, column, .. }
            | Error::TextAfterQuote { line, column, .. }
            | Error::FieldCount { line, column, .. }
            | Error::BadValue { line, column, .. }
            | Error::BadUtf8 { line, column, .. }
            | Error::MissingValue { line, column, .. }
            | Error::UnknownType { line, column, .. }
            | Error::BadHeader { line, column, .. }
            | Error::RdfSyntax { line, column, .. } => Some((*line, *column)),
        }
    }
}
