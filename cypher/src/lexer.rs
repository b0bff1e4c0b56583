//! Tokenizer: turns the query text into a vector of spanned tokens.
//!
//! Keywords are NOT distinguished here: every word is a [`Tok::Ident`] and the parser compares
//! case-insensitively. That keeps keywords usable as labels, property keys and (non-reserved)
//! variables, as openCypher requires.
//!
//! Lexical errors (an unknown character, an unterminated string) do not abort tokenization by
//! themselves: they become a [`Tok::Error`] token carrying a message, followed by end of input.
//! The parser reports it only if it gets that far, so an earlier grammar error wins, as in Neo4j.

use logos::Logos;

use crate::ast::Span;

/// Token kinds. Literal payloads live in [`Token::value`].
#[derive(Logos, Copy, Clone, Debug, PartialEq, Eq)]
#[logos(error = LexFailure)]
#[logos(extras = Decoded)]
#[logos(skip r"[ \t\r\n\u{000B}\u{000C}\u{00A0}\u{FEFF}]+")]
#[logos(skip(r"//[^\n]*", allow_greedy = true))]
pub(crate) enum Tok {
    /// `/* ... */`, skipped by the tokenize loop.
    #[token("/*", block_comment)]
    BlockComment,
    /// A word: identifier or keyword; `value` is the text.
    #[regex(r"[\p{L}_][\p{L}\p{N}_]*")]
    Ident,
    /// `` `any text` `` with ` `` ` for a backtick; `value` is the decoded name.
    #[token("`", backtick_ident)]
    EscapedIdent,
    /// Decimal, `0x` hex or `0o` octal digits; `value` is the raw text (converted by the
    /// parser, which knows whether a minus sign precedes it).
    #[regex(r"[0-9]+")]
    #[regex(r"0x[0-9a-fA-F]+")]
    #[regex(r"0o[0-7]+")]
    Integer,
    /// `value` is the raw text.
    #[regex(r"[0-9]+\.[0-9]+([eE][+-]?[0-9]+)?")]
    #[regex(r"\.[0-9]+([eE][+-]?[0-9]+)?")]
    #[regex(r"[0-9]+[eE][+-]?[0-9]+")]
    Float,
    /// Single- or double-quoted; `value` is the decoded content.
    #[token("'", quoted_string)]
    #[token("\"", quoted_string)]
    String,
    /// `$name` or `$0`; `value` is the name without `$`.
    #[regex(r"\$[\p{L}_][\p{L}\p{N}_]*")]
    #[regex(r"\$[0-9]+")]
    Parameter,
    /// `<scheme:...>` (OneGraph IRI); `value` is the IRI without the angle brackets.
    #[regex(r#"<[A-Za-z][A-Za-z0-9+.\-]*:[^<>"{}|^`\\ \t\r\n]*>"#)]
    Iri,
    /// `$(`: opens a dynamic label or type (`SET n:$(expr)`).
    #[token("$(")]
    DynamicOpen,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token(",")]
    Comma,
    #[token(".")]
    Dot,
    #[token("..")]
    DotDot,
    #[token(":")]
    Colon,
    #[token("::")]
    ColonColon,
    #[token("|")]
    Pipe,
    /// `&` (label expressions: `:A&B`).
    #[token("&")]
    Amp,
    /// `!` (label expressions: `:!A`; `!=` is [`Tok::Ne`]).
    #[token("!")]
    Bang,
    #[token("=")]
    Eq,
    #[token("<>")]
    #[token("!=")]
    Ne,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("+")]
    Plus,
    #[token("+=")]
    PlusEq,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token("^")]
    Caret,
    #[token("=~")]
    RegexEq,
    #[token(";")]
    Semicolon,
    /// A lexical error; `value` is the message. Always followed by `Eof`.
    Error,
    /// End of input; its span is empty and sits at the end of the query.
    Eof,
}

/// Why a piece of text is not a token.
#[derive(Clone, Debug, PartialEq, Default)]
pub(crate) enum LexFailure {
    /// No token starts here.
    #[default]
    Unexpected,
    /// A quote, backtick or `/*` without its closing counterpart.
    Unterminated(&'static str),
    /// A bad `\` escape inside a string; byte offset of the backslash and description.
    BadEscape(usize, String),
}

/// One token with its byte span and decoded payload.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Token {
    pub kind: Tok,
    pub span: Span,
    /// Text for words/numbers, decoded content for strings and escaped names, message for errors.
    pub value: String,
}

