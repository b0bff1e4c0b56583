//! The common case of N-Triples and N-Quads read without copying: each
//! statement's terms borrowed from the piece's bytes
//! (docs/adr/0163-rdf-statements-borrowed-from-the-piece.md).
//!
//! oxttl builds an owned `String` per term of every statement (three or
//! four allocations and frees per triple) and runs a general tokenizer
//! over each byte; after the IRI checks left the workers (ADR 0155) that
//! was most of what a parse worker did. These formats are line based and
//! simple, so this reader handles a subset of them, statement by
//! statement: IRIs without `\u` escapes, ASCII blank node labels,
//! literals whose escapes are the single-character ones (`\t`, `\"`...),
//! language tags, datatypes, comments. On anything else it stops, and
//! the caller parses the piece with oxttl, which keeps every error's line
//! and column. Checks of the terms' contents (an IRI's or a language
//! tag's validity, `rdf:langString`) stay with the numbered group, as for
//! oxttl's lenient parse.

use std::collections::VecDeque;

use oxrdf::vocab::rdf;
use oxrdf::{
    BlankNodeRef, GraphNameRef, LiteralRef, NamedNodeRef, NamedOrBlankNodeRef, QuadRef, TermRef,
};

/// Calls `add` with each statement of `piece`, in order; false as soon as
/// `piece` holds what this reader leaves to oxttl (or `add` answers
/// false). N-Quads statements may name a graph when `quads`.
#[cfg(test)]
pub(super) fn each_statement(
    piece: &[u8],
    quads: bool,
    add: impl FnMut(QuadRef<'_>) -> bool,
) -> bool {
    each_statement_ahead(piece, quads, |_| {}, add)
}

/// How many statements ahead of `add` their IRIs are named to `ahead`.
const AHEAD: usize = 8;

/// Calls `add` with each statement of `piece`, in order, as
/// `each_statement` does (false as soon as the piece holds what this
/// reader leaves to oxttl, or `add` answers false), naming to `ahead` the IRIs a statement's `add`
/// will look up (its object IRI, and its subject when it is not the
/// previous statement's) [`AHEAD`] statements before `add` takes it: the
/// dictionary's probes are cache misses at random, and a hint that far
/// ahead lets them overlap (docs/adr/0170-rdf-load-prefetch-and-reserved-rows.md).
/// A statement whose literal had to be rewritten into the reader's buffers
/// is not queued: the statements queued before it are added first.
pub(super) fn each_statement_ahead(
    piece: &[u8],
    quads: bool,
    mut ahead: impl FnMut(&str),
    mut add: impl FnMut(QuadRef<'_>) -> bool,
) -> bool {
    let Ok(text) = std::str::from_utf8(piece) else {
        return false;
    };
    let mut value = String::new();
    let mut tag = String::new();
    let mut queued: VecDeque<Statement<'_>> = VecDeque::with_capacity(AHEAD + 1);
    let mut last_subject = "";
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let mut at = Cursor { line, at: 0 };
        at.skip_blanks();
        if at.is_end_or_comment() {
            continue;
        }
        let Some(statement) = at.statement(quads, &mut value, &mut tag) else {
            return false;
        };
        if !at.is_end_or_comment() {
            return false;
        }
        if !statement.is_borrowed() {
            let earlier = queued.drain(..).all(|queued| add(queued.quad("", "")));
            if !earlier || !add(statement.quad(&value, &tag)) {
                return false;
            }
            continue;
        }
        statement.name_ahead(&mut last_subject, &mut ahead);
        queued.push_back(statement);
        if queued.len() > AHEAD {
            let first = queued.pop_front().map(|first| add(first.quad("", "")));
            if first == Some(false) {
                return false;
            }
        }
    }
    queued.into_iter().all(|queued| add(queued.quad("", "")))
}

/// A statement's terms as read, the literal's value and tag aside (in the
/// reader's buffers when they had to be rewritten).
struct Statement<'a> {
    subject: NamedOrBlankNodeRef<'a>,
    predicate: NamedNodeRef<'a>,
    object: Object<'a>,
    graph: GraphNameRef<'a>,
}

