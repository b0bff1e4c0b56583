//! Recursive-descent parser over the token vector produced by [`crate::lexer`].
//!
//! Error reporting follows the "furthest failure" rule: every time the parser checks for a
//! token and does not find it, it records what it would have accepted at that token position.
//! When parsing fails, the error points at the furthest position any alternative reached and
//! lists everything that would have been accepted there. Backtracking (used to tell a pattern
//! `(a)-->(b)` from a parenthesized expression) is therefore harmless for error quality.
//!
//! Nesting is bounded (see [`MAX_NESTING`], [`MAX_TREE_DEPTH`]) so hostile input cannot overflow
//! the stack of the parser, of the analyzer, or of `Drop` on the resulting tree.

mod atoms;
mod clauses;
mod expr;
mod hints;
mod iri;
mod label_expr;
mod load_csv;
mod names;
mod options;
mod pattern;
mod property_type;
mod query;
mod schema;
mod schema_pattern;
#[cfg(test)]
mod schema_tests;
mod show;
mod show_schema;
mod subquery;
mod users;

use crate::ast::{CheckedParameter, NameUse, Span, Statement};
use crate::error::{CypherError, ErrorKind};
use crate::lexer::{tokenize, Tok, Token};

/// Maximum recursion depth of the parser (parentheses, lists, nested calls, ...).
const MAX_NESTING: usize = 96;
/// Maximum depth of the produced expression tree, counting left-deep operator chains.
const MAX_TREE_DEPTH: usize = 1000;

/// Why a parse function gave up.
#[derive(Debug)]
pub(crate) enum Fail {
    /// The input did not match; details are in the parser's furthest-failure record.
    /// Alternatives may backtrack over this.
    Expected,
    /// A definite error (bad literal, undeclared prefix, ...); never backtracked over.
    Hard(CypherError),
}

pub(crate) type PResult<T> = Result<T, Fail>;

/// Parser state: the tokens, a cursor, declared prefixes and the furthest-failure record.
pub(crate) struct Parser<'q> {
    query: &'q str,
    tokens: Vec<Token>,
    /// Index into `tokens`; invariant: `pos < tokens.len()` (the last token is `Eof`).
    pos: usize,
    /// `PREFIX` declarations seen so far, `(name, iri)`.
    prefixes: Vec<(String, String)>,
    /// Prefixes declared for every query (the server's `--prefix`), used
    /// where the query declares no prefix of the name.
    default_prefixes: &'q [(String, String)],
    /// Token index of the furthest failed expectation.
    furthest: usize,
    /// What would have been accepted at `furthest`: names already quoted
    /// for display, or bare keywords (quoted when the error is built).
    /// Static strings, so recording costs no allocation: a parse records
    /// several alternatives at nearly every token.
    expected: Vec<Expected>,
    nesting: usize,
    tree_depth: usize,
    /// Labels, types and keys read so far (see `Statement::names`); a
    /// branch tried and abandoned may have recorded the same token, which
    /// `names_read` removes.
    names: Vec<NameUse>,
    /// Parameters standing alone where their type is known (see
    /// `Statement::checked_parameters`); an abandoned branch may have
    /// recorded one twice.
    checked: Vec<CheckedParameter>,
    /// Inside a pattern or SET/REMOVE item that writes labels or types,
    /// where a lone `$(param)` is a [`CheckedParameter`].
    writing_names: bool,
    /// Inside a list or pattern comprehension's WHERE, where a `|` may
    /// start the projection rather than a label alternative.
    bar_ends_predicate: bool,
    /// Inside a relationship pattern's brackets (for messages that name
    /// types rather than labels).
    in_relationship: bool,
}

/// Parses one statement; see [`crate::parse_with_prefixes`].
pub(crate) fn parse_statement<'q>(
    query: &'q str,
    default_prefixes: &'q [(String, String)],
) -> Result<Statement, CypherError> {
    let mut parser = Parser {
        query,
        tokens: tokenize(query),
        pos: 0,
        prefixes: Vec::new(),
        default_prefixes,
        furthest: 0,
        expected: Vec::new(),
        nesting: 0,
        tree_depth: 0,
        names: Vec::new(),
        checked: Vec::new(),
        writing_names: false,
        in_relationship: false,
        bar_ends_predicate: false,
    };
    match parser.statement() {
        Ok(statement) => Ok(statement),
        Err(Fail::Hard(error)) => Err(error),
        Err(Fail::Expected) => Err(parser.expectation_error()),
    }
}

