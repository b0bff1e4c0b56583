//! `LoadCsv`: for each input row, one row per record of the CSV file the
//! source expression names, the record in the output slot as a list of
//! strings or, with headers, as a map from the first record's names.
//!
//! The file is streamed: a batch of output reads one batch of records, so
//! a file larger than memory loads as long as what consumes the rows does
//! not hold them (`CALL { } IN TRANSACTIONS` does not). Fields that are
//! empty without quotes are null, as Neo4j reads them; with headers, such a
//! field is a null entry of the map, and a record shorter than the header
//! lacks the missing keys' values (null too).
//!
//! When something above reads them, each row also carries its
//! `linenumber()` (the line its record starts on) and `file()` (the path
//! of the file) in the slots the plan gave them.

use super::Operator;
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::{ExecError, ExecResult};
use nereid_loader_formats::PlainRecords;
use nereid_planner::LoadCsvSpec;
use nereid_values::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

pub(crate) struct LoadCsv {
    input: Box<dyn Operator>,
    spec: LoadCsvSpec,
    /// The input batch whose rows are being loaded, and the position in
    /// its selection of the row whose file is open.
    batch: Option<Batch>,
    position: usize,
    open: Option<OpenFile>,
}

struct OpenFile {
    /// The path `file()` answers.
    name: String,
    records: PlainRecords<'static>,
    /// With headers: the field names, shared by every row's map.
    headers: Option<Vec<Arc<str>>>,
}

impl LoadCsv {
    pub(crate) fn new(input: Box<dyn Operator>, spec: LoadCsvSpec) -> LoadCsv {
        LoadCsv {
            input,
            spec,
            batch: None,
            position: 0,
            open: None,
        }
    }

    /// Opens the file of the current row's source; false when the input is
    /// exhausted.
    fn open_next(&mut self, ctx: &mut ExecContext) -> ExecResult<bool> {
        loop {
            let remaining = self
                .batch
                .as_ref()
                .is_some_and(|b| self.position < b.active_len());
            if !remaining {
                let Some(batch) = self.input.next(ctx)? else {
                    return Ok(false);
                };
                self.batch = Some(batch);
                self.position = 0;
                continue;
            }
            let Some(batch) = &self.batch else {
                return Ok(false);
            };
            let row = batch.selection()[self.position];
            let source = ctx
                .evaluator()
                .eval(&self.spec.source, batch, &[row])?
                .pop()
                .unwrap_or(Value::Null);
            let url = source.into_string().map_err(|source| {
                ExecError::Type(format!(
                    "LOAD CSV expects a string naming the file, got {}",
                    source.type_name()
                ))
            })?;
            self.open = Some(self.open_file(ctx, &url)?);
            return Ok(true);
        }
    }

    fn open_file(&self, ctx: &ExecContext, url: &str) -> ExecResult<OpenFile> {
        let files = ctx.files.as_ref().ok_or_else(|| {
            ExecError::ExternalResource(format!(
                "Couldn't load the external resource at: {url} (this database reads no files)"
            ))
        })?;
        let (name, input) = files.open(url).map_err(|why| {
            ExecError::ExternalResource(format!(
                "Couldn't load the external resource at: {url} ({why})"
            ))
        })?;
        let delimiter = u8::try_from(self.spec.field_terminator).map_err(|_| {
            ExecError::Argument(format!(
                "The field terminator `{}` is not a single-byte character",
                self.spec.field_terminator
            ))
        })?;
        let mut records = PlainRecords::new(&name, input, delimiter).map_err(csv_error)?;
        let headers = if self.spec.headers {
            let names = records.next_record().map_err(csv_error)?;
            Some(
                names
                    .unwrap_or_default()
                    .into_iter()
                    .map(|name| Arc::from(name.unwrap_or_default()))
                    .collect(),
            )
        } else {
            None
        };
        Ok(OpenFile {
            name,
            records,
            headers,
        })
    }
}

/// A read or format error, which names the file, line and column.
fn csv_error(e: nereid_loader_formats::Error) -> ExecError {
    ExecError::ExternalResource(format!("LOAD CSV: {e}"))
}

/// One record as the value the query sees.
fn record_value(fields: Vec<Option<String>>, headers: Option<&[Arc<str>]>) -> Value {
    let field = |f: Option<String>| f.map_or(Value::Null, Value::String);
    match headers {
        None => Value::List(fields.into_iter().map(field).collect()),
        Some(names) => {
            let mut fields = fields.into_iter();
            let map: BTreeMap<_, _> = names
                .iter()
                .map(|name| (name.to_string(), fields.next().map_or(Value::Null, field)))
                .collect();
            Value::Map(map)
        }
    }
}

impl Operator for LoadCsv {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        let mut out = Batch::new(ctx.slot_count);
        while out.active_len() < ctx.batch_size {
            let Some(open) = &mut self.open else {
                if !self.open_next(ctx)? {
                    break;
                }
                continue;
            };
            let line = open.records.line();
            let Some(fields) = open.records.next_record().map_err(csv_error)? else {
                self.open = None;
                self.position += 1;
                continue;
            };
            let mut values = vec![(self.spec.out, record_value(fields, open.headers.as_deref()))];
            if let Some(slot) = self.spec.line {
                values.push((slot, Value::Int(i64::try_from(line).unwrap_or(i64::MAX))));
            }
            if let Some(slot) = self.spec.file {
                values.push((slot, Value::String(open.name.clone())));
            }
            if let Some(batch) = &self.batch {
                let row = batch.selection()[self.position];
                out.push_extended_taking(batch, row, &mut values, &[]);
            }
        }
        Ok((!out.is_empty()).then_some(out))
    }
}
