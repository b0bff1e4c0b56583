//! The streaming reader: header first, then one [`Record`] per data row.
//!
//! A bad row yields its error and the reader goes on with the next row
//! (whether to stop is the loader's `failOnError` decision); an error of
//! the stream itself (I/O, a truncated compressed file, a quote never
//! closed) ends the iteration.

use std::collections::HashMap;
use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use nereid_values::Value;

use crate::compression::{decoder, Compression};
use crate::header::{self, Column, FileKind, Header, HeaderError};
use crate::pieces::PieceEnd;
use crate::record::{NodeRecord, Record, RelationshipRecord};
use crate::split::{Field, SplitError, Splitter};
use crate::value_type::{FieldError, ValueType};
use crate::{Error, Format, Options};

/// Labels and types repeat on every row: they are interned so a row costs
/// no allocation for them. Bounded, so a file of unique labels cannot grow
/// it without limit (past the bound names are simply allocated).
/// The last name found is checked first: a file's type (or label) column
/// usually holds one value, which then costs a comparison, not a hash.
pub(crate) struct Names {
    map: HashMap<Box<[u8]>, Arc<str>>,
    last: Option<(Box<[u8]>, Arc<str>)>,
}

impl Names {
    pub(crate) fn new() -> Names {
        Names {
            map: HashMap::new(),
            last: None,
        }
    }
}

const MAX_NAMES: usize = 4096;

impl Names {
    fn get(&mut self, bytes: &[u8]) -> Result<Arc<str>, FieldError> {
        if let Some((key, name)) = &self.last {
            if **key == *bytes {
                return Ok(name.clone());
            }
        }
        let name = match self.map.get(bytes) {
            Some(name) => name.clone(),
            None => {
                let name: Arc<str> =
                    Arc::from(std::str::from_utf8(bytes).map_err(|_| FieldError::Utf8)?);
                if self.map.len() < MAX_NAMES {
                    self.map.insert(bytes.into(), name.clone());
                }
                name
            }
        };
        self.last = Some((bytes.into(), name.clone()));
        Ok(name)
    }
}

/// Reads one file of one format. Iterate it for records.
pub struct Reader<'a> {
    pub(crate) file: String,
    pub(crate) splitter: Splitter<Box<dyn Read + Send + 'a>>,
    pub(crate) compressed: bool,
    pub(crate) format: Format,
    pub(crate) array_delimiter: u8,
    pub(crate) header: Header,
    /// The header's fields as written, for error messages.
    pub(crate) header_names: Vec<String>,
    pub(crate) names: Names,
    /// Whether relationship ends in canonical decimal come as numbers
    /// ([`Reader::decimal_ends`]).
    pub(crate) decimal_ends: bool,
    /// Whether relationship ends come without their id spaces
    /// ([`Reader::end_spaces_apart`]).
    pub(crate) spaces_apart: bool,
    pub(crate) done: bool,
    /// Where a reader of part of a file stops (`pieces.rs`).
    pub(crate) piece: Option<PieceEnd>,
}

impl Reader<'static> {
    /// Opens a file, decompressing it when its name or first bytes say so.
    pub fn open(path: &Path, format: Format, options: &Options) -> Result<Self, Error> {
        let file = path.display().to_string();
        let input = File::open(path).map_err(|source| Error::Io {
            file: file.clone(),
            source,
        })?;
        Reader::new(&file, input, format, options)
    }
}

