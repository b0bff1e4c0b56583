//! One load, applied as one commit through the store's bulk path
//! (`bulk.rs`, which checks the constraints against the load and the
//! graph); records are read through [`each_record`], which carries the
//! load's error policy.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use nereid_errors::Status;
use nereid_loader_formats::Record;
use nereid_storage::Txn;
use nereid_values::NodeId;

use super::progress::{LoadErrorEntry, Progress};
use super::source;
use super::LoadRequest;
use crate::db::{Database, DbError};

/// How a load that did not complete ended.
pub(crate) enum Ended {
    Failed(DbError),
    Cancelled,
}

/// A row that could not be applied: where and why.
pub(crate) struct RowError {
    line: u64,
    column: u64,
    error: DbError,
}

impl RowError {
    /// Makes an error of the row starting on `line`.
    pub(crate) fn at(line: u64) -> impl Fn(DbError) -> RowError + Copy {
        move |error| RowError {
            line,
            column: 1,
            error,
        }
    }
}

/// Runs `request` (its source already resolved to `path`) to the end.
pub(crate) fn run(
    db: &Arc<Database>,
    request: &LoadRequest,
    files: &[std::path::PathBuf],
    progress: &Progress,
    cancel: &AtomicBool,
) -> Result<(), Ended> {
    Progress::add(&progress.files_total, files.len() as u64);
    let sizes = files.iter().filter_map(|f| std::fs::metadata(f).ok());
    Progress::add(&progress.bytes_total, sizes.map(|m| m.len()).sum());
    let inputs = match source::open_all(files, request.format, &progress.bytes) {
        Ok(inputs) => inputs,
        Err(failed) => {
            let (file, e) = *failed;
            let error = reader_error(&e);
            progress.error(entry(&file, e.location(), &error));
            return Err(Ended::Failed(error));
        }
    };
    super::bulk::run(db, inputs, request.fail_on_error, progress, cancel)
}

/// Feeds every record of `files` (name, items) in order to `apply`; a bad
/// row ends the load (`fail_on_error`) or is reported and skipped, a broken
/// file ends the load or that file.
pub(crate) fn each_record<I>(
    files: impl IntoIterator<Item = (String, I)>,
    fail_on_error: bool,
    progress: &Progress,
    cancel: &AtomicBool,
    mut apply: impl FnMut(Record) -> Result<(), RowError>,
) -> Result<(), Ended>
where
    I: IntoIterator<Item = Result<Record, nereid_loader_formats::Error>>,
{
    for (name, items) in files {
        for item in items {
            if cancel.load(Ordering::Relaxed) {
                return Err(Ended::Cancelled);
            }
            Progress::add(&progress.records, 1);
            let failed = match item {
                Ok(record) => match apply(record) {
                    Ok(()) => continue,
                    Err(row) => {
                        let mut error = row.error;
                        error.message =
                            format!("{name}:{}:{}: {}", row.line, row.column, error.message);
                        (Some((row.line, row.column)), error, true)
                    }
                },
                Err(e) => (e.location(), reader_error(&e), e.is_row_error()),
            };
            let (place, error, row_only) = failed;
            progress.error(entry(&name, place, &error));
            if fail_on_error {
                return Err(Ended::Failed(error));
            }
            if !row_only {
                break;
            }
        }
        Progress::add(&progress.files_done, 1);
    }
    Ok(())
}

/// The node whose vertex key is `key` (`id` in `space`), visible to `txn`.
pub(crate) fn endpoint_by_key(
    txn: &Txn,
    key: &str,
    space: Option<&str>,
    id: &str,
) -> Result<NodeId, DbError> {
    txn.node_by_element_id(key).ok_or_else(|| DbError {
        status: Status::EntityNotFound,
        message: format!("no node with id `{id}` in id space {}", space_name(space)),
    })
}

fn space_name(space: Option<&str>) -> String {
    match space {
        Some(space) => format!("`{space}`"),
        None => "global".into(),
    }
}

fn reader_error(e: &nereid_loader_formats::Error) -> DbError {
    DbError {
        status: Status::ExternalResourceFailed,
        message: e.to_string(),
    }
}

fn entry(file: &str, place: Option<(u64, u64)>, error: &DbError) -> LoadErrorEntry {
    let (line, column) = place.unwrap_or((0, 0));
    LoadErrorEntry {
        file: file.to_string(),
        line,
        column,
        status: error.status,
        message: error.message.clone(),
    }
}
