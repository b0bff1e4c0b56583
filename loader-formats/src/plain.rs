//! Untyped CSV records: the fields of each row as strings, for Cypher's
//! `LOAD CSV`, which leaves typing to the query (`toInteger(row.age)`).
//!
//! An empty field written without quotes is absent (`None`, Cypher's
//! null), as Neo4j reads it; `""` is the empty string.

use std::io::Read;

use crate::compression::{decoder, Compression};
use crate::split::{SplitError, Splitter};
use crate::Error;

/// The records of one CSV stream, decompressed as its name or first bytes
/// say.
pub struct PlainRecords<'a> {
    file: String,
    compressed: bool,
    splitter: Splitter<Box<dyn Read + Send + 'a>>,
}

impl<'a> PlainRecords<'a> {
    /// Reads `input` (named `file` in errors) with fields separated by
    /// `delimiter` and quoted with `"`.
    pub fn new<R: Read + Send + 'a>(file: &str, input: R, delimiter: u8) -> Result<Self, Error> {
        let (input, compression) = decoder(file, input).map_err(|source| Error::Io {
            file: file.to_string(),
            source,
        })?;
        Ok(PlainRecords {
            file: file.to_string(),
            compressed: compression != Compression::None,
            splitter: Splitter::new(input, delimiter, b'"'),
        })
    }

    /// The next record's fields, or `None` at the end of the stream.
    pub fn next_record(&mut self) -> Result<Option<Vec<Option<String>>>, Error> {
        let more = self.splitter.next_row().map_err(|e| self.error(e))?;
        if !more {
            return Ok(None);
        }
        let mut fields = Vec::with_capacity(self.splitter.fields.len());
        for (i, field) in self.splitter.fields.iter().enumerate() {
            let bytes = self.splitter.field(i);
            if bytes.is_empty() && !field.quoted {
                fields.push(None);
                continue;
            }
            let text = std::str::from_utf8(bytes).map_err(|_| Error::BadUtf8 {
                file: self.file.clone(),
                line: field.line,
                column: field.column,
                field: String::from_utf8_lossy(bytes).into_owned(),
            })?;
            fields.push(Some(text.to_string()));
        }
        Ok(Some(fields))
    }

    /// The physical line the reader has reached (1-based): the line after
    /// the last record read, or the last record's own when it ended the
    /// file without a line break.
    pub fn line(&self) -> u64 {
        self.splitter.line()
    }

    fn error(&self, e: SplitError) -> Error {
        let file = self.file.clone();
        match e {
            SplitError::Io(source) if self.compressed => Error::Truncated {
                file,
                line: self.splitter.line(),
                source,
            },
            SplitError::Io(source) => Error::Io { file, source },
            SplitError::UnterminatedQuote { line, column } => {
                Error::UnterminatedQuote { file, line, column }
            }
            SplitError::TextAfterQuote { line, column } => {
                Error::TextAfterQuote { file, line, column }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::PlainRecords;

    fn records(text: &str, delimiter: u8) -> Vec<Vec<Option<String>>> {
        let mut reader = PlainRecords::new("t.csv", text.as_bytes(), delimiter).unwrap();
        std::iter::from_fn(|| reader.next_record().unwrap()).collect()
    }

    fn s(text: &str) -> Option<String> {
        Some(text.to_string())
    }

    #[test]
    fn unquoted_empty_fields_are_absent_and_quoted_ones_empty() {
        assert_eq!(
            records("a,,\"\",\"x,\"\"y\"\"\"\n1;2\n", b','),
            vec![vec![s("a"), None, s(""), s("x,\"y\"")], vec![s("1;2")]]
        );
        assert_eq!(records("1;2\n", b';'), vec![vec![s("1"), s("2")]]);
    }

    #[test]
    fn quoted_fields_span_lines_and_crlf_ends_records() {
        assert_eq!(
            records("\"a\nb\",c\r\nd,e", b','),
            vec![vec![s("a\nb"), s("c")], vec![s("d"), s("e")]]
        );
    }

    #[test]
    fn broken_input_names_file_and_line() {
        let mut reader = PlainRecords::new("t.csv", "a\n\"b,c\n".as_bytes(), b',').unwrap();
        assert!(reader.next_record().unwrap().is_some());
        let error = reader.next_record().unwrap_err().to_string();
        assert!(error.contains("t.csv"), "{error}");
        let mut reader = PlainRecords::new("t.csv", &b"\xff\xfe,a\n"[..], b',').unwrap();
        let error = reader.next_record().unwrap_err().to_string();
        assert!(error.contains("not valid UTF-8"), "{error}");
    }
}
