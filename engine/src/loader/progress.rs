//! What a load has done so far, updated by the loader's thread with
//! relaxed atomics and read by status requests at any time.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Duration;

use nereid_errors::Status;
use parking_lot::Mutex;

use crate::db::DbError;

/// Bad rows kept per load with their place; later ones are only counted.
pub const LOAD_ERRORS_KEPT: usize = 100;

/// Neptune's load states.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LoadState {
    InQueue,
    InProgress,
    Completed,
    Failed,
    Cancelled,
}

impl LoadState {
    /// `LOAD_IN_QUEUE`, ...: the names Neptune's loader reports.
    pub fn name(self) -> &'static str {
        match self {
            LoadState::InQueue => "LOAD_IN_QUEUE",
            LoadState::InProgress => "LOAD_IN_PROGRESS",
            LoadState::Completed => "LOAD_COMPLETED",
            LoadState::Failed => "LOAD_FAILED",
            LoadState::Cancelled => "LOAD_CANCELLED",
        }
    }

    pub fn is_final(self) -> bool {
        matches!(
            self,
            LoadState::Completed | LoadState::Failed | LoadState::Cancelled
        )
    }
}

/// What a running load is doing: reading its files (the part whose end
/// can be estimated from the bytes read), or applying and committing what
/// it read (which ends with the load).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LoadPhase {
    Reading,
    Committing,
}

impl LoadPhase {
    pub fn name(self) -> &'static str {
        match self {
            LoadPhase::Reading => "READING",
            LoadPhase::Committing => "COMMITTING",
        }
    }
}

/// One bad row (or unreadable file): where, and why.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadErrorEntry {
    pub file: String,
    /// 1-based physical line; 0 when the error concerns the whole file.
    pub line: u64,
    /// 1-based byte column; 0 when unknown.
    pub column: u64,
    pub status: Status,
    pub message: String,
}

/// A load as a status request sees it.
#[derive(Clone, Debug)]
pub struct LoadStatus {
    pub id: String,
    pub state: LoadState,
    pub source: String,
    pub files_total: u64,
    pub files_done: u64,
    /// Rows read (good and bad).
    pub records: u64,
    /// Bytes read from the files (compressed bytes for `.gz`/`.zst`).
    pub bytes: u64,
    /// The files' sizes on disk.
    pub bytes_total: u64,
    pub phase: LoadPhase,
    /// Property values of the rows loaded.
    pub property_values: u64,
    /// Since the load started (or queued, while in the queue).
    pub elapsed: Duration,
    /// The first [`LOAD_ERRORS_KEPT`] errors.
    pub errors: Vec<LoadErrorEntry>,
    pub error_count: u64,
    /// Why a failed load failed.
    pub failure: Option<DbError>,
}

/// The counters a running load updates.
#[derive(Default)]
pub(crate) struct Progress {
    pub(crate) files_total: AtomicU64,
    pub(crate) files_done: AtomicU64,
    pub(crate) records: AtomicU64,
    /// Shared with the counting reader of the file being read.
    pub(crate) bytes: Arc<AtomicU64>,
    pub(crate) bytes_total: AtomicU64,
    /// 0 reading, 1 committing.
    phase: AtomicU8,
    pub(crate) property_values: AtomicU64,
    errors: Mutex<Vec<LoadErrorEntry>>,
    error_count: AtomicU64,
}

impl Progress {
    pub(crate) fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }

    pub(crate) fn error(&self, entry: LoadErrorEntry) {
        self.error_count.fetch_add(1, Ordering::Relaxed);
        let mut errors = self.errors.lock();
        if errors.len() < LOAD_ERRORS_KEPT {
            errors.push(entry);
        }
    }

    /// The load has read its files and now applies and commits them.
    pub(crate) fn committing(&self) {
        self.phase.store(1, Ordering::Relaxed);
    }

    /// The load reads its files again from the start (an RDF load the bulk
    /// path handed back): the reading counters start over; errors were
    /// none, or the load would have ended.
    pub(crate) fn restart(&self) {
        for counter in [
            &self.files_done,
            &self.records,
            &*self.bytes,
            &self.property_values,
        ] {
            counter.store(0, Ordering::Relaxed);
        }
        self.phase.store(0, Ordering::Relaxed);
    }

    /// Fills the counters of `status`.
    pub(crate) fn read_into(&self, status: &mut LoadStatus) {
        let get = |c: &AtomicU64| c.load(Ordering::Relaxed);
        status.files_total = get(&self.files_total);
        status.files_done = get(&self.files_done);
        status.records = get(&self.records);
        status.bytes = get(&self.bytes);
        status.bytes_total = get(&self.bytes_total);
        status.phase = match self.phase.load(Ordering::Relaxed) {
            0 => LoadPhase::Reading,
            _ => LoadPhase::Committing,
        };
        status.property_values = get(&self.property_values);
        status.errors = self.errors.lock().clone();
        status.error_count = get(&self.error_count);
    }
}

impl LoadStatus {
    /// Time left to read the files, at the rate bytes were read so far;
    /// `None` before the first byte and once reading is over (applying and
    /// committing have no progress to extrapolate from).
    pub fn reading_time_left(&self) -> Option<Duration> {
        if self.phase != LoadPhase::Reading || self.bytes == 0 || self.state.is_final() {
            return None;
        }
        let left = self.bytes_total.saturating_sub(self.bytes) as f64 / self.bytes as f64;
        Some(self.elapsed.mul_f64(left))
    }
}