impl<'a> Reader<'a> {
    /// Reads the header of `input`; `file` names it in errors and decides
    /// decompression by its extension (magic bytes otherwise).
    pub fn new<R: Read + Send + 'a>(
        file: &str,
        input: R,
        format: Format,
        options: &Options,
    ) -> Result<Self, Error> {
        let (input, compression) = decoder(file, input).map_err(|source| Error::Io {
            file: file.to_string(),
            source,
        })?;
        let compressed = compression != Compression::None;
        let mut splitter = Splitter::new(input, options.delimiter, options.quote);
        let stream_error = |e: SplitError, line: u64| split_error(file, compressed, e, line);
        if !splitter.next_row().map_err(|e| stream_error(e, 1))? {
            return Err(Error::NoHeader {
                file: file.to_string(),
            });
        }
        let line = splitter.fields[0].line;
        let bad = |i: usize, reason| Error::BadHeader {
            file: file.to_string(),
            line,
            column: splitter.fields[i].column,
            field: String::from_utf8_lossy(splitter.field(i)).into_owned(),
            reason,
        };
        let mut header_names = Vec::with_capacity(splitter.fields.len());
        for i in 0..splitter.fields.len() {
            let name =
                std::str::from_utf8(splitter.field(i)).map_err(|_| bad(i, "not valid UTF-8"))?;
            header_names.push(name.to_string());
        }
        let fields: Vec<&str> = header_names.iter().map(String::as_str).collect();
        let header = header::parse(format, &fields).map_err(|e| match e {
            HeaderError::Bad(i, reason) => bad(i, reason),
            HeaderError::UnknownType(i, type_name) => Error::UnknownType {
                file: file.to_string(),
                line,
                column: splitter.fields[i].column,
                field: header_names[i].clone(),
                type_name,
            },
            HeaderError::Missing(column_name) => Error::MissingColumn {
                file: file.to_string(),
                line,
                column_name,
            },
        })?;
        Ok(Reader {
            file: file.to_string(),
            splitter,
            compressed,
            format,
            array_delimiter: options.array_delimiter,
            header,
            header_names,
            names: Names::new(),
            decimal_ends: false,
            spaces_apart: false,
            done: false,
            piece: None,
        })
    }

    /// Makes relationship ends whose ids are in canonical decimal come as
    /// numbers (`RelationshipRecord::decimal_ends`), their texts left
    /// empty: a loader that looks ids up by number then costs no string
    /// per end (docs/adr/0200-relationship-ends-as-decimal-numbers.md).
    pub fn decimal_ends(mut self) -> Self {
        self.decimal_ends = true;
        self
    }

    /// Makes relationship records leave `start_space` and `end_space`
    /// empty: every row's are the header's ([`Header::end_spaces`]), and
    /// a loader that takes them from there once per file saves two
    /// shared-pointer count updates per row, each a locked instruction.
    pub fn end_spaces_apart(mut self) -> Self {
        self.spaces_apart = true;
        self
    }

    pub fn header(&self) -> &Header {
        &self.header
    }

    /// Whether the file is read through a decompressor.
    pub fn is_compressed(&self) -> bool {
        self.compressed
    }

    /// Converts the row the splitter holds.
    fn record(&mut self) -> Result<Record, Error> {
        let (s, names) = (&self.splitter, &mut self.names);
        let errors = Errors {
            file: &self.file,
            header_names: &self.header_names,
            splitter: s,
        };
        let expected = self.header.columns.len();
        if s.fields.len() != expected {
            let at = s.fields[expected.min(s.fields.len() - 1)];
            return Err(Error::FieldCount {
                file: self.file.clone(),
                line: at.line,
                column: at.column,
                expected,
                found: s.fields.len(),
            });
        }
        let line = s.fields[0].line;
        let mut id = None;
        let mut id_space = None;
        let mut labels = Vec::new();
        let mut ends: [Option<(String, Option<Arc<str>>)>; 2] = [None, None];
        let mut decimal_ends = [None, None];
        let mut rel_type = None;
        let mut properties = Vec::with_capacity(self.header.properties().len());
        let relationships = self.header.kind() == FileKind::Relationships;
        for (i, column) in self.header.columns.iter().enumerate() {
            let field = s.fields[i];
            let bytes = s.field(i);
            let fail = |e: FieldError, type_name| errors.field(e, field, i, type_name);
            match column {
                Column::Ignore => {}
                Column::Id { space, property } => {
                    if bytes.is_empty() {
                        if relationships {
                            continue;
                        }
                        return Err(errors.missing(field, i));
                    }
                    let text = utf8(bytes).map_err(|e| fail(e, "id"))?;
                    if let Some(p) = property {
                        properties.push((p.clone(), Value::String(text.to_owned())));
                    }
                    id = Some(text.to_owned());
                    id_space = space.clone();
                }
                Column::Start(space) | Column::End(space) => {
                    if bytes.is_empty() {
                        return Err(errors.missing(field, i));
                    }
                    let end = usize::from(matches!(column, Column::End(_)));
                    let space = match self.spaces_apart {
                        true => None,
                        false => space.clone(),
                    };
                    let number = self.decimal_ends.then(|| crate::canonical_decimal(bytes));
                    if let Some(Some(n)) = number {
                        decimal_ends[end] = Some(n);
                        ends[end] = Some((String::new(), space));
                        continue;
                    }
                    let text = utf8(bytes).map_err(|e| fail(e, "id"))?;
                    ends[end] = Some((text.to_owned(), space));
                }
                Column::Label => {
                    for label in bytes.split(|&b| b == self.array_delimiter) {
                        if !label.is_empty() {
                            labels.push(names.get(label).map_err(|e| fail(e, "label"))?);
                        }
                    }
                }
                Column::Type => {
                    if bytes.is_empty() {
                        return Err(errors.missing(field, i));
                    }
                    rel_type = Some(names.get(bytes).map_err(|e| fail(e, "type"))?);
                }
                Column::Property(p) => {
                    let p = &self.header.properties()[*p];
                    let ty = p.value_type;
                    let value = if bytes.is_empty() {
                        // Absent, except `""` in a string column: an empty string.
                        if !(field.quoted && ty == ValueType::String && !p.array) {
                            continue;
                        }
                        Value::String(String::new())
                    } else if p.array {
                        list(bytes, ty, self.format, self.array_delimiter)
                            .map_err(|e| fail(e, ty.name()))?
                    } else {
                        ty.parse(bytes).map_err(|e| fail(e, ty.name()))?
                    };
                    properties.push((p.name.clone(), value));
                }
            }
        }
        if relationships {
            let [start, end] = ends;
            let ((start, start_space), (end, end_space)) =
                (start.unwrap_or_default(), end.unwrap_or_default());
            let rel_type = rel_type.unwrap_or_else(|| Arc::from("edge"));
            Ok(Record::Relationship(RelationshipRecord {
                id,
                start,
                start_space,
                end,
                end_space,
                rel_type,
                properties,
                line,
                end_numbers: None,
                decimal_ends,
            }))
        } else {
            if labels.is_empty() && self.format == Format::NeptuneCsv {
                // TinkerPop's default: every vertex has a label.
                let has_column = self
                    .header
                    .columns
                    .iter()
                    .any(|c| matches!(c, Column::Label));
                if !has_column {
                    labels.push(Arc::from("vertex"));
                }
            }
            Ok(Record::Node(NodeRecord {
                id: id.unwrap_or_default(),
                id_space,
                labels,
                properties,
                line,
                number: None,
            }))
        }
    }
}