/// Tokenizes `query`. Never fails: lexical problems become a trailing [`Tok::Error`].
/// Invariant: the result is non-empty and ends with [`Tok::Eof`].
pub(crate) fn tokenize(query: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut lexer = Tok::lexer(query);
    while let Some(result) = lexer.next() {
        let range = lexer.span();
        let span = Span::new(range.start, range.end);
        let slice = lexer.slice();
        match result {
            Ok(Tok::BlockComment) => {}
            Ok(kind) => {
                let value = match kind {
                    Tok::String => lexer.extras.take_decoded(),
                    Tok::EscapedIdent => decode_backticks(slice),
                    Tok::Parameter => slice.get(1..).unwrap_or_default().to_string(),
                    Tok::Iri => slice
                        .get(1..slice.len().saturating_sub(1))
                        .unwrap_or_default()
                        .to_string(),
                    _ => slice.to_string(),
                };
                tokens.push(Token { kind, span, value });
            }
            Err(failure) => {
                let (at, message) = describe_failure(failure, slice, span);
                tokens.push(Token {
                    kind: Tok::Error,
                    span: Span::new(at, span.end),
                    value: message,
                });
                break;
            }
        }
    }
    tokens.push(Token {
        kind: Tok::Eof,
        span: Span::new(query.len(), query.len()),
        value: String::new(),
    });
    tokens
}

fn describe_failure(failure: LexFailure, slice: &str, span: Span) -> (usize, String) {
    match failure {
        LexFailure::Unexpected => {
            let shown: String = slice.chars().take(1).collect();
            (span.start, format!("Invalid input '{shown}'"))
        }
        LexFailure::Unterminated(what) => (span.start, format!("Unterminated {what}")),
        LexFailure::BadEscape(at, what) => (at, what),
    }
}

/// Scratch space the string callback uses to hand its decoded content to [`tokenize`].
#[derive(Default)]
pub(crate) struct Decoded(Option<String>);

impl Decoded {
    fn take_decoded(&mut self) -> String {
        self.0.take().unwrap_or_default()
    }
}

/// Skips a block comment whose `/*` was just matched.
fn block_comment(lex: &mut logos::Lexer<Tok>) -> Result<(), LexFailure> {
    match lex.remainder().find("*/") {
        Some(end) => {
            lex.bump(end + 2);
            Ok(())
        }
        None => {
            lex.bump(lex.remainder().len());
            Err(LexFailure::Unterminated("comment"))
        }
    }
}

/// Consumes a backtick-quoted name whose opening backtick was just matched.
fn backtick_ident(lex: &mut logos::Lexer<Tok>) -> Result<(), LexFailure> {
    let rest = lex.remainder();
    let mut chars = rest.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '`' {
            if matches!(chars.peek(), Some((_, '`'))) {
                chars.next();
                continue;
            }
            lex.bump(i + 1);
            return Ok(());
        }
    }
    lex.bump(rest.len());
    Err(LexFailure::Unterminated("escaped identifier"))
}

/// The name inside backticks, with doubled backticks collapsed.
fn decode_backticks(slice: &str) -> String {
    let inner = slice
        .strip_prefix('`')
        .and_then(|s| s.strip_suffix('`'))
        .unwrap_or(slice);
    inner.replace("``", "`")
}

/// Consumes and decodes a string literal whose opening quote was just matched; the decoded
/// content goes to `lex.extras`.
fn quoted_string(lex: &mut logos::Lexer<Tok>) -> Result<(), LexFailure> {
    let quote = lex.slice().chars().next().unwrap_or('\'');
    let base = lex.span().end;
    let rest = lex.remainder();
    let mut out = String::new();
    let mut chars = rest.char_indices();
    while let Some((i, c)) = chars.next() {
        if c == quote {
            lex.bump(i + c.len_utf8());
            lex.extras.0 = Some(out);
            return Ok(());
        }
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some((_, e)) = chars.next() else { break };
        let decoded = match e {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'b' => '\u{8}',
            'f' => '\u{c}',
            '\'' => '\'',
            '"' => '"',
            '\\' => '\\',
            'u' | 'U' => {
                let digits = if e == 'u' { 4 } else { 8 };
                let hex: String = chars.by_ref().take(digits).map(|(_, h)| h).collect();
                let code = (hex.len() == digits)
                    .then(|| u32::from_str_radix(&hex, 16).ok())
                    .flatten()
                    .and_then(char::from_u32);
                match code {
                    Some(ch) => ch,
                    None => {
                        lex.bump(rest.len());
                        return Err(LexFailure::BadEscape(
                            base + i,
                            format!("Invalid unicode escape '\\{e}{hex}'"),
                        ));
                    }
                }
            }
            other => {
                lex.bump(rest.len());
                return Err(LexFailure::BadEscape(
                    base + i,
                    format!("Invalid escape sequence '\\{other}'"),
                ));
            }
        };
        out.push(decoded);
    }
    lex.bump(rest.len());
    Err(LexFailure::Unterminated("string literal"))
}

