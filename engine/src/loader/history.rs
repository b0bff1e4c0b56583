//! Loads that ended, kept in the data directory (`<data_dir>/loads/`, one
//! JSON file per load), so that after a restart `GET /loader/{id}` still
//! answers a load's final status and `RESUME` / `AUTO` still skip the
//! files a completed load of the same source applied.
//!
//! A record is written when its load has ended, after a completed load's
//! commit and checkpoint: a crash in between leaves the load applied but
//! not recorded, and a later `AUTO` load of the source takes its files
//! again. For CSV with ids that load then fails on the duplicate ids and
//! applies nothing; RDF loads are sets, so taking a file again adds
//! nothing but its blank nodes (docs/adr/0142-load-history-in-the-data-dir.md).

use std::path::{Path, PathBuf};
use std::time::Duration;

use nereid_errors::Status;
use serde::{Deserialize, Serialize};

use super::progress::{LoadErrorEntry, LoadPhase, LoadState, LoadStatus};
use crate::db::DbError;

/// One ended load as saved.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub(crate) struct Record {
    pub(crate) id: String,
    pub(crate) source: String,
    /// [`nereid_loader_formats::InputFormat::name`].
    pub(crate) format: String,
    state: String,
    files_total: u64,
    files_done: u64,
    records: u64,
    bytes: u64,
    bytes_total: u64,
    property_values: u64,
    elapsed_ms: u64,
    errors: Vec<ErrorRecord>,
    error_count: u64,
    failure: Option<ErrorRecord>,
    /// The files of the source applied by this load and the loads of the
    /// source before it (`mode.rs`).
    pub(crate) loaded: Vec<String>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct ErrorRecord {
    file: String,
    line: u64,
    column: u64,
    code: String,
    message: String,
}

impl Record {
    /// The record of a load that ended with `status`.
    pub(crate) fn of(status: &LoadStatus, format: &str, loaded: Vec<String>) -> Record {
        Record {
            id: status.id.clone(),
            source: status.source.clone(),
            format: format.to_owned(),
            state: status.state.name().to_owned(),
            files_total: status.files_total,
            files_done: status.files_done,
            records: status.records,
            bytes: status.bytes,
            bytes_total: status.bytes_total,
            property_values: status.property_values,
            elapsed_ms: u64::try_from(status.elapsed.as_millis()).unwrap_or(u64::MAX),
            errors: status.errors.iter().map(ErrorRecord::of).collect(),
            error_count: status.error_count,
            failure: status.failure.as_ref().map(|f| ErrorRecord {
                file: String::new(),
                line: 0,
                column: 0,
                code: f.status.code().to_owned(),
                message: f.message.clone(),
            }),
            loaded,
        }
    }

    /// The status it records (`None` for a record this version cannot
    /// read back: an unknown state).
    pub(crate) fn status(&self) -> Option<LoadStatus> {
        let state = [
            LoadState::Completed,
            LoadState::Failed,
            LoadState::Cancelled,
        ]
        .into_iter()
        .find(|state| state.name() == self.state)?;
        Some(LoadStatus {
            id: self.id.clone(),
            state,
            source: self.source.clone(),
            files_total: self.files_total,
            files_done: self.files_done,
            records: self.records,
            bytes: self.bytes,
            bytes_total: self.bytes_total,
            phase: LoadPhase::Committing,
            property_values: self.property_values,
            elapsed: Duration::from_millis(self.elapsed_ms),
            errors: self.errors.iter().map(ErrorRecord::entry).collect(),
            error_count: self.error_count,
            failure: self.failure.as_ref().map(|f| DbError {
                status: status_of(&f.code),
                message: f.message.clone(),
            }),
        })
    }
}

impl ErrorRecord {
    fn of(entry: &LoadErrorEntry) -> ErrorRecord {
        ErrorRecord {
            file: entry.file.clone(),
            line: entry.line,
            column: entry.column,
            code: entry.status.code().to_owned(),
            message: entry.message.clone(),
        }
    }