/// Builds a row's errors with their places.
struct Errors<'r, R> {
    file: &'r str,
    header_names: &'r [String],
    splitter: &'r Splitter<R>,
}

impl<R: Read> Errors<'_, R> {
    fn field(&self, e: FieldError, field: Field, i: usize, type_name: &'static str) -> Error {
        let (file, line, column) = (self.file.to_string(), field.line, field.column);
        let name = self.header_names[i].clone();
        match e {
            FieldError::Utf8 => Error::BadUtf8 {
                file,
                line,
                column,
                field: name,
            },
            FieldError::Invalid => Error::BadValue {
                file,
                line,
                column,
                field: name,
                type_name,
                text: String::from_utf8_lossy(self.splitter.field(i)).into_owned(),
            },
        }
    }

    fn missing(&self, field: Field, i: usize) -> Error {
        Error::MissingValue {
            file: self.file.to_string(),
            line: field.line,
            column: field.column,
            field: self.header_names[i].clone(),
        }
    }
}

/// An array field: elements split on the array delimiter (Neptune's
/// format lets a backslash escape it inside an element).
fn list(bytes: &[u8], ty: ValueType, format: Format, d: u8) -> Result<Value, FieldError> {
    let mut out = Vec::new();
    if format == Format::NeptuneCsv && bytes.contains(&b'\\') {
        let mut element = Vec::new();
        let mut iter = bytes.iter().copied().peekable();
        while let Some(b) = iter.next() {
            if b == b'\\' && iter.peek() == Some(&d) {
                element.push(d);
                iter.next();
            } else if b == d {
                out.push(element_value(&element, ty)?);
                element.clear();
            } else {
                element.push(b);
            }
        }
        out.push(element_value(&element, ty)?);
    } else {
        for element in bytes.split(|&b| b == d) {
            out.push(element_value(element, ty)?);
        }
    }
    Ok(Value::List(out.into()))
}

/// An element of an array: strings may be empty, other types may not.
fn element_value(bytes: &[u8], ty: ValueType) -> Result<Value, FieldError> {
    if bytes.is_empty() && ty == ValueType::String {
        return Ok(Value::String(String::new()));
    }
    ty.parse(bytes)
}

fn utf8(bytes: &[u8]) -> Result<&str, FieldError> {
    std::str::from_utf8(bytes).map_err(|_| FieldError::Utf8)
}

fn split_error(file: &str, compressed: bool, e: SplitError, line: u64) -> Error {
    let file = file.to_string();
    match e {
        SplitError::Io(source) if compressed => Error::Truncated { file, line, source },
        SplitError::Io(source) => Error::Io { file, source },
        SplitError::UnterminatedQuote { line, column } => {
            Error::UnterminatedQuote { file, line, column }
        }
        SplitError::TextAfterQuote { line, column } => Error::TextAfterQuote { file, line, column },
    }
}

impl Iterator for Reader<'_> {
    type Item = Result<Record, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done || self.stops_here() {
            self.done = true;
            return None;
        }
        match self.splitter.next_row() {
            Ok(false) => {
                self.done = true;
                None
            }
            Ok(true) => Some(self.record()),
            Err(e) => {
                let error = split_error(&self.file, self.compressed, e, self.splitter.line());
                self.done = !error.is_row_error();
                Some(Err(error))
            }
        }
    }
}
