//! The [`Wal`] handle.

use crate::codec::encode_changes;
use crate::error::WalError;
use crate::format::{encode_record, segment_file_name, RECORD_COMMIT};
use crate::recovery::recover;
use crate::writer::{self, Shared};
use nereid_storage::Change;
use parking_lot::Mutex;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;

/// A log sequence number: the byte offset just past a record in the log
/// stream. Ordered like the records; a record is durable once the durable
/// offset reaches its LSN.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Lsn(pub u64);

/// What [`Wal::open`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecoveryReport {
    /// Intact commit records replayed.
    pub records: u64,
    /// Commit timestamp of the last replayed record (0 for an empty log).
    pub last_commit_ts: u64,
    /// Bytes of a torn tail that were truncated away.
    pub truncated_bytes: u64,
}

/// When an appended record counts as durable.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Durability {
    /// After an fsync (`fdatasync`) that covers it. Group commit shares one
    /// fsync between all records queued while the previous one ran.
    #[default]
    Fsync,
}

/// The durable log: one segment file, `dir/wal-000001.log`, for now.
pub struct Wal {
    shared: Arc<Shared>,
    writer: Mutex<Option<JoinHandle<()>>>,
    durability: Durability,
    path: PathBuf,
}

impl Wal {
    /// Opens the log in `dir` (creating it), replays every complete record
    /// through `apply(commit_ts, &changes)` in log order, truncates an
    /// incomplete/torn tail (logging what was dropped with `tracing::warn!`),
    /// and returns the log ready for appends. Damage before the tail is a
    /// [`WalError::Corrupt`] (see the `recovery` module for the rule).
    pub fn open(
        dir: &Path,
        durability: Durability,
        apply: impl FnMut(u64, &[Change]) -> Result<(), String>,
    ) -> Result<(Wal, RecoveryReport), WalError> {
        std::fs::create_dir_all(dir)?;
        let path = dir.join(segment_file_name(1));
        let recovered = recover(&path, apply)?;
        let shared = Shared::new(recovered.end);
        let handle = writer::spawn(shared.clone(), recovered.file, recovered.end)?;
        let wal = Wal {
            shared,
            writer: Mutex::new(Some(handle)),
            durability,
            path,
        };
        Ok((wal, recovered.report))
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
        self.shared.enqueue(&record).map(Lsn)
    }

    /// Blocks until the record at `lsn` is durable (fsynced). Group commit:
    /// a single writer thread writes and fsyncs everything queued so far in
    /// one go, then wakes all waiters covered by that fsync.
    pub fn wait_durable(&self, lsn: Lsn) -> Result<(), WalError> {
        match self.durability {
            Durability::Fsync => self.shared.wait_durable(lsn.0),
        }
    }

    /// Flushes everything queued and stops the writer thread (also done on
    /// drop). Reports an earlier write failure.
    pub fn close(self) -> Result<(), WalError> {
        self.shutdown()
    }

    /// The segment file this log writes.
    pub fn path(&self) -> &Path {
        &self.path
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