    fn entry(&self) -> LoadErrorEntry {
        LoadErrorEntry {
            file: self.file.clone(),
            line: self.line,
            column: self.column,
            status: status_of(&self.code),
            message: self.message.clone(),
        }
    }
}

/// A saved code read back; a code this version does not know (written
/// by a later one) is reported as a general error rather than dropped.
fn status_of(code: &str) -> Status {
    Status::from_code(code).unwrap_or(Status::General)
}

/// The directory of saved loads.
pub(crate) struct History {
    dir: PathBuf,
}

impl History {
    pub(crate) fn new(dir: &Path) -> History {
        History {
            dir: dir.to_path_buf(),
        }
    }

    /// Saves `record` whole or not at all (written aside, then renamed).
    pub(crate) fn save(&self, record: &Record) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.dir)?;
        let text = serde_json::to_vec_pretty(record).map_err(std::io::Error::other)?;
        let name = file_name(&record.id);
        let aside = self.dir.join(format!("{name}.tmp"));
        std::fs::write(&aside, text)?;
        std::fs::File::open(&aside)?.sync_all()?;
        std::fs::rename(&aside, self.dir.join(name))?;
        std::fs::File::open(&self.dir)?.sync_all()
    }

    /// Every saved load, in the order they ended (by file time, then id);
    /// files that cannot be read are skipped with a warning.
    pub(crate) fn read_all(&self) -> Vec<Record> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut found = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|ext| ext != "json") {
                continue;
            }
            let read = std::fs::read(&path)
                .map_err(|e| e.to_string())
                .and_then(|bytes| {
                    serde_json::from_slice::<Record>(&bytes).map_err(|e| e.to_string())
                });
            match read {
                Ok(record) => {
                    let when = entry.metadata().and_then(|m| m.modified()).ok();
                    found.push((when, record));
                }
                Err(e) => tracing::warn!(file = %path.display(), "skipping a saved load: {e}"),
            }
        }
        found.sort_by(|(a, x), (b, y)| a.cmp(b).then_with(|| x.id.cmp(&y.id)));
        found.into_iter().map(|(_, record)| record).collect()
    }
}

/// A load id as a file name (ids are hex digits, `-` and digits; anything
/// else is replaced, so no id can name a path).
fn file_name(id: &str) -> String {
    let safe: String = id
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{safe}.json")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status() -> LoadStatus {
        LoadStatus {
            id: "19a3-4".into(),
            state: LoadState::Failed,
            source: "file:///people.csv".into(),
            files_total: 2,
            files_done: 1,
            records: 10,
            bytes: 100,
            bytes_total: 200,
            phase: LoadPhase::Committing,
            property_values: 30,
            elapsed: Duration::from_millis(1500),
            errors: vec![LoadErrorEntry {
                file: "people.csv".into(),
                line: 3,
                column: 5,
                status: Status::TypeError,
                message: "not an integer".into(),
            }],
            error_count: 1,
            failure: Some(DbError {
                status: Status::ExternalResourceFailed,
                message: "people.csv:3:5: not an integer".into(),
            }),
        }
    }

    #[test]
    fn a_saved_load_reads_back_as_it_ended() {
        let dir = tempfile::tempdir().unwrap();
        let history = History::new(&dir.path().join("loads"));
        assert!(history.read_all().is_empty());
        let record = Record::of(&status(), "opencypher", vec!["/a.csv".into()]);
        history.save(&record).unwrap();
        std::fs::write(dir.path().join("loads").join("broken.json"), "{").unwrap();
        let read = history.read_all();
        assert_eq!(read, vec![record]);
        let back = read[0].status().unwrap();
        let original = status();
        assert_eq!(back.state, original.state);
        assert_eq!(back.errors, original.errors);
        assert_eq!(back.elapsed, original.elapsed);
        assert_eq!(back.failure.unwrap().status, Status::ExternalResourceFailed);
        assert_eq!(read[0].loaded, vec!["/a.csv".to_string()]);
    }

    #[test]
    fn ids_cannot_name_paths() {
        assert_eq!(file_name("19a3-4"), "19a3-4.json");
        assert_eq!(file_name("../../etc/x"), "______etc_x.json");
    }
}
