//! One load, applied as one commit through the store's bulk path
//! (`bulk.rs`, which checks the constraints against the load and the
//! graph); records are read through [`each_record`], which carries the
//! load's error policy.
//!
//! An RDF load *merges*: a vertex record whose IRI is already a vertex
//! (of the load, or committed) adds its labels and property values to it
//! (docs/adr/0108-onegraph-rdf.md), and an edge it already has is not
//! added again (`rdf_edges.rs`). The bulk path cannot add to committed
//! vertices, so a load that would is run as one ordinary transaction
//! instead, committed through the log (and so durable) at the end.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use nereid_errors::Status;
use nereid_loader_formats::{merge_value, InputFormat, NodeRecord, Record, RelationshipRecord};
use nereid_storage::Txn;
use nereid_values::{NodeId, Value};

use super::progress::{LoadErrorEntry, Progress};
use super::source;
use super::user_id::user_key;
use super::LoadRequest;
use crate::db::{Database, DbError};
use crate::status::from_storage;

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

    /// The same error `by` lines further on (see [`Failure::shift_lines`]).
    pub(crate) fn shifted(mut self, by: u64) -> RowError {
        self.line += by;
        self
    }
}

/// Runs `request` (its source already resolved to `files`) to the end;
/// `scope` (the load's id) keeps its blank nodes apart from other loads'.
pub(crate) fn run(
    db: &Arc<Database>,
    request: &LoadRequest,
    files: &[source::InputFile],
    scope: &str,
    progress: &Progress,
    cancel: &AtomicBool,
) -> Result<(), Ended> {
    Progress::add(&progress.files_total, files.len() as u64);
    let sizes = files.iter().map(source::InputFile::size);
    Progress::add(&progress.bytes_total, sizes.sum());
    let fail_on_error = request.fail_on_error;
    let bytes = &progress.bytes;
    // The bulk path opens the files with `bulk` (its RDF dictionary, CSV
    // ends as numbers); the transaction path, which spells every end, without.
    let open = |numbers, bulk: bool| match source::open_all(
        files,
        request.format,
        scope,
        bytes,
        fail_on_error,
        numbers,
        bulk.then(source::Bulk::default),
    ) {
        Ok(inputs) => Ok(inputs),
        Err(failed) => {
            let (file, e) = *failed;
            let error = reader_error(&e);
            progress.error(entry(&file, e.location(), &error));
            Err(Ended::Failed(error))
        }
    };
    let merge = matches!(request.format, InputFormat::Rdf(_));
    // The bulk path numbers an RDF load's vertices by one dictionary
    // (docs/adr/0155-rdf-records-numbered-by-a-shared-dictionary.md).
    let numbers = merge.then(|| Arc::new(nereid_loader_formats::IriNumbers::new()));
    let inputs = open(numbers.clone(), true)?;
    match super::bulk::run(db, inputs, fail_on_error, numbers, progress, cancel)? {
        super::bulk::Outcome::Applied => return Ok(()),
        super::bulk::Outcome::AddsToCommitted => progress.restart(),
    }
    let inputs = open(None, false)?;
    let started = Instant::now();
    let tx = db.begin();
    let files = inputs.into_iter().map(|input| (input.name, input.reader));
    let applied = each_record(files, request.fail_on_error, progress, cancel, |record| {
        apply(tx.store_txn(), record, merge, progress)
    });
    if let Err(ended) = applied {
        db.rollback(tx);
        return Err(ended);
    }
    let applied_in = started.elapsed();
    progress.committing();
    db.commit(tx).map_err(Ended::Failed)?;
    tracing::info!(
        source = %request.source,
        applied_ms = applied_in.as_millis() as u64,
        committed_ms = (started.elapsed() - applied_in).as_millis() as u64,
        "load committed"
    );
    Ok(())
}

/// Feeds every record of `files` (name, items) in order to `apply`; a bad
/// row ends the load (`fail_on_error`) or is reported and skipped, a broken
/// file ends the load or that file ([`report`]). `R` is a record as read
/// (the bulk path's parse workers keep rows and failures apart instead:
/// `parse::walk`).
pub(crate) fn each_record<I, R>(
    files: impl IntoIterator<Item = (String, I)>,
    fail_on_error: bool,
    progress: &Progress,
    cancel: &AtomicBool,
    mut apply: impl FnMut(R) -> Result<(), RowError>,
) -> Result<(), Ended>
where
    I: IntoIterator<Item = Result<R, nereid_loader_formats::Error>>,
{
    for (name, items) in files {
        for item in items {
            if cancel.load(Ordering::Relaxed) {
                return Err(Ended::Cancelled);
            }
            Progress::add(&progress.records, 1);
            let failure = match item {
                Ok(record) => match apply(record) {
                    Ok(()) => continue,
                    Err(row) => Failure::Row(row),
                },
                Err(e) => Failure::Read(e),
            };
            if !report(&name, &failure, fail_on_error, progress)? {
                break;
            }
        }
        Progress::add(&progress.files_done, 1);
    }
    Ok(())
}