#[cfg(test)]
mod tests {
    use super::{tokenize, Tok};

    fn kinds(query: &str) -> Vec<Tok> {
        tokenize(query).into_iter().map(|t| t.kind).collect()
    }

    fn values(query: &str) -> Vec<String> {
        tokenize(query).into_iter().map(|t| t.value).collect()
    }

    #[test]
    fn words_numbers_and_punctuation() {
        use Tok::*;
        assert_eq!(
            kinds("MATCH (n:Person)-[*1..3]->() // comment\n RETURN n.x <> 1.5e3, .5"),
            vec![
                Ident, LParen, Ident, Colon, Ident, RParen, Minus, LBracket, Star, Integer, DotDot,
                Integer, RBracket, Minus, Gt, LParen, RParen, Ident, Ident, Dot, Ident, Ne, Float,
                Comma, Float, Eof
            ]
        );
    }

    #[test]
    fn integer_forms_keep_their_text() {
        assert_eq!(values("0x1F 0o17 42"), vec!["0x1F", "0o17", "42", ""]);
        assert_eq!(
            kinds("0x1F 0o17"),
            vec![Tok::Integer, Tok::Integer, Tok::Eof]
        );
    }

    #[test]
    fn strings_decode_escapes() {
        let tokens = tokenize(r#"'a\'b' "c\"d\n\t\\" '\u0041\U0001F600'"#);
        let decoded: Vec<_> = tokens.iter().map(|t| t.value.as_str()).collect();
        assert_eq!(decoded, vec!["a'b", "c\"d\n\t\\", "A\u{1F600}", ""]);
    }

    #[test]
    fn bad_escape_and_unterminated_string_become_error_tokens() {
        let tokens = tokenize(r"RETURN 'a\qb'");
        assert_eq!(tokens[1].kind, Tok::Error);
        assert_eq!(tokens[1].span.start, 9);
        assert!(tokens[1].value.contains("Invalid escape"));
        let tokens = tokenize("RETURN \"abc");
        assert_eq!(tokens[1].kind, Tok::Error);
        assert_eq!(tokens[1].span.start, 7);
    }

    #[test]
    fn comments_are_skipped_and_unterminated_block_is_an_error() {
        assert_eq!(
            kinds("1 /* x \n y */ 2"),
            vec![Tok::Integer, Tok::Integer, Tok::Eof]
        );
        assert_eq!(kinds("1 /* x"), vec![Tok::Integer, Tok::Error, Tok::Eof]);
    }

    #[test]
    fn backticks_parameters_and_iris() {
        let tokens = tokenize("`a``b` $name $0 <http://x.org/a#b> foaf::name");
        let pairs: Vec<_> = tokens.iter().map(|t| (t.kind, t.value.as_str())).collect();
        assert_eq!(
            pairs,
            vec![
                (Tok::EscapedIdent, "a`b"),
                (Tok::Parameter, "name"),
                (Tok::Parameter, "0"),
                (Tok::Iri, "http://x.org/a#b"),
                (Tok::Ident, "foaf"),
                (Tok::ColonColon, "::"),
                (Tok::Ident, "name"),
                (Tok::Eof, ""),
            ]
        );
    }

    #[test]
    fn less_than_is_not_mistaken_for_an_iri() {
        assert_eq!(
            kinds("a<b AND c> d"),
            vec![
                Tok::Ident,
                Tok::Lt,
                Tok::Ident,
                Tok::Ident,
                Tok::Ident,
                Tok::Gt,
                Tok::Ident,
                Tok::Eof
            ]
        );
    }

    #[test]
    fn unknown_character_is_an_error_token() {
        assert_eq!(kinds("RETURN #"), vec![Tok::Ident, Tok::Error, Tok::Eof]);
    }
}