impl<'q> Parser<'q> {
    /// The IRI `prefix` stands for: the query's own declaration, else the
    /// default of that name.
    fn prefix_iri(&self, prefix: &str) -> Option<&str> {
        self.prefixes
            .iter()
            .chain(self.default_prefixes)
            .find(|(name, _)| name == prefix)
            .map(|(_, iri)| iri.as_str())
    }

    /// The current token.
    fn peek(&self) -> &Token {
        self.peek_at(0)
    }

    /// The token `n` places ahead, or `Eof` past the end.
    fn peek_at(&self, n: usize) -> &Token {
        let index = (self.pos + n).min(self.tokens.len() - 1);
        &self.tokens[index]
    }

    /// Consumes the current token (never moves past `Eof`).
    fn bump(&mut self) -> Token {
        let token = self.peek().clone();
        if self.pos + 1 < self.tokens.len() {
            self.pos += 1;
        }
        token
    }

    /// Span of the token before the cursor (the last consumed one).
    fn prev_span(&self) -> Span {
        match self.pos.checked_sub(1) {
            Some(i) => self.tokens[i].span,
            None => Span::new(0, 0),
        }
    }

    /// Records that `what` would have been accepted at the current position.
    fn record(&mut self, what: &'static str) {
        self.record_expected(Expected::Shown(what));
    }

    fn record_expected(&mut self, what: Expected) {
        if self.pos > self.furthest {
            self.furthest = self.pos;
            self.expected.clear();
        }
        if self.pos == self.furthest && !self.expected.contains(&what) {
            self.expected.push(what);
        }
    }

    /// Whether the current token is `kind`; records the expectation otherwise.
    fn at(&mut self, kind: Tok) -> bool {
        if self.peek().kind == kind {
            return true;
        }
        self.record(describe(kind));
        false
    }

    /// Consumes the current token if it is `kind`.
    fn eat(&mut self, kind: Tok) -> bool {
        let found = self.at(kind);
        if found {
            self.bump();
        }
        found
    }

    /// Consumes a token of `kind` or fails.
    fn expect(&mut self, kind: Tok) -> PResult<Token> {
        if self.at(kind) {
            Ok(self.bump())
        } else {
            Err(Fail::Expected)
        }
    }

    /// Whether the token `n` ahead is the keyword `kw` (upper case), without recording.
    fn is_kw_at(&self, n: usize, kw: &str) -> bool {
        let token = self.peek_at(n);
        token.kind == Tok::Ident && token.value.eq_ignore_ascii_case(kw)
    }

    /// Whether the current token is the keyword `kw`; records the expectation otherwise.
    fn at_kw(&mut self, kw: &'static str) -> bool {
        if self.is_kw_at(0, kw) {
            return true;
        }
        self.record_expected(Expected::Keyword(kw));
        false
    }

    /// Consumes the keyword `kw` if present.
    fn eat_kw(&mut self, kw: &'static str) -> bool {
        let found = self.at_kw(kw);
        if found {
            self.bump();
        }
        found
    }

    /// Consumes the keyword `kw` or fails.
    fn expect_kw(&mut self, kw: &'static str) -> PResult<Span> {
        if self.at_kw(kw) {
            Ok(self.bump().span)
        } else {
            Err(Fail::Expected)
        }
    }

    /// Records `what` and fails.
    fn fail_expecting<T>(&mut self, what: &'static str) -> PResult<T> {
        self.record(what);
        Err(Fail::Expected)
    }

    /// A definite syntax error at `span`.
    fn hard_syntax<T>(&self, message: &str, span: Span) -> PResult<T> {
        Err(Fail::Hard(CypherError::syntax(message, self.query, span)))
    }

    /// A definite semantic error at `span` (detected while parsing, e.g. undeclared prefix).
    fn hard_semantic<T>(&self, message: &str, span: Span) -> PResult<T> {
        Err(Fail::Hard(CypherError::semantic(message, self.query, span)))
    }

