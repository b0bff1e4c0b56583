//! The one error type of the front end, with Neo4j-style positioned messages.

use crate::ast::Span;

/// Which phase rejected the query. Both map to Neo4j's `Neo.ClientError.Statement.SyntaxError`
/// status, but callers may want to tell them apart (e.g. TCK `SyntaxError` sub-kinds).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// The text does not match the grammar (or cannot be tokenized).
    Syntax,
    /// The text parses but breaks a scoping, typing or aggregation rule.
    Semantic,
}

/// A positioned front-end error.
///
/// `message` is complete and ready to show a user: the description, the position suffix
/// `(line L, column C (offset: O))`, then a newline, the offending query line in double quotes
/// and a caret line pointing at the column (the layout Neo4j uses).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct CypherError {
    pub kind: ErrorKind,
    pub message: String,
    /// 0-based byte offset into the query.
    pub offset: usize,
    /// 1-based line number.
    pub line: usize,
    /// 1-based column, counted in characters from the start of the line.
    pub column: usize,
}

impl CypherError {
    /// Builds an error at byte `offset` of `query`, decorating `description` with the position
    /// and the caret excerpt. An offset past the end (or inside a character) is clamped to a
    /// valid position rather than trusted.
    pub fn at(kind: ErrorKind, description: &str, query: &str, offset: usize) -> Self {
        let offset = clamp_to_char_boundary(query, offset);
        let line_start = query[..offset].rfind('\n').map_or(0, |i| i + 1);
        let line = query[..offset].matches('\n').count() + 1;
        let column = query[line_start..offset].chars().count() + 1;
        let line_end = query[offset..]
            .find('\n')
            .map_or(query.len(), |i| offset + i);
        let line_text = query[line_start..line_end].trim_end_matches('\r');
        let message = format!(
            "{description} (line {line}, column {column} (offset: {offset}))\n\"{line_text}\"\n{caret:>width$}",
            caret = "^",
            width = column + 1,
        );
        CypherError {
            kind,
            message,
            offset,
            line,
            column,
        }
    }

    /// A syntax error at the start of `span`.
    pub(crate) fn syntax(description: &str, query: &str, span: Span) -> Self {
        Self::at(ErrorKind::Syntax, description, query, span.start)
    }

    /// A semantic error at the start of `span`.
    pub(crate) fn semantic(description: &str, query: &str, span: Span) -> Self {
        Self::at(ErrorKind::Semantic, description, query, span.start)
    }

    /// The first line of the message (description and position, without the excerpt).
    pub fn summary(&self) -> &str {
        self.message.lines().next().unwrap_or("")
    }
}

fn clamp_to_char_boundary(query: &str, offset: usize) -> usize {
    let mut offset = offset.min(query.len());
    while !query.is_char_boundary(offset) {
        offset -= 1;
    }
    offset
}