enum Object<'a> {
    Node(TermRef<'a>),
    /// A literal: its value (`None`: in the value buffer), then its tag
    /// (`Some(None)`: in the tag buffer) or its datatype.
    Literal {
        value: Option<&'a str>,
        tag: Option<Option<&'a str>>,
        datatype: Option<NamedNodeRef<'a>>,
    },
}

impl<'a> Statement<'a> {
    /// Whether every term is borrowed from the piece (none in the
    /// reader's buffers).
    fn is_borrowed(&self) -> bool {
        match self.object {
            Object::Node(_) => true,
            Object::Literal { value, tag, .. } => value.is_some() && tag != Some(None),
        }
    }

    /// Names to `ahead` the IRIs numbering this statement will look up:
    /// its subject unless it is `last_subject` (the numbered group keeps
    /// the last subject's number), and its object unless it is a label.
    fn name_ahead(&self, last_subject: &mut &'a str, ahead: &mut impl FnMut(&str)) {
        if let NamedOrBlankNodeRef::NamedNode(subject) = self.subject {
            if subject.as_str() != *last_subject {
                ahead(subject.as_str());
                *last_subject = subject.as_str();
            }
        }
        if let Object::Node(TermRef::NamedNode(object)) = self.object {
            if self.predicate != rdf::TYPE {
                ahead(object.as_str());
            }
        }
    }

    fn quad<'b>(&self, value: &'b str, tag: &'b str) -> QuadRef<'b>
    where
        'a: 'b,
    {
        let object = match self.object {
            Object::Node(term) => term,
            Object::Literal {
                value: v,
                tag: t,
                datatype,
            } => {
                let v = v.unwrap_or(value);
                TermRef::Literal(match (t, datatype) {
                    (Some(t), _) => {
                        LiteralRef::new_language_tagged_literal_unchecked(v, t.unwrap_or(tag))
                    }
                    (None, Some(datatype)) => LiteralRef::new_typed_literal(v, datatype),
                    (None, None) => LiteralRef::new_simple_literal(v),
                })
            }
        };
        QuadRef {
            subject: self.subject,
            predicate: self.predicate,
            object,
            graph_name: self.graph,
        }
    }
}

