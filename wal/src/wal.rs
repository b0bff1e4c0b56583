//! The [`Wal`] handle.

use crate::codec::encode_changes;
use crate::error::WalError;
use crate::faults::DiskFaults;
use crate::format::{encode_record, RECORD_COMMIT};
use crate::order::CommitOrder;
use crate::recovery::{cut_after, partition_count, recover, sync_dir, RecoveredPartition};
use crate::writer::{self, Segment, Shared};
use nereid_storage::Change;
use parking_lot::Mutex;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
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
    /// Test-only: a switch that makes the log's writes fail like a full disk
    /// (see [`DiskFaults`]). `None` in production.
    pub faults: Option<Arc<DiskFaults>>,
}

impl Default for WalOptions {
    fn default() -> Self {
        WalOptions {
            durability: Durability::Fsync,
            segment_bytes: 64 << 20,
            partitions: 1,
            faults: None,
        }
    }
}

/// The file [`Wal::resume`] writes (and deletes) to see whether the disk
/// takes bytes again; one left by a crash is deleted at open.
const PROBE_FILE: &str = "disk-probe.tmp";

/// Bytes the probe writes: room for a few commits, so that a disk with a
/// few bytes free does not flap between failed and resumed.
const PROBE_BYTES: usize = 64 << 10;

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
    options: WalOptions,
    /// Held while the set of segment files changes outside the writers
    /// (resuming after a failure, deleting covered segments, sealing on
    /// request), so that these never interleave.
    maintenance: Mutex<()>,
    closed: AtomicBool,
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
        match std::fs::remove_file(dir.join(PROBE_FILE)) {
            Ok(()) => tracing::warn!("removed a disk probe file left by an interrupted run"),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e.into()),
        }
        let order = Arc::new(CommitOrder::after(recovered.report.last_commit_ts));
        let mut wal = Wal {
            partitions: Vec::with_capacity(recovered.partitions.len()),
            routed,
            order: order.clone(),
            writers: Mutex::new(Vec::new()),
            dir: dir.to_path_buf(),
            options: options.clone(),
            maintenance: Mutex::new(()),
            closed: AtomicBool::new(false),
        };
        for part in recovered.partitions {
            let shared = Shared::new(options.durability, Vec::new(), part.segment, order.clone());
            wal.partitions.push(Partition {
                shared,
                dir: part.dir.clone(),
            });
            // On an error, dropping `wal` stops the writers started so far.
            wal.start_writer(wal.partitions.len() - 1, part)?;
        }
        Ok((wal, recovered.report))
    }

    /// Starts the writer thread of partition `k`, appending at the end of
    /// what recovery (or the cut after a failure) left.
    fn start_writer(&self, k: usize, part: RecoveredPartition) -> Result<(), WalError> {
        let shared = &self.partitions[k].shared;
        shared.reset(part.sealed, part.segment);
        let segment = Segment {
            dir: part.dir,
            stream: part.partition,
            file: part.file,
            number: part.segment,
            len: part.end,
            last_ts: part.active_last_ts,
            rotate_bytes: self.options.segment_bytes.max(1),
            faults: self.options.faults.clone(),
        };
        let handle = writer::spawn(shared.clone(), segment)?;
        self.writers.lock().push(handle);
        Ok(())
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
                // Never queued: the store rolls the commit back and will
                // assign its timestamp again. Nothing after it may be
                // acknowledged (other partitions may hold later ones).
                self.order.withdraw(commit_ts);
                self.order.fail(&e.to_string());
                Err(e)
            }
        }
    }

    /// Why the log refuses commits, while it does (a write or fsync failed,
    /// typically on a full disk; see [`Wal::resume`]).
    pub fn failure(&self) -> Option<String> {
        self.order.failure()
    }

    /// Tells the log that the commit at `lsn`, refused by
    /// [`Wal::wait_durable`] because the log failed, was undone in memory
    /// (its stamps revoked, so its timestamp may be assigned again). The log
    /// resumes only once every refused commit is released.
    pub fn release_refused(&self, lsn: Lsn) {
        self.order.release(lsn.commit_ts);
    }

    /// Tries to make a failed log writable again; `Ok(None)` when it has not
    /// failed, `Ok(Some(ts))` when it resumed after the acknowledged commit
    /// `ts`, an error while it still cannot (the disk is still full, or a
    /// refused commit is not released yet).
    ///
    /// Steps (docs/adr/0083-resuming-after-a-log-failure.md): wait until
    /// every refused commit is released; write and fsync a probe file to see
    /// that the disk takes bytes; stop the writers; read every partition
    /// again and cut each after `ts` (the refused commits' records, torn or
    /// not, go; damage is an error); fsync what is kept; call `rewind(ts)`,
    /// which must make the store assign `ts + 1` next; start the writers and
    /// accept appends again. Until the last step appends are refused, so no
    /// commit can slip in between. Safe to call from any thread at any time;
    /// calls are serialised.
    pub fn resume(
        &self,
        rewind: impl FnOnce(u64) -> Result<(), String>,
    ) -> Result<Option<u64>, WalError> {
        let _maintenance = self.maintenance.lock();
        let Some(ts) = self.order.cut_point()? else {
            return Ok(None);
        };
        if self.closed.load(Ordering::Acquire) {
            return Err(WalError::Failed("the log is closed".into()));
        }
        self.probe_disk()?;
        for part in &self.partitions {
            part.shared.halt("the log failed; resuming");
        }
        for handle in std::mem::take(&mut *self.writers.lock()) {
            if handle.join().is_err() {
                return Err(WalError::Failed("a log writer thread panicked".into()));
            }
        }
        let cut = cut_after(&self.dir, self.partitions.len() as u32, ts)?;
        for part in &cut {
            part.file.sync_data()?;
        }
        rewind(ts).map_err(WalError::Failed)?;
        for (k, part) in cut.into_iter().enumerate() {
            self.start_writer(k, part)?;
        }
        self.order.reset();
        tracing::warn!(
            last_commit_ts = ts,
            "the log can be written again: commits are accepted"
        );
        Ok(Some(ts))
    }

    /// Writes and fsyncs [`PROBE_BYTES`] in the log directory, then deletes
    /// them: whether the disk takes bytes again.
    fn probe_disk(&self) -> Result<(), WalError> {
        let path = self.dir.join(PROBE_FILE);
        let result = (|| {
            if let Some(faults) = &self.options.faults {
                faults.check()?;
            }
            let mut file = std::fs::File::create(&path)?;
            file.write_all(&[0; PROBE_BYTES])?;
            file.sync_all()
        })();
        let removed = std::fs::remove_file(&path);
        result?;
        removed?;
        Ok(())
    }

    /// Blocks until the record at `lsn` *and every appended record with a
    /// smaller commit timestamp* are as durable as the setting promises
    /// (see [`Durability`] and the `order` module). Group commit: each
    /// partition's writer thread writes (and fsyncs) everything queued in
    /// it so far in one go.
    pub fn wait_durable(&self, lsn: Lsn) -> Result<(), WalError> {
        self.order.wait(lsn.commit_ts)
    }

    /// Bytes written and fsync latencies since the log was opened, all
    /// partitions. Reads atomics only: no lock a commit needs.
    pub fn metrics(&self) -> crate::LogMetrics {
        crate::LogMetrics::sum(self.partitions.iter().map(|p| &p.shared.metrics))
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
        let _maintenance = self.maintenance.lock();
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
        let _maintenance = self.maintenance.lock();
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
        let _maintenance = self.maintenance.lock();
        if self.closed.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        let handles = std::mem::take(&mut *self.writers.lock());
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
        if let Some(why) = self.order.failure() {
            return Err(WalError::Failed(why));
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
