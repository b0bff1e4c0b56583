//! The [`Wal`] handle.

use crate::codec::encode_changes;
use crate::error::WalError;
use crate::format::{encode_record, RECORD_COMMIT};
use crate::recovery::{recover, sync_dir};
use crate::writer::{self, Segment, Shared};
use nereid_storage::Change;
use parking_lot::Mutex;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// A log sequence number: a position in the log stream of this process
/// (byte count since open, across segments). Ordered like the records; a
/// record is durable once the durable position reaches its LSN.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Lsn(pub u64);

/// What [`Wal::open`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecoveryReport {
    /// Intact commit records replayed.
    pub records: u64,
    /// Intact records skipped because a checkpoint already holds them.
    pub skipped_records: u64,
    /// Commit timestamp of the last replayed record (the checkpoint
    /// timestamp, or 0, when none was replayed).
    pub last_commit_ts: u64,
    /// Bytes of a torn tail that were truncated away.
    pub truncated_bytes: u64,
    /// Segment files found.
    pub segments: u64,
}

/// When an appended record counts as durable, i.e. when a commit may be
/// acknowledged and published.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Durability {
    /// After an fsync (`fdatasync`) that covers it. Group commit shares one
    /// fsync between all records queued while the previous one ran. An
    /// acknowledged commit survives a process crash and a power loss.
    #[default]
    Fsync,
    /// After the record is written to the OS; the writer fsyncs at least
    /// this often. An acknowledged commit survives a process crash (kill -9);
    /// a power loss or OS crash loses at most the commits of the last
    /// interval (plus the fsync in progress).
    Interval(Duration),
}

impl std::str::FromStr for Durability {
    type Err = String;

    /// `fsync` or `interval:<milliseconds>` (1 to 60000).
    fn from_str(s: &str) -> Result<Self, String> {
        if s == "fsync" {
            return Ok(Durability::Fsync);
        }
        let ms = s
            .strip_prefix("interval:")
            .and_then(|ms| ms.parse::<u64>().ok())
            .filter(|ms| (1..=60_000).contains(ms))
            .ok_or_else(|| {
                format!("expected `fsync` or `interval:<ms>` with 1 <= ms <= 60000, got {s:?}")
            })?;
        Ok(Durability::Interval(Duration::from_millis(ms)))
    }
}

impl std::fmt::Display for Durability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Durability::Fsync => write!(f, "fsync"),
            Durability::Interval(d) => write!(f, "interval:{}", d.as_millis()),
        }
    }
}

/// Settings of an opened log.
#[derive(Clone, Debug)]
pub struct WalOptions {
    pub durability: Durability,
    /// A segment is sealed and the next one started once it reaches this
    /// many bytes (checked after each group write, so a segment may exceed
    /// it by one batch).
    pub segment_bytes: u64,
}

impl Default for WalOptions {
    fn default() -> Self {
        WalOptions {
            durability: Durability::Fsync,
            segment_bytes: 64 << 20,
        }
    }
}

/// A segment file that is complete and fsynced: see [`Wal::sealed_segments`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SealedSegment {
    pub number: u32,
    pub path: PathBuf,
    /// Commit timestamp of its last record.
    pub last_ts: u64,
}

/// See [`Wal::progress`].
#[derive(Clone)]
pub struct LogProgress(Arc<Shared>);

impl LogProgress {
    pub fn appended_bytes(&self) -> u64 {
        self.0.state.lock().next_lsn
    }
}

/// The durable log: segment files `dir/wal-000001.log`, `wal-000002.log`, ...
pub struct Wal {
    shared: Arc<Shared>,
    writer: Mutex<Option<JoinHandle<()>>>,
    dir: PathBuf,
}

impl Wal {
    /// Opens the log in `dir` with default options and no checkpoint: see
    /// [`Wal::open_after`].
    pub fn open(
        dir: &Path,
        durability: Durability,
        apply: impl FnMut(u64, &[Change]) -> Result<(), String>,
    ) -> Result<(Wal, RecoveryReport), WalError> {
        let options = WalOptions {
            durability,
            ..WalOptions::default()
        };
        Wal::open_after(dir, &options, 0, apply)
    }

    /// Opens the log in `dir` (creating it), replays every complete record
    /// with a commit timestamp above `after_ts` (the loaded checkpoint's,
    /// or 0) through `apply(commit_ts, &changes)` in log order, truncates an
    /// incomplete/torn tail (logging what was dropped with `tracing::warn!`),
    /// and returns the log ready for appends. Damage before the tail, or
    /// missing records, is a [`WalError::Corrupt`] naming the file (see the
    /// `recovery` module for the rule).
    pub fn open_after(
        dir: &Path,
        options: &WalOptions,
        after_ts: u64,
        apply: impl FnMut(u64, &[Change]) -> Result<(), String>,
    ) -> Result<(Wal, RecoveryReport), WalError> {
        std::fs::create_dir_all(dir)?;
        let recovered = recover(dir, after_ts, apply)?;
        let mut report = recovered.report;
        report.segments = recovered.sealed.len() as u64 + 1;
        let shared = Shared::new(options.durability, recovered.sealed, recovered.segment);
        let segment = Segment {
            dir: dir.to_path_buf(),
            file: recovered.file,
            number: recovered.segment,
            len: recovered.end,
            last_ts: recovered.active_last_ts,
            rotate_bytes: options.segment_bytes.max(1),
        };
        let handle = writer::spawn(shared.clone(), segment)?;
        let wal = Wal {
            shared,
            writer: Mutex::new(Some(handle)),
            dir: dir.to_path_buf(),
        };
        Ok((wal, report))
    }

