//! The [`Wal`] handle.

use crate::codec::encode_changes;
use crate::error::WalError;
use crate::format::{encode_record, RECORD_COMMIT};
use crate::order::CommitOrder;
use crate::recovery::{partition_count, recover, sync_dir};
use crate::writer::{self, Segment, Shared};
use nereid_storage::Change;
use parking_lot::Mutex;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Duration;

/// Where an appended commit went: its log partition, its position in that
/// partition's stream of this process (byte count since open, across
/// segments), and its commit timestamp, which is what
/// [`Wal::wait_durable`] waits for (with every smaller one).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Lsn {
    pub partition: u32,
    pub offset: u64,
    pub commit_ts: u64,
}

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
    /// Bytes truncated away: torn tails, and the records after the first
    /// missing commit timestamp (see `dropped_records`).
    pub truncated_bytes: u64,
    /// Segment files found (all partitions).
    pub segments: u64,
    /// Log partitions read (in parallel).
    pub partitions: u64,
    /// Intact records dropped because a smaller commit timestamp was
    /// missing (never acknowledged: see the `recovery` module).
    pub dropped_records: u64,
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
    /// Log partitions to write: each has its own segment files and writer
    /// thread (group commit per partition); a commit goes to the partition
    /// `txn_handle % partitions`. Opening reads every partition on disk,
    /// so this may change between runs. The library default is 1; the
    /// server defaults to the number of cores.
    pub partitions: u32,
}

impl Default for WalOptions {
    fn default() -> Self {
        WalOptions {
            durability: Durability::Fsync,
            segment_bytes: 64 << 20,
            partitions: 1,
        }
    }
}

/// A segment file that is complete and fsynced: see [`Wal::sealed_segments`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SealedSegment {
    /// The log partition it belongs to.
    pub partition: u32,
    pub number: u32,
    pub path: PathBuf,
    /// Commit timestamp of its last record.
    pub last_ts: u64,
}

/// See [`Wal::progress`].
#[derive(Clone)]
pub struct LogProgress(Vec<Arc<Shared>>);

impl LogProgress {
    pub fn appended_bytes(&self) -> u64 {
        appended_bytes(&self.0)
    }
}

fn appended_bytes(partitions: &[Arc<Shared>]) -> u64 {
    partitions.iter().map(|p| p.state.lock().next_lsn).sum()
}

/// One log partition: its queue (shared with its writer thread) and
/// directory.
struct Partition {
    shared: Arc<Shared>,
    dir: PathBuf,
}

/// The durable log: partition 0 in `dir` (segment files `wal-000001.log`,
/// `wal-000002.log`, ...), partition `k` in `dir/p<k>`.
pub struct Wal {
    partitions: Vec<Partition>,
    /// Appends go to partitions `0..routed`; any further ones were left by
    /// a run with more partitions and are only drained by checkpoints.
    routed: u32,
    order: Arc<CommitOrder>,
    writers: Mutex<Vec<JoinHandle<()>>>,
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

    /// Opens the log in `dir` (creating it): reads every partition in
    /// parallel, replays every complete record with a commit timestamp
    /// above `after_ts` (the loaded checkpoint's, or 0) through
    /// `apply(commit_ts, &changes)` in timestamp order up to the first
    /// missing timestamp, truncates incomplete/torn tails and the records
    /// after that gap (logging what was dropped with `tracing::warn!`), and
    /// returns the log ready for appends to `options.partitions`
    /// partitions. Damage before a tail, or records missing from the middle
    /// of the log, is a [`WalError::Corrupt`] naming the file (see the
    /// `recovery` and `scan` modules for the rules).
    pub fn open_after(
        dir: &Path,
        options: &WalOptions,
        after_ts: u64,
        apply: impl FnMut(u64, &[Change]) -> Result<(), String>,
    ) -> Result<(Wal, RecoveryReport), WalError> {
        std::fs::create_dir_all(dir)?;
        let routed = options.partitions.max(1);
        let count = partition_count(dir, routed)?;
        let recovered = recover(dir, count, after_ts, apply)?;
        let order = Arc::new(CommitOrder::default());
        let mut wal = Wal {
            partitions: Vec::with_capacity(recovered.partitions.len()),
            routed,
            order: order.clone(),
            writers: Mutex::new(Vec::new()),
            dir: dir.to_path_buf(),
        };
        for part in recovered.partitions {
            let shared = Shared::new(options.durability, part.sealed, part.segment, order.clone());
            let segment = Segment {
                dir: part.dir.clone(),
                stream: part.partition,
                file: part.file,
                number: part.segment,
                len: part.end,
                last_ts: part.active_last_ts,
                rotate_bytes: options.segment_bytes.max(1),
            };
            // On an error, dropping `wal` stops the writers started so far.
            let handle = writer::spawn(shared.clone(), segment)?;
            wal.writers.lock().push(handle);
            wal.partitions.push(Partition {
                shared,
                dir: part.dir,
            });
        }
        Ok((wal, recovered.report))
    }