    /// Runs `f` one nesting level deeper, failing cleanly instead of overflowing the stack.
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        self.grow_tree(1)?;
        self.nesting += 1;
        let result = if self.nesting > MAX_NESTING {
            self.hard_syntax("Query is nested too deeply", self.peek().span)
        } else {
            f(self)
        };
        self.nesting -= 1;
        self.shrink_tree(1);
        result
    }

    /// Accounts for `n` more levels of expression tree above the current point.
    fn grow_tree(&mut self, n: usize) -> PResult<()> {
        self.tree_depth += n;
        if self.tree_depth > MAX_TREE_DEPTH {
            self.tree_depth -= n;
            return self.hard_syntax("Expression is nested too deeply", self.peek().span);
        }
        Ok(())
    }

    /// Releases levels taken by [`Parser::grow_tree`].
    fn shrink_tree(&mut self, n: usize) {
        self.tree_depth = self.tree_depth.saturating_sub(n);
    }

    /// Tries `f`; on an ordinary mismatch restores the cursor and returns `Ok(None)`.
    fn attempt<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<Option<T>> {
        let saved = self.pos;
        match f(self) {
            Ok(value) => Ok(Some(value)),
            Err(Fail::Expected) => {
                self.pos = saved;
                Ok(None)
            }
            Err(hard) => Err(hard),
        }
    }

    /// Source text covered by `span`.
    fn text(&self, span: Span) -> &'q str {
        self.query.get(span.start..span.end).unwrap_or("")
    }

    /// Builds the error for a parse that failed with [`Fail::Expected`].
    fn expectation_error(&self) -> CypherError {
        let index = self.furthest.min(self.tokens.len() - 1);
        let token = &self.tokens[index];
        let shown: Vec<String> = self.expected.iter().map(Expected::shown).collect();
        let expected = join_alternatives(&shown);
        let description = match token.kind {
            Tok::Error => token.value.clone(),
            Tok::Eof => format!("Unexpected end of input: expected {expected}"),
            _ => format!(
                "Invalid input '{}': expected {expected}",
                self.text(token.span)
            ),
        };
        CypherError::at(
            ErrorKind::Syntax,
            &description,
            self.query,
            token.span.start,
        )
    }
}

/// `a`, `a or b`, `a, b or c`.
fn join_alternatives(items: &[String]) -> String {
    match items {
        [] => "something else".to_string(),
        [only] => only.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// One alternative of an "expected ..." list.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Expected {
    /// Shown as it is (`'('`, `an identifier`).
    Shown(&'static str),
    /// A keyword, shown quoted.
    Keyword(&'static str),
}

impl Expected {
    fn shown(&self) -> String {
        match self {
            Expected::Shown(text) => text.to_string(),
            Expected::Keyword(kw) => format!("'{kw}'"),
        }
    }
}

/// How a token kind is named in "expected ..." lists.
fn describe(kind: Tok) -> &'static str {
    match kind {
        Tok::BlockComment => "a comment",
        Tok::Ident | Tok::EscapedIdent => "an identifier",
        Tok::Integer => "an integer",
        Tok::Float => "a float",
        Tok::String => "a string",
        Tok::Parameter => "a parameter",
        Tok::Iri => "an IRI",
        Tok::LParen => "'('",
        Tok::DynamicOpen => "'$('",
        Tok::RParen => "')'",
        Tok::LBracket => "'['",
        Tok::RBracket => "']'",
        Tok::LBrace => "'{'",
        Tok::RBrace => "'}'",
        Tok::Comma => "','",
        Tok::Dot => "'.'",
        Tok::DotDot => "'..'",
        Tok::Colon => "':'",
        Tok::ColonColon => "'::'",
        Tok::Pipe => "'|'",
        Tok::Amp => "'&'",
        Tok::Bang => "'!'",
        Tok::Eq => "'='",
        Tok::Ne => "'<>'",
        Tok::Lt => "'<'",
        Tok::Le => "'<='",
        Tok::Gt => "'>'",
        Tok::Ge => "'>='",
        Tok::Plus => "'+'",
        Tok::PlusEq => "'+='",
        Tok::Minus => "'-'",
        Tok::Star => "'*'",
        Tok::Slash => "'/'",
        Tok::Percent => "'%'",
        Tok::Caret => "'^'",
        Tok::RegexEq => "'=~'",
        Tok::Semicolon => "';'",
        Tok::Error => "valid input",
        Tok::Eof => "end of input",
    }
}