    /// Enqueues a commit record. Called while the store's commit lock is
    /// held, so it only encodes and copies into the queue: it never waits
    /// for a write or an fsync. Fails for values that cannot be logged
    /// (entities) and after any earlier write failure.
    pub fn append(
        &self,
        txn_handle: u64,
        commit_ts: u64,
        changes: &[Change],
    ) -> Result<Lsn, WalError> {
        let mut payload = Vec::new();
        encode_changes(changes, &mut payload).map_err(WalError::Unencodable)?;
        let record = encode_record(RECORD_COMMIT, txn_handle, commit_ts, &payload)?;
        self.shared.enqueue(&record, commit_ts).map(Lsn)
    }

    /// Blocks until the record at `lsn` is as durable as the setting
    /// promises (see [`Durability`]). Group commit: a single writer thread
    /// writes (and fsyncs) everything queued so far in one go, then wakes
    /// all waiters it covered.
    pub fn wait_durable(&self, lsn: Lsn) -> Result<(), WalError> {
        self.shared.wait_durable(lsn.0)
    }

    /// Bytes appended since the log was opened (a checkpoint trigger).
    pub fn appended_bytes(&self) -> u64 {
        self.shared.state.lock().next_lsn
    }

    /// A handle that reads [`Wal::appended_bytes`] without keeping the log
    /// (or its owner) alive: for a background thread that must not delay
    /// closing.
    pub fn progress(&self) -> LogProgress {
        LogProgress(self.shared.clone())
    }

    /// Deletes the sealed segments whose every record has a commit
    /// timestamp of at most `ts` (a checkpoint at `ts` holds them). Only a
    /// prefix of the log is ever deleted. Returns how many were deleted.
    pub fn discard_through(&self, ts: u64) -> Result<usize, WalError> {
        let doomed: Vec<_> = {
            let mut st = self.shared.state.lock();
            let n = st.sealed.iter().take_while(|s| s.last_ts <= ts).count();
            st.sealed.drain(..n).collect()
        };
        for segment in &doomed {
            std::fs::remove_file(&segment.path)?;
            tracing::debug!(path = %segment.path.display(), "deleted a log segment older than the checkpoint");
        }
        if !doomed.is_empty() {
            sync_dir(&self.dir)?;
        }
        Ok(doomed.len())
    }

    /// The sealed (complete, fsynced, never again written) segments, oldest
    /// first: what may be shipped to an object store.
    pub fn sealed_segments(&self) -> Vec<SealedSegment> {
        let st = self.shared.state.lock();
        st.sealed
            .iter()
            .map(|s| SealedSegment {
                number: s.number,
                path: s.path.clone(),
                last_ts: s.last_ts,
            })
            .collect()
    }

    /// Seals the active segment if it holds records, so that everything
    /// appended so far is in sealed segments (to be shipped: a clean
    /// shutdown without a checkpoint). Blocks until done.
    pub fn seal_active(&self) -> Result<(), WalError> {
        self.shared.seal_active()
    }

    /// The number of the oldest segment still in the log directory: every
    /// segment below it was covered by a checkpoint and deleted.
    pub fn oldest_segment(&self) -> u32 {
        let st = self.shared.state.lock();
        st.sealed.first().map_or(st.active_segment, |s| s.number)
    }

    /// Flushes everything queued and stops the writer thread (also done on
    /// drop). Reports an earlier write failure.
    pub fn close(self) -> Result<(), WalError> {
        self.shutdown()
    }

    /// The directory of the segment files.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn shutdown(&self) -> Result<(), WalError> {
        let Some(handle) = self.writer.lock().take() else {
            return Ok(());
        };
        self.shared.state.lock().shutdown = true;
        self.shared.work.notify_all();
        if handle.join().is_err() {
            return Err(WalError::Failed("the log writer thread panicked".into()));
        }
        self.shared.durable.notify_all();
        match &self.shared.state.lock().failed {
            Some(why) => Err(WalError::Failed(why.clone())),
            None => Ok(()),
        }
    }

    #[cfg(test)]
    pub(crate) fn syncs(&self) -> u64 {
        self.shared.state.lock().syncs
    }
}

impl Drop for Wal {
    fn drop(&mut self) {
        if let Err(e) = self.shutdown() {
            tracing::error!(error = %e, "closing the log");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn concurrent_commits_share_fsyncs() {
        let dir = tempfile::tempdir().unwrap();
        let (wal, _) = Wal::open(dir.path(), Durability::Fsync, |_, _| Ok(())).unwrap();
        let ts = std::sync::atomic::AtomicU64::new(0);
        let append_lock = Mutex::new(());
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    for _ in 0..25 {
                        let lsn = {
                            let _commit = append_lock.lock();
                            let t = ts.fetch_add(1, std::sync::atomic::Ordering::SeqCst) + 1;
                            wal.append(t, t, &[]).unwrap()
                        };
                        wal.wait_durable(lsn).unwrap();
                    }
                });
            }
        });
        // 200 acknowledged commits; with 8 concurrent committers the writer
        // batches, so it needs fewer fsyncs than commits.
        assert!(wal.syncs() < 200, "{} fsyncs", wal.syncs());
        wal.close().unwrap();
    }
}