    /// Enqueues a commit record in partition `txn_handle % partitions`.
    /// Called while the store's commit lock is held (so commits arrive in
    /// timestamp order), it only encodes and copies into the queue: it
    /// never waits for a write or an fsync. Fails for values that cannot be
    /// logged (entities) and after any earlier write failure.
    pub fn append(
        &self,
        txn_handle: u64,
        commit_ts: u64,
        changes: &[Change],
    ) -> Result<Lsn, WalError> {
        let mut payload = Vec::new();
        encode_changes(changes, &mut payload).map_err(WalError::Unencodable)?;
        let record = encode_record(RECORD_COMMIT, txn_handle, commit_ts, &payload)?;
        let partition = (txn_handle % u64::from(self.routed)) as u32;
        self.order.appended(commit_ts)?;
        match self.partitions[partition as usize]
            .shared
            .enqueue(&record, commit_ts)
        {
            Ok(offset) => Ok(Lsn {
                partition,
                offset,
                commit_ts,
            }),
            Err(e) => {
                // The commit is stamped but will never be durable: nothing
                // after it may be acknowledged either.
                self.order.fail(&e.to_string());
                Err(e)
            }
        }
    }

    /// Blocks until the record at `lsn` *and every appended record with a
    /// smaller commit timestamp* are as durable as the setting promises
    /// (see [`Durability`] and the `order` module). Group commit: each
    /// partition's writer thread writes (and fsyncs) everything queued in
    /// it so far in one go.
    pub fn wait_durable(&self, lsn: Lsn) -> Result<(), WalError> {
        self.order.wait(lsn.commit_ts)
    }

    /// Bytes appended since the log was opened, all partitions (a
    /// checkpoint trigger).
    pub fn appended_bytes(&self) -> u64 {
        appended_bytes(&self.shareds())
    }

    fn shareds(&self) -> Vec<Arc<Shared>> {
        self.partitions.iter().map(|p| p.shared.clone()).collect()
    }

    /// The number of partitions on disk (at least the configured count).
    pub fn partitions(&self) -> u32 {
        self.partitions.len() as u32
    }

    /// A handle that reads [`Wal::appended_bytes`] without keeping the log
    /// (or its owner) alive: for a background thread that must not delay
    /// closing.
    pub fn progress(&self) -> LogProgress {
        LogProgress(self.shareds())
    }

    /// Deletes the sealed segments whose every record has a commit
    /// timestamp of at most `ts` (a checkpoint at `ts` holds them), in
    /// every partition. Only a prefix of each partition is ever deleted. A
    /// partition no longer written to (left by a run with more partitions)
    /// has its active segment sealed first, so that it drains completely.
    /// Returns how many segments were deleted.
    pub fn discard_through(&self, ts: u64) -> Result<usize, WalError> {
        let mut deleted = 0;
        for (k, part) in self.partitions.iter().enumerate() {
            if k as u32 >= self.routed {
                part.shared.seal_active()?;
            }
            let doomed: Vec<_> = {
                let mut st = part.shared.state.lock();
                let n = st.sealed.iter().take_while(|s| s.last_ts <= ts).count();
                st.sealed.drain(..n).collect()
            };
            for segment in &doomed {
                std::fs::remove_file(&segment.path)?;
                tracing::debug!(partition = k, path = %segment.path.display(), "deleted a log segment older than the checkpoint");
            }
            if !doomed.is_empty() {
                sync_dir(&part.dir)?;
            }
            deleted += doomed.len();
        }
        Ok(deleted)
    }

    /// The sealed (complete, fsynced, never again written) segments of
    /// every partition, oldest first per partition: what may be shipped to
    /// an object store.
    pub fn sealed_segments(&self) -> Vec<SealedSegment> {
        let mut out = Vec::new();
        for (k, part) in self.partitions.iter().enumerate() {
            let st = part.shared.state.lock();
            out.extend(st.sealed.iter().map(|s| SealedSegment {
                partition: k as u32,
                number: s.number,
                path: s.path.clone(),
                last_ts: s.last_ts,
            }));
        }
        out
    }

    /// Seals the active segment of every partition that holds records, so
    /// that everything appended so far is in sealed segments (to be
    /// shipped: a clean shutdown without a checkpoint). Blocks until done.
    pub fn seal_active(&self) -> Result<(), WalError> {
        for part in &self.partitions {
            part.shared.seal_active()?;
        }
        Ok(())
    }

    /// Per partition (indexed by number), the number of the oldest segment
    /// still on disk: every segment below it was covered by a checkpoint
    /// and deleted.
    pub fn oldest_segments(&self) -> Vec<u32> {
        self.partitions
            .iter()
            .map(|part| {
                let st = part.shared.state.lock();
                st.sealed.first().map_or(st.active_segment, |s| s.number)
            })
            .collect()
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
        let handles = std::mem::take(&mut *self.writers.lock());
        if handles.is_empty() {
            return Ok(());
        }
        for part in &self.partitions {
            part.shared.state.lock().shutdown = true;
            part.shared.work.notify_all();
        }
        let mut panicked = false;
        for handle in handles {
            panicked |= handle.join().is_err();
        }
        self.order.close();
        for part in &self.partitions {
            part.shared.durable.notify_all();
        }
        if panicked {
            return Err(WalError::Failed("a log writer thread panicked".into()));
        }
        for part in &self.partitions {
            if let Some(why) = &part.shared.state.lock().failed {
                return Err(WalError::Failed(why.clone()));
            }
        }
        Ok(())
    }

    #[cfg(test)]
    pub(crate) fn syncs(&self) -> u64 {
        self.partitions
            .iter()
            .map(|p| p.shared.state.lock().syncs)
            .sum()
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
