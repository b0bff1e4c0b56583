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

/// Declares [`Detail`] and the names it prints.
macro_rules! details {
    ($($(#[$doc:meta])* $name:ident),* $(,)?) => {
        /// The openCypher error detail an error stands for (the TCK's names: the `Detail` of
        /// `a SyntaxError should be raised at compile time: Detail`). Messages start with it,
        /// so a client can tell the cases apart without parsing prose.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
        pub enum Detail {
            $($(#[$doc])* $name,)*
        }

        impl Detail {
            /// Every detail, in declaration order.
            pub const ALL: &'static [Detail] = &[$(Detail::$name,)*];

            /// The name as the openCypher TCK spells it.
            pub fn name(self) -> &'static str {
                match self {
                    $(Detail::$name => stringify!($name),)*
                }
            }
        }
    };
}

details! {
    UndefinedVariable,
    VariableAlreadyBound,
    VariableTypeConflict,
    NoExpressionAlias,
    ColumnNameConflict,
    NestedAggregation,
    InvalidAggregation,
    AmbiguousAggregationExpression,
    NoVariablesInScope,
    NonConstantExpression,
    NegativeIntegerArgument,
    InvalidArgumentType,
    RequiresDirectedRelationship,
    NoSingleRelationshipType,
    CreatingVarLength,
    InvalidDelete,
    InvalidParameterUse,
    RelationshipUniquenessViolation,
    DifferentColumnsInUnion,
    InvalidClauseComposition,
    InvalidNumberLiteral,
    IntegerOverflow,
    FloatingPointOverflow,
    InvalidUnicodeLiteral,
    /// A non-ASCII symbol where the grammar wanted an operator or
    /// punctuation (`42 — 41`, with an em dash for `-`).
    InvalidUnicodeCharacter,
    /// A malformed relationship pattern (`[:T..]` without `*`, `[*-2]`).
    InvalidRelationshipPattern,
    /// The text does not match the grammar.
    UnexpectedSyntax,
    // Raised after analysis, by the planner or the executor, as the first
    // word of their messages (the analyser never names these).
    DeleteConnectedNode,
    DeletedEntityAccess,
    InvalidArgumentPassingMode,
    InvalidArgumentValue,
    InvalidNumberOfArguments,
    InvalidPropertyType,
    ListElementAccessByNonInteger,
    MapElementAccessByNonString,
    MergeReadOwnWrites,
    MissingParameter,
    NumberOutOfRange,
    ProcedureNotFound,
    UnknownFunction,
}

impl Detail {
    /// The detail of a grammar-level error, read from its description. The parser reports
    /// through [`CypherError::syntax`] / [`CypherError::at`] without naming details, so this
    /// is the one place that knows which of its descriptions mean what; a parser error can
    /// also name its detail directly with [`CypherError::with_detail`].
    fn of_syntax(description: &str) -> Detail {
        if description.starts_with("integer is too large") {
            Detail::IntegerOverflow
        } else if description.starts_with("floating point number is too large") {
            Detail::FloatingPointOverflow
        } else if description.starts_with("Invalid unicode escape") {
            Detail::InvalidUnicodeLiteral
        } else if description.starts_with("Invalid relationship pattern") {
            Detail::InvalidRelationshipPattern
        } else if description.starts_with("Invalid combination of UNION") {
            Detail::InvalidClauseComposition
        } else {
            Detail::UnexpectedSyntax
        }
    }
}

impl std::fmt::Display for Detail {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// A positioned front-end error.
///
/// `message` is complete and ready to show a user: the detail name and a colon when the error
/// has one (`UndefinedVariable: Variable `x` not defined`), the description, the position suffix
/// `(line L, column C (offset: O))`, then a newline, the offending query line in double quotes
/// and a caret line pointing at the column (the layout Neo4j uses).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct CypherError {
    pub kind: ErrorKind,
    /// The openCypher detail, when the error corresponds to one.
    pub detail: Option<Detail>,
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
    /// valid position rather than trusted. A syntax error gets the detail its description
    /// implies (see [`Detail::of_syntax`]); a semantic one none.
    pub fn at(kind: ErrorKind, description: &str, query: &str, offset: usize) -> Self {
        let detail = match kind {
            ErrorKind::Syntax => Some(match Detail::of_syntax(description) {
                Detail::UnexpectedSyntax if inside_number_literal(query, offset) => {
                    Detail::InvalidNumberLiteral
                }
                Detail::UnexpectedSyntax if at_non_ascii_symbol(query, offset) => {
                    Detail::InvalidUnicodeCharacter
                }
                detail => detail,
            }),
            ErrorKind::Semantic => None,
        };
        Self::build(kind, detail, description, query, offset)
    }

    fn build(
        kind: ErrorKind,
        detail: Option<Detail>,
        description: &str,
        query: &str,
        offset: usize,
    ) -> Self {
        let offset = clamp_to_char_boundary(query, offset);
        let line_start = query[..offset].rfind('\n').map_or(0, |i| i + 1);
        let line = query[..offset].matches('\n').count() + 1;
        let column = query[line_start..offset].chars().count() + 1;
        let line_end = query[offset..]
            .find('\n')
            .map_or(query.len(), |i| offset + i);
        let line_text = query[line_start..line_end].trim_end_matches('\r');
        let prefix = detail.map(|d| format!("{d}: ")).unwrap_or_default();
        let message = format!(
            "{prefix}{description} (line {line}, column {column} (offset: {offset}))\n\"{line_text}\"\n{caret:>width$}",
            caret = "^",
            width = column + 1,
        );
        CypherError {
            kind,
            detail,
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

    /// A semantic error at the start of `span` that is the openCypher `detail`.
    pub(crate) fn semantic_detail(
        detail: Detail,
        description: &str,
        query: &str,
        span: Span,
    ) -> Self {
        Self::build(
            ErrorKind::Semantic,
            Some(detail),
            description,
            query,
            span.start,
        )
    }

    /// The same error named as `detail` (its message prefix follows).
    pub fn with_detail(mut self, detail: Detail) -> Self {
        let body = match self.detail {
            Some(old) => self
                .message
                .strip_prefix(&format!("{old}: "))
                .unwrap_or(&self.message)
                .to_string(),
            None => self.message.clone(),
        };
        self.message = format!("{detail}: {body}");
        self.detail = Some(detail);
        self
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

/// Whether a grammar error at `offset` sits on a non-ASCII character that
/// cannot start an identifier (a Unicode dash, quote or arrow): outside string
/// literals and identifiers the grammar is ASCII, so such a character is a
/// look-alike typed in place of an operator.
fn at_non_ascii_symbol(query: &str, offset: usize) -> bool {
    let offset = clamp_to_char_boundary(query, offset);
    query[offset..]
        .chars()
        .next()
        .is_some_and(|c| !c.is_ascii() && !c.is_alphanumeric())
}

/// Whether a grammar error at `offset` falls inside a word that starts with a digit
/// (`0x`, `0x1A2j`, `123h45`): the lexer ends the number at the first character that cannot
/// continue it, so the error lands on a letter glued to the number.
fn inside_number_literal(query: &str, offset: usize) -> bool {
    let offset = clamp_to_char_boundary(query, offset);
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    if !query[offset..].starts_with(|c: char| c.is_ascii_alphabetic()) {
        return false;
    }
    let word_start = query[..offset]
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_word(*c))
        .last()
        .map(|(i, _)| i);
    word_start.is_some_and(|start| query[start..].starts_with(|c: char| c.is_ascii_digit()))
}

#[cfg(test)]
mod number_literal_tests {
    use super::*;

    #[test]
    fn unicode_dash_for_minus_is_an_invalid_unicode_character() {
        let error = CypherError::at(ErrorKind::Syntax, "Invalid input", "RETURN 42 — 41", 10);
        assert_eq!(error.detail, Some(Detail::InvalidUnicodeCharacter));
        let error = CypherError::at(ErrorKind::Syntax, "Invalid input", "RETURN 42 é", 10);
        assert_eq!(error.detail, Some(Detail::UnexpectedSyntax));
    }

    #[test]
    fn letters_glued_to_a_number_are_an_invalid_number_literal() {
        for (query, offset) in [("RETURN 0x AS l", 8), ("RETURN 9223372h54775808", 14)] {
            let error = CypherError::at(ErrorKind::Syntax, "Invalid input", query, offset);
            assert_eq!(error.detail, Some(Detail::InvalidNumberLiteral), "{query}");
        }
        let error = CypherError::at(ErrorKind::Syntax, "Invalid input", "RETURN a b", 9);
        assert_eq!(error.detail, Some(Detail::UnexpectedSyntax));
        let error = CypherError::at(ErrorKind::Syntax, "Invalid input", "RETURN x1 b", 10);
        assert_eq!(error.detail, Some(Detail::UnexpectedSyntax));
    }
}