/// Why an item of a file is not loaded: the reader's error, or the row's.
pub(crate) enum Failure {
    Read(nereid_loader_formats::Error),
    Row(RowError),
}

impl Failure {
    /// Moves its line on by `by`: a piece of a file counts lines from its
    /// own first until the lines before it are known (`parse::stitch`).
    pub(crate) fn shift_lines(&mut self, by: u64) {
        match self {
            Failure::Read(e) => e.shift_lines(by),
            Failure::Row(row) => row.line += by,
        }
    }
}

/// Reports a failed item of file `name`: it ends the load
/// (`fail_on_error`), else it is kept in the load's errors and the answer
/// says whether the file goes on (a bad row) or ends (a broken stream).
pub(crate) fn report(
    name: &str,
    failure: &Failure,
    fail_on_error: bool,
    progress: &Progress,
) -> Result<bool, Ended> {
    let (place, error, row_only) = match failure {
        Failure::Row(row) => {
            let mut error = row.error.clone();
            error.message = format!("{name}:{}:{}: {}", row.line, row.column, error.message);
            (Some((row.line, row.column)), error, true)
        }
        Failure::Read(e) => (e.location(), reader_error(e), e.is_row_error()),
    };
    progress.error(entry(name, place, &error));
    if fail_on_error {
        return Err(Ended::Failed(error));
    }
    Ok(row_only)
}

fn apply(txn: &Txn, record: Record, merge: bool, progress: &Progress) -> Result<(), RowError> {
    match record {
        Record::Node(node) if merge => merge_node(txn, node, progress),
        Record::Node(node) => create_node(txn, node, progress),
        Record::Relationship(rel) if merge && super::rdf_edges::already_there(txn, &rel)? => Ok(()),
        Record::Relationship(rel) => create_rel(txn, rel, progress),
    }
}

fn create_node(txn: &Txn, node: NodeRecord, progress: &Progress) -> Result<(), RowError> {
    let at = RowError::at(node.line);
    let key = user_key(node.id_space.as_deref(), &node.id).map_err(at)?;
    let labels: Vec<String> = node.labels.iter().map(|l| l.to_string()).collect();
    let properties = property_map(node.properties);
    Progress::add(&progress.property_values, properties.len() as u64);
    txn.create_node_with_key(&key, &labels, &properties)
        .map_err(|e| at(from_storage(e)))?;
    Ok(())
}

/// An RDF vertex: created, or its labels and values added to the vertex
/// of the same IRI (a second value of a key makes a list).
fn merge_node(txn: &Txn, node: NodeRecord, progress: &Progress) -> Result<(), RowError> {
    let at = RowError::at(node.line);
    let key = user_key(node.id_space.as_deref(), &node.id).map_err(at)?;
    let Some(id) = txn.node_by_element_id(&key) else {
        return create_node(txn, node, progress);
    };
    let stored = |e| at(from_storage(e));
    for label in &node.labels {
        if !txn.node_has_label(id, label) {
            txn.add_label(id, label).map_err(stored)?;
        }
    }
    Progress::add(&progress.property_values, node.properties.len() as u64);
    for (key, value) in node.properties {
        let merged = match txn.node_property(id, &key) {
            Some(mut old) => {
                merge_value(&mut old, value);
                old
            }
            None => value,
        };
        txn.set_node_property(id, &key, merged).map_err(stored)?;
    }
    Ok(())
}

fn create_rel(txn: &Txn, rel: RelationshipRecord, progress: &Progress) -> Result<(), RowError> {
    let at = RowError::at(rel.line);
    let start = endpoint(txn, rel.start_space.as_deref(), &rel.start).map_err(at)?;
    let end = endpoint(txn, rel.end_space.as_deref(), &rel.end).map_err(at)?;
    let properties = property_map(rel.properties);
    Progress::add(&progress.property_values, properties.len() as u64);
    txn.create_rel(start, end, &rel.rel_type, &properties)
        .map_err(|e| at(from_storage(e)))?;
    Ok(())
}

/// The node with user id `id` in `space`: a dictionary lookup, seeing the
/// nodes this load created.
pub(super) fn endpoint(txn: &Txn, space: Option<&str>, id: &str) -> Result<NodeId, DbError> {
    endpoint_by_key(txn, &user_key(space, id)?, space, id)
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

fn property_map(properties: Vec<(Arc<str>, Value)>) -> BTreeMap<String, Value> {
    properties
        .into_iter()
        .map(|(key, value)| (key.to_string(), value))
        .collect()
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
