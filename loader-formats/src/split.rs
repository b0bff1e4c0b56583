//! RFC 4180 record splitting over bytes.
//!
//! A row's unescaped field contents are copied into one reused buffer and
//! the fields are ranges into it, so splitting allocates nothing once the
//! buffers have grown to the widest row. Scanning uses `memchr` to jump to
//! the next delimiter, quote or line break. Line numbers count physical
//! lines, so a field with embedded newlines moves the count on.
//!
//! Why a second way for plain fields: most rows of a load are a whole line
//! in the buffer with no quote and no carriage return, and most of the
//! rest begin with a few plain fields. Those fields are copied at once,
//! delimiters included, and found by one scan for the delimiter; field by
//! field each was a copy (a `memmove` call), a three-byte scan and a peek,
//! the largest cost of the splitter in a load's profile
//! (benches/RESULTS.md, session 38). The first quote or carriage return
//! hands the rest of the row to the field-by-field path at the start of
//! its field. Both ways give the same fields, places and errors (a test
//! compares them).

use std::io::{self, Read};

use memchr::{memchr2, memchr3, memchr_iter, memrchr};

const BUFFER: usize = 256 * 1024;

/// Where one field of the current row lies.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Field {
    /// The field's bytes in [`Splitter::row`].
    pub start: usize,
    pub end: usize,
    /// The field was written in quotes (`""` is an empty string, not absent).
    pub quoted: bool,
    pub line: u64,
    pub column: u64,
}

/// What stops splitting; converted to [`crate::Error`] by the reader, which
/// knows the file name.
#[derive(Debug)]
pub(crate) enum SplitError {
    Io(io::Error),
    UnterminatedQuote { line: u64, column: u64 },
    TextAfterQuote { line: u64, column: u64 },
}

pub(crate) struct Splitter<R> {
    input: R,
    buf: Box<[u8]>,
    pos: usize,
    end: usize,
    /// Stream offset of `buf[0]`.
    base: u64,
    eof: bool,
    delimiter: u8,
    quote: u8,
    /// The physical line `pos` is on, and the stream offset it starts at.
    line: u64,
    line_start: u64,
    pub row: Vec<u8>,
    pub fields: Vec<Field>,
}

impl<R: Read> Splitter<R> {
    pub fn new(input: R, delimiter: u8, quote: u8) -> Self {
        Self::with_buffer(input, delimiter, quote, BUFFER)
    }

    /// A splitter reading `buffer` bytes at a time (tests use a few, so
    /// that few lines lie whole in the buffer).
    fn with_buffer(input: R, delimiter: u8, quote: u8, buffer: usize) -> Self {
        Splitter {
            input,
            buf: vec![0; buffer.max(1)].into_boxed_slice(),
            pos: 0,
            end: 0,
            base: 0,
            eof: false,
            delimiter,
            quote,
            line: 1,
            line_start: 0,
            row: Vec::new(),
            fields: Vec::new(),
        }
    }

    /// The physical line the reader has reached (for errors of the stream).
    pub fn line(&self) -> u64 {
        self.line
    }

    pub fn delimiter(&self) -> u8 {
        self.delimiter
    }

    pub fn quote(&self) -> u8 {
        self.quote
    }