/// A place in one line (without its line feed).
struct Cursor<'a> {
    line: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    fn peek(&self) -> Option<u8> {
        self.line.as_bytes().get(self.at).copied()
    }

    fn skip_blanks(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t')) {
            self.at += 1;
        }
    }

    fn is_end_or_comment(&self) -> bool {
        matches!(self.peek(), None | Some(b'#'))
    }

    /// One statement, its final `.` and the blanks after it read; `None`
    /// for what is left to oxttl.
    fn statement(
        &mut self,
        quads: bool,
        value: &mut String,
        tag: &mut String,
    ) -> Option<Statement<'a>> {
        let subject = match self.peek()? {
            b'<' => NamedOrBlankNodeRef::NamedNode(self.iri()?),
            b'_' => NamedOrBlankNodeRef::BlankNode(self.blank()?),
            _ => return None,
        };
        self.skip_blanks();
        if self.peek()? != b'<' {
            return None;
        }
        let predicate = self.iri()?;
        self.skip_blanks();
        let object = match self.peek()? {
            b'<' => Object::Node(TermRef::NamedNode(self.iri()?)),
            b'_' => Object::Node(TermRef::BlankNode(self.blank()?)),
            b'"' => self.literal(value, tag)?,
            _ => return None,
        };
        self.skip_blanks();
        let graph = match self.peek()? {
            b'<' if quads => GraphNameRef::NamedNode(self.iri()?),
            b'_' if quads => GraphNameRef::BlankNode(self.blank()?),
            _ => GraphNameRef::DefaultGraph,
        };
        self.skip_blanks();
        if self.peek()? != b'.' {
            return None;
        }
        self.at += 1;
        self.skip_blanks();
        Some(Statement {
            subject,
            predicate,
            object,
            graph,
        })
    }

    /// `<...>` without escapes or the characters IRIREF forbids (whether
    /// the text is a valid absolute IRI is checked when it is numbered).
    fn iri(&mut self) -> Option<NamedNodeRef<'a>> {
        let start = self.at + 1;
        let bytes = self.line.as_bytes();
        let mut end = start;
        loop {
            match *bytes.get(end)? {
                b'>' => break,
                b if forbidden_in_iri(b) => return None,
                _ => end += 1,
            }
        }
        self.at = end + 1;
        Some(NamedNodeRef::new_unchecked(&self.line[start..end]))
    }

    /// `_:label`, the label of ASCII letters, digits, `_`, `-` and inner
    /// `.` (a `.` it ends with ends the statement instead).
    fn blank(&mut self) -> Option<BlankNodeRef<'a>> {
        let bytes = self.line.as_bytes();
        if bytes.get(self.at + 1) != Some(&b':') {
            return None;
        }
        let start = self.at + 2;
        let first = *bytes.get(start)?;
        if !(first.is_ascii_alphanumeric() || first == b'_') {
            return None;
        }
        let mut end = start + 1;
        while let Some(&b) = bytes.get(end) {
            if !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')) {
                break;
            }
            end += 1;
        }
        while bytes[end - 1] == b'.' {
            end -= 1;
        }
        if bytes.get(end).is_some_and(|&b| b >= 0x80) {
            return None;
        }
        self.at = end;
        Some(BlankNodeRef::new_unchecked(&self.line[start..end]))
    }

    /// A literal with its tag or datatype. Its value is borrowed unless it
    /// has escapes (then unescaped into `value`), its tag unless it has
    /// capitals (then lowercased into `tag`, as oxttl gives tags).
    fn literal(&mut self, value: &mut String, tag: &mut String) -> Option<Object<'a>> {
        let start = self.at + 1;
        let bytes = self.line.as_bytes();
        let mut end = start;
        let mut escaped = false;
        loop {
            end += memchr::memchr2(b'"', b'\\', bytes.get(end..)?)?;
            if bytes[end] == b'"' {
                break;
            }
            escaped = true;
            end += 2;
        }
        let raw = &self.line[start..end];
        let borrowed = match escaped {
            false => Some(raw),
            true => {
                unescape(raw, value)?;
                None
            }
        };
        self.at = end + 1;
        let (tag, datatype) = match self.peek() {
            Some(b'@') => (Some(self.tag(tag)?), None),
            Some(b'^') if bytes.get(self.at + 1) == Some(&b'^') => {
                self.at += 2;
                if self.peek()? != b'<' {
                    return None;
                }
                (None, Some(self.iri()?))
            }
            _ => (None, None),
        };
        Some(Object::Literal {
            value: borrowed,
            tag,
            datatype,
        })
    }

    /// `@` and a tag of ASCII letters, digits and `-`, starting with a
    /// letter (its validity is checked by the numbered group); `None`
    /// inside when lowercased into `tag`.
    fn tag(&mut self, tag: &mut String) -> Option<Option<&'a str>> {
        let start = self.at + 1;
        let bytes = self.line.as_bytes();
        if !bytes.get(start)?.is_ascii_alphabetic() {
            return None;
        }
        let mut end = start;
        while bytes
            .get(end)
            .is_some_and(|&b| b.is_ascii_alphanumeric() || b == b'-')
        {
            end += 1;
        }
        self.at = end;
        let text = &self.line[start..end];
        if !text.bytes().any(|b| b.is_ascii_uppercase()) {
            return Some(Some(text));
        }
        tag.clear();
        tag.push_str(text);
        tag.make_ascii_lowercase();
        Some(None)
    }
}

/// Bytes IRIREF does not allow unescaped, and `\` (escapes are left to
/// oxttl).
fn forbidden_in_iri(b: u8) -> bool {
    b <= 0x20
        || matches!(
            b,
            b'<' | b'>' | b'"' | b'{' | b'}' | b'|' | b'^' | b'`' | b'\\'
        )
}

/// `raw` with its single-character escapes (ECHAR) replaced, into `out`;
/// `None` for `\u`/`\U` escapes (left to oxttl) or an unknown one.
fn unescape(raw: &str, out: &mut String) -> Option<()> {
    out.clear();
    let mut rest = raw;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let c = match rest.as_bytes().get(at + 1)? {
            b't' => '\t',
            b'b' => '\u{8}',
            b'n' => '\n',
            b'r' => '\r',
            b'f' => '\u{c}',
            b'"' => '"',
            b'\'' => '\'',
            b'\\' => '\\',
            _ => return None,
        };
        out.push(c);
        rest = &rest[at + 2..];
    }
    out.push_str(rest);
    Some(())
}