    /// The stream offset of the next byte to read: between rows, where
    /// the next row begins (before any blank lines it skips).
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }

    /// The bytes of field `i` of the current row.
    pub fn field(&self, i: usize) -> &[u8] {
        let field = self.fields[i];
        &self.row[field.start..field.end]
    }

    /// Makes at least one unread byte available; false at the end of input.
    fn fill(&mut self) -> Result<bool, SplitError> {
        if self.pos < self.end {
            return Ok(true);
        }
        if self.eof {
            return Ok(false);
        }
        self.base += self.end as u64;
        self.pos = 0;
        self.end = 0;
        loop {
            match self.input.read(&mut self.buf) {
                Ok(0) => {
                    self.eof = true;
                    return Ok(false);
                }
                Ok(n) => {
                    self.end = n;
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(SplitError::Io(e)),
            }
        }
    }

    fn peek(&mut self) -> Result<Option<u8>, SplitError> {
        Ok(if self.fill()? {
            Some(self.buf[self.pos])
        } else {
            None
        })
    }

    /// Consumes a `\n` at `pos`, starting a new physical line.
    fn newline(&mut self) {
        self.pos += 1;
        self.line += 1;
        self.line_start = self.base + self.pos as u64;
    }

    fn column(&self) -> u64 {
        self.base + self.pos as u64 - self.line_start + 1
    }

    /// Reads the next row into `row`/`fields`; false at the end of input.
    /// Empty lines between rows are skipped. After a `TextAfterQuote` error
    /// the rest of that physical line is skipped, so the next call starts
    /// afresh.
    pub fn next_row(&mut self) -> Result<bool, SplitError> {
        self.row.clear();
        self.fields.clear();
        // Skip blank lines (also the last line break of the file).
        let (mut line, mut column);
        loop {
            line = self.line;
            column = self.column();
            match self.peek()? {
                None => return Ok(false),
                Some(b'\n') => self.newline(),
                Some(b'\r') => {
                    self.pos += 1;
                    if self.peek()? == Some(b'\n') {
                        self.newline();
                    } else {
                        // A lone CR is the first field's first byte.
                        self.row.push(b'\r');
                        break;
                    }
                }
                Some(_) => break,
            }
        }
        if self.row.is_empty() {
            if self.plain_prefix(line, column) {
                return Ok(true);
            }
            column = self.column();
        }
        loop {
            let start = self.row.len();
            let first = if self.row.is_empty() || !self.fields.is_empty() {
                self.peek()?
            } else {
                None
            };
            let (quoted, more) = if first == Some(self.quote) {
                self.pos += 1;
                (true, self.quoted_field(line, column)?)
            } else {
                (false, self.plain_field()?)
            };
            self.fields.push(Field {
                start,
                end: self.row.len(),
                quoted,
                line,
                column,
            });
            if !more {
                return Ok(true);
            }
            line = self.line;
            column = self.column();
        }
    }

    /// Reads at once the fields of the row at `pos` (on `line`, from
    /// `column`) that lie in the buffer before its first quote, carriage
    /// return or line break: each ends at a delimiter (or that line break),
    /// as [`Splitter::plain_field`] would find. True when that was the
    /// whole row (a line break came first); otherwise `pos` is left at the
    /// start of the first field not read, for the field-by-field path.
    fn plain_prefix(&mut self, line: u64, column: u64) -> bool {
        let delimiter = self.delimiter;
        if delimiter == self.quote || matches!(delimiter, b'\n' | b'\r') {
            return false;
        }
        let rest = &self.buf[self.pos..self.end];
        let stop = memchr3(self.quote, b'\r', b'\n', rest);
        let whole = stop.is_some_and(|at| rest[at] == b'\n');
        let len = match (whole, stop) {
            (true, Some(at)) => at,
            // Only the fields before the last delimiter ahead of the stop.
            _ => match memrchr(delimiter, &rest[..stop.unwrap_or(rest.len())]) {
                Some(at) => at + 1,
                None => return false,
            },
        };
        let text = &rest[..len];
        let from = self.row.len();
        self.row.extend_from_slice(text);
        let mut start = 0;
        let last = whole.then_some(len);
        for end in memchr_iter(delimiter, text).chain(last) {
            self.fields.push(Field {
                start: from + start,
                end: from + end,
                quoted: false,
                line,
                column: column + start as u64,
            });
            start = end + 1;
        }
        self.pos += len;
        if whole {
            self.newline();
        }
        whole
    }

    /// Reads an unquoted field up to its delimiter; true if another field
    /// of the same row follows.
    fn plain_field(&mut self) -> Result<bool, SplitError> {
        let delimiter = self.delimiter;
        loop {
            if !self.fill()? {
                return Ok(false);
            }
            let Some(stop) = self.copy_until(|c| memchr3(delimiter, b'\n', b'\r', c)) else {
                continue;
            };
            if stop == delimiter {
                self.pos += 1;
                return Ok(true);
            }
            if stop == b'\n' {
                self.newline();
                return Ok(false);
            }
            // CR: the row ends only at CRLF.
            self.pos += 1;
            match self.peek()? {
                Some(b'\n') => {
                    self.newline();
                    return Ok(false);
                }
                None => return Ok(false),
                Some(_) => self.row.push(b'\r'),
            }
        }
    }

    /// Copies the unread bytes before the first stop byte `find` locates
    /// into the row and returns that byte, left unread; `None` when the
    /// buffer ran out first (everything in it copied).
    fn copy_until(&mut self, find: impl Fn(&[u8]) -> Option<usize>) -> Option<u8> {
        let chunk = &self.buf[self.pos..self.end];
        let found = find(chunk);
        let n = found.unwrap_or(chunk.len());
        self.row.extend_from_slice(&chunk[..n]);
        self.pos += n;
        found.map(|_| self.buf[self.pos])
    }

    /// Reads a quoted field after its opening quote; true if another field
    /// of the same row follows.
    fn quoted_field(&mut self, line: u64, column: u64) -> Result<bool, SplitError> {
        loop {
            if !self.fill()? {
                return Err(SplitError::UnterminatedQuote { line, column });
            }
            let quote = self.quote;
            let Some(stop) = self.copy_until(|c| memchr2(quote, b'\n', c)) else {
                continue;
            };
            if stop == b'\n' {
                self.row.push(b'\n');
                self.newline();
                continue;
            }
            self.pos += 1;
            match self.peek()? {
                Some(q) if q == self.quote => {
                    self.row.push(q);
                    self.pos += 1;
                }
                None => return Ok(false),
                Some(d) if d == self.delimiter => {
                    self.pos += 1;
                    return Ok(true);
                }
                Some(b'\n') => {
                    self.newline();
                    return Ok(false);
                }
                Some(b'\r') => {
                    self.pos += 1;
                    if self.peek()? == Some(b'\n') {
                        self.newline();
                        return Ok(false);
                    }
                    return Err(self.text_after_quote());
                }
                Some(_) => return Err(self.text_after_quote()),
            }
        }
    }

    /// Builds the error and skips to the start of the next physical line.
    fn text_after_quote(&mut self) -> SplitError {
        let error = SplitError::TextAfterQuote {
            line: self.line,
            column: self.column(),
        };
        loop {
            match self.fill() {
                Ok(true) => {}
                Ok(false) => return error,
                Err(e) => return e,
            }
            match memchr::memchr(b'\n', &self.buf[self.pos..self.end]) {
                Some(i) => {
                    self.pos += i;
                    self.newline();
                    return error;
                }
                None => self.pos = self.end,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(text: &str) -> Vec<Vec<(String, bool, u64, u64)>> {
        let mut s = Splitter::new(text.as_bytes(), b',', b'"');
        let mut out = Vec::new();
        while s.next_row().unwrap() {
            out.push(
                (0..s.fields.len())
                    .map(|i| {
                        let f = s.fields[i];
                        (
                            String::from_utf8(s.field(i).to_vec()).unwrap(),
                            f.quoted,
                            f.line,
                            f.column,
                        )
                    })
                    .collect(),
            );
        }
        out
    }

    /// Every row, error and offset of `text` split with `buffer` bytes
    /// at a time, up to an error that ends the stream.
    fn split_all(text: &[u8], buffer: usize) -> Vec<String> {
        let mut s = Splitter::with_buffer(text, b',', b'"', buffer);
        let mut out = Vec::new();
        loop {
            match s.next_row() {
                Ok(false) => return out,
                Ok(true) => {
                    let fields: Vec<_> = (0..s.fields.len())
                        .map(|i| {
                            let f = s.fields[i];
                            (s.field(i).to_vec(), f.quoted, f.line, f.column)
                        })
                        .collect();
                    out.push(format!("{fields:?} then {}:{}", s.offset(), s.line()));
                }
                Err(e) => {
                    out.push(format!("{e:?} then {}:{}", s.offset(), s.line()));
                    if !matches!(e, SplitError::TextAfterQuote { .. }) {
                        return out;
                    }
                }
            }
        }
    }

    /// Plain fields read at once (a line in the buffer without a quote or
    /// a carriage return, or the fields before one) split exactly as field
    /// by field: random texts of plain and quoted fields, blank lines, CRLF, lone CRs, quotes inside unquoted
    /// fields, text after a closing quote, a missing last line break, read
    /// with a buffer of one byte (never a whole line) and with larger ones.
    #[test]
    fn plain_fields_read_at_once_split_as_field_by_field() {
        let mut next = crate::test_random::below(0x2545_f491_4f6c_dd1d);
        let pieces: [&[u8]; 10] = [
            b"a",
            b"bc",
            b",",
            b",",
            b"\n",
            b"\n",
            b"\"q,\"\"x\"",
            b"\r\n",
            b"\r",
            b"d\"e",
        ];
        let mut whole = 0;
        for _ in 0..3000 {
            let mut text = Vec::new();
            for _ in 0..next(40) {
                // Mostly plain rows, so that many lines are read whole.
                let piece = match next(10) < 7 {
                    true => pieces[next(6) as usize],
                    false => pieces[next(pieces.len() as u64) as usize],
                };
                text.extend_from_slice(piece);
            }
            let expected = split_all(&text, 1);
            for buffer in [2, 5, 64, BUFFER] {
                assert_eq!(split_all(&text, buffer), expected, "{text:?} by {buffer}");
            }
            whole += usize::from(text.contains(&b'\n') && !text.contains(&b'"'));
        }
        assert!(whole > 100, "too few texts had plain lines: {whole}");
    }

    #[test]
    fn plain_quoted_and_multiline_fields_keep_their_places() {
        let r = rows("a,\"b,\"\"c\"\"\nd\",e\r\n\n,\"\"\n");
        assert_eq!(
            r,
            vec![
                vec![
                    ("a".into(), false, 1, 1),
                    ("b,\"c\"\nd".into(), true, 1, 3),
                    ("e".into(), false, 2, 4),
                ],
                vec![("".into(), false, 4, 1), ("".into(), true, 4, 2)],
            ]
        );
    }

    #[test]
    fn a_lone_carriage_return_is_data() {
        assert_eq!(rows("a\rb,c")[0][0].0, "a\rb");
    }

    #[test]
    fn text_after_a_quote_skips_the_line() {
        let mut s = Splitter::new(&b"\"a\"x,b\nc\n"[..], b',', b'"');
        assert!(matches!(
            s.next_row(),
            Err(SplitError::TextAfterQuote { line: 1, column: 4 })
        ));
        assert!(s.next_row().unwrap());
        assert_eq!(s.field(0), b"c");
    }

    #[test]
    fn an_unclosed_quote_reports_where_the_field_starts() {
        let mut s = Splitter::new(&b"a\nb,\"c\nd"[..], b',', b'"');
        assert!(s.next_row().unwrap());
        assert!(matches!(
            s.next_row(),
            Err(SplitError::UnterminatedQuote { line: 2, column: 3 })
        ));
    }
}
