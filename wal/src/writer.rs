//! Group commit: appenders enqueue framed records into a shared buffer; one
//! writer thread repeatedly takes everything queued, writes it with one
//! `write_all`, fsyncs once (per the durability setting), and wakes every
//! waiter whose record that write or fsync covered. It also rotates
//! segments: once the active segment reaches the rotation size, it is
//! fsynced, the next segment is created (header fsynced, directory
//! fsynced), and the old one becomes *sealed* (deletable after a
//! checkpoint covers its last commit timestamp).
//!
//! Each log partition has its own writer thread and its own [`Shared`]
//! queue, so partitions write and fsync in parallel. A record's commit
//! timestamp is reported to the log-wide [`CommitOrder`] once durable (as
//! the durability setting counts it); acknowledgement waits there, for the
//! whole timestamp prefix.
//!
//! LSNs are process-local byte counters of one partition (they start at 0
//! on every open and run across segments); only their order matters.
//!
//! Invariants: `durable_lsn <= written_lsn <= next_lsn`; bytes are written
//! in the order they were enqueued, so LSN order is file order; a segment is
//! sealed only after it is completely fsynced; once `failed` is set it stays
//! set until the log resumes ([`Shared::reset`], with a new writer thread),
//! nothing more is written or accepted, and neither `written_lsn` nor
//! `durable_lsn` moves again (a commit whose bytes may be partial is never
//! acknowledged).
//!
//! A failed group write or fsync is cut off the file at once (it is never
//! acknowledged, and a full disk should keep no half record); a writer
//! whose partition is healthy stops as soon as it sees that another one
//! failed, rather than writing commits that are refused anyway. Resuming
//! is the [`Wal`](crate::Wal)'s job (docs/adr/0083-resuming-after-a-log-failure.md).

use crate::error::WalError;
use crate::faults::{no_space, DiskFaults};
use crate::metrics::PartitionMetrics;
use crate::order::CommitOrder;
use crate::recovery::{create_segment, Sealed};
use crate::wal::Durability;
use parking_lot::{Condvar, Mutex};
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

pub(crate) struct State {
    /// Records enqueued but not yet handed to the writer thread.
    pub(crate) pending: Vec<u8>,
    /// Highest commit timestamp in `pending`.
    pub(crate) pending_last_ts: u64,
    /// The commit timestamps of the records in `pending`.
    pub(crate) pending_ts: Vec<u64>,
    /// Offset just past the last enqueued record.
    pub(crate) next_lsn: u64,
    /// Offset up to which everything is written to the OS (survives a
    /// process crash, not a power loss).
    pub(crate) written_lsn: u64,
    /// Offset up to which everything is written and fsynced.
    pub(crate) durable_lsn: u64,
    pub(crate) failed: Option<String>,
    pub(crate) shutdown: bool,
    /// Number of fsyncs done (observability and tests).
    pub(crate) syncs: u64,
    /// Sealed segments, oldest first.
    pub(crate) sealed: Vec<Sealed>,
    /// Number of the segment being appended to.
    pub(crate) active_segment: u32,
    /// [`Shared::seal_active`] asks the writer to seal the active segment
    /// (if it holds records); cleared when done.
    pub(crate) seal_requested: bool,
}

pub(crate) struct Shared {
    pub(crate) state: Mutex<State>,
    /// Signals the writer: work queued or shutdown requested.
    pub(crate) work: Condvar,
    /// Signals waiters: `written_lsn`/`durable_lsn` moved or the log failed.
    pub(crate) durable: Condvar,
    pub(crate) durability: Durability,
    /// The log-wide acknowledgement order (shared by every partition).
    pub(crate) order: Arc<CommitOrder>,
    /// Bytes written and fsync latencies (the writer thread records them).
    pub(crate) metrics: PartitionMetrics,
}

impl Shared {
    pub(crate) fn new(
        durability: Durability,
        sealed: Vec<Sealed>,
        active_segment: u32,
        order: Arc<CommitOrder>,
    ) -> Arc<Shared> {
        Arc::new(Shared {
            state: Mutex::new(State {
                pending: Vec::new(),
                pending_last_ts: 0,
                pending_ts: Vec::new(),
                next_lsn: 0,
                written_lsn: 0,
                durable_lsn: 0,
                failed: None,
                shutdown: false,
                syncs: 0,
                sealed,
                active_segment,
                seal_requested: false,
            }),
            work: Condvar::new(),
            durable: Condvar::new(),
            durability,
            order,
            metrics: PartitionMetrics::new(),
        })
    }

    /// Enqueues one framed record; returns its LSN (the offset past it).
    pub(crate) fn enqueue(&self, record: &[u8], commit_ts: u64) -> Result<u64, WalError> {
        let mut st = self.state.lock();
        if let Some(why) = &st.failed {
            return Err(WalError::Failed(why.clone()));
        }
        if st.shutdown {
            return Err(WalError::Failed("the log is closed".into()));
        }
        st.pending.extend_from_slice(record);
        st.pending_last_ts = st.pending_last_ts.max(commit_ts);
        st.pending_ts.push(commit_ts);
        st.next_lsn += record.len() as u64;
        let lsn = st.next_lsn;
        drop(st);
        self.work.notify_one();
        Ok(lsn)
    }

    /// Makes the partition writable again after a failure: the queue is
    /// dropped (every commit in it was refused), and the segments are what
    /// the cut after the failure left. A new writer thread is started by the
    /// caller.
    pub(crate) fn reset(&self, sealed: Vec<Sealed>, active_segment: u32) {
        let mut st = self.state.lock();
        st.pending.clear();
        st.pending_ts.clear();
        st.pending_last_ts = 0;
        st.written_lsn = st.next_lsn;
        st.durable_lsn = st.next_lsn;
        st.failed = None;
        st.shutdown = false;
        st.seal_requested = false;
        st.sealed = sealed;
        st.active_segment = active_segment;
    }

    /// Stops the writer (at its next batch) without writing what is queued:
    /// the log failed elsewhere.
    pub(crate) fn halt(&self, why: &str) {
        self.state
            .lock()
            .failed
            .get_or_insert_with(|| why.to_string());
        self.work.notify_all();
        self.durable.notify_all();
    }

    /// Seals the active segment now if it holds any record (everything
    /// enqueued before the call ends up in a sealed segment), so that it
    /// can be shipped. Blocks until the writer has done it.
    pub(crate) fn seal_active(&self) -> Result<(), WalError> {
        let mut st = self.state.lock();
        st.seal_requested = true;
        self.work.notify_one();
        while st.seal_requested {
            if let Some(why) = &st.failed {
                return Err(WalError::Failed(why.clone()));
            }
            if st.shutdown {
                return Err(WalError::Failed("the log is closed".into()));
            }
            self.durable.wait(&mut st);
        }
        Ok(())
    }
}

/// The writer thread's own state: the active segment.
pub(crate) struct Segment {
    pub(crate) dir: PathBuf,
    /// The log partition (the stream id in each segment header).
    pub(crate) stream: u32,
    pub(crate) file: File,
    pub(crate) number: u32,
    pub(crate) len: u64,
    pub(crate) last_ts: u64,
    /// Rotate once the segment is at least this long.
    pub(crate) rotate_bytes: u64,
    /// The test-only seam that fails writes like a full disk.
    pub(crate) faults: Option<Arc<DiskFaults>>,
}

impl Segment {
    fn has_records(&self) -> bool {
        self.len > crate::format::HEADER_LEN as u64
    }

    fn full(&self) -> bool {
        self.faults.as_ref().is_some_and(|f| f.is_full())
    }

    /// Writes a group of records at the end of the segment.
    fn write(&mut self, batch: &[u8]) -> std::io::Result<()> {
        if self.full() {
            // A full disk may take part of a write: leave a torn record.
            self.file.write_all(&batch[..batch.len() / 2])?;
            return Err(no_space());
        }
        self.file.write_all(batch)
    }

    fn sync(&mut self) -> std::io::Result<()> {
        if self.full() {
            return Err(no_space());
        }
        self.file.sync_data()
    }

    /// Cuts a failed group write off the end of the segment (`len` is the
    /// length before it): no half record stays behind, and the space it took
    /// is free again. Best effort: if this fails too, resuming cuts it.
    fn cut_failed_write(&mut self) {
        let cut = self
            .file
            .set_len(self.len)
            .and_then(|()| self.file.seek(SeekFrom::Start(self.len)).map(drop));
        if let Err(e) = cut {
            tracing::warn!(partition = self.stream, error = %e, "could not cut a failed log write");
        }
    }
}

/// Starts the writer thread appending to the active segment (positioned at
/// its end).
pub(crate) fn spawn(shared: Arc<Shared>, segment: Segment) -> std::io::Result<JoinHandle<()>> {
    std::thread::Builder::new()
        .name(format!("nereid-wal-writer-{}", segment.stream))
        .spawn(move || run(&shared, segment))
}

fn run(shared: &Shared, mut segment: Segment) {
    let interval = match shared.durability {
        Durability::Fsync => None,
        Durability::Interval(d) => Some(d),
    };
    let mut last_sync = Instant::now();
    let mut unsynced = false;
    loop {
        let (batch, batch_end, batch_ts, batch_commits, shutdown, seal) = {
            let mut st = shared.state.lock();
            while st.pending.is_empty() && !st.shutdown && !st.seal_requested && st.failed.is_none()
            {
                match (interval, unsynced) {
                    (Some(every), true) => {
                        let deadline = last_sync + every;
                        if Instant::now() >= deadline {
                            break;
                        }
                        shared.work.wait_until(&mut st, deadline);
                    }
                    _ => shared.work.wait(&mut st),
                }
            }
            if st.failed.is_some() || shared.order.failure().is_some() {
                // The log failed (here or in another partition): what is
                // queued is refused; stop until the log resumes.
                st.failed.get_or_insert_with(|| "the log failed".into());
                drop(st);
                shared.durable.notify_all();
                return;
            }
            let batch_ts = std::mem::take(&mut st.pending_last_ts);
            (
                std::mem::take(&mut st.pending),
                st.next_lsn,
                batch_ts,
                std::mem::take(&mut st.pending_ts),
                st.shutdown,
                st.seal_requested,
            )
        };
        let mut result = Ok(());
        let mut written = false;
        let mut synced = false;
        let batch_start = segment.len;
        if !batch.is_empty() {
            result = segment.write(&batch);
            written = result.is_ok();
            if written {
                shared.metrics.wrote(batch.len());
                segment.len += batch.len() as u64;
                segment.last_ts = segment.last_ts.max(batch_ts);
                unsynced = true;
            }
        }
        let sync_due = match interval {
            None => true,
            Some(every) => shutdown || last_sync.elapsed() >= every,
        };
        let rotate = segment.len >= segment.rotate_bytes || (seal && segment.has_records());
        if result.is_ok() && unsynced && (sync_due || rotate) {
            let started = Instant::now();
            result = segment.sync();
            if result.is_ok() {
                shared.metrics.synced(started.elapsed());
                unsynced = false;
                synced = true;
                last_sync = Instant::now();
            }
        }
        let mut sealed = None;
        if result.is_ok() && rotate && !unsynced {
            match rotate_segment(&mut segment) {
                Ok(old) => sealed = Some(old),
                Err(e) => result = Err(std::io::Error::other(e.to_string())),
            }
        }
        if result.is_err() && !synced {
            // The batch was not (or not completely) written, or its fsync
            // failed: it is never acknowledged, so it goes.
            segment.len = batch_start;
            segment.cut_failed_write();
        }
        let mut st = shared.state.lock();
        match result {
            Ok(()) => {
                if written {
                    st.written_lsn = batch_end;
                }
                if synced {
                    st.durable_lsn = st.written_lsn;
                    st.syncs += 1;
                }
                if let Some(old) = sealed {
                    st.active_segment = old.number + 1;
                    st.sealed.push(old);
                }
                if seal {
                    st.seal_requested = false;
                }
                let acknowledgeable = match interval {
                    None => synced,
                    Some(_) => written,
                };
                if acknowledgeable {
                    shared.order.durable(&batch_commits);
                }
            }
            Err(e) => {
                tracing::error!(partition = segment.stream, error = %e, "log write failed; refusing commits until it can be written again");
                st.failed = Some(e.to_string());
                shared.order.fail(&e.to_string());
            }
        }
        let stop = st.failed.is_some() || (st.shutdown && st.pending.is_empty() && !unsynced);
        drop(st);
        shared.durable.notify_all();
        if stop {
            return;
        }
    }
}

/// Seals the active (fsynced) segment and starts the next one.
fn rotate_segment(segment: &mut Segment) -> Result<Sealed, WalError> {
    if segment.full() {
        return Err(WalError::Io(no_space()));
    }
    let next = segment.number + 1;
    let (file, len) = create_segment(&segment.dir, next, segment.stream)?;
    let old = Sealed {
        number: segment.number,
        path: segment
            .dir
            .join(crate::format::segment_file_name(segment.number)),
        last_ts: segment.last_ts,
    };
    tracing::debug!(
        partition = segment.stream,
        segment = next,
        "log segment rotated"
    );
    segment.file = file;
    segment.number = next;
    segment.len = len;
    Ok(old)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_error_fails_waiters_and_later_appends() {
        // /dev/full accepts opens but fails every write with ENOSPC.
        let Ok(file) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
            return; // not on Linux
        };
        let order = Arc::new(CommitOrder::default());
        let shared = Shared::new(Durability::Fsync, Vec::new(), 1, order.clone());
        let segment = Segment {
            dir: std::env::temp_dir(),
            stream: 0,
            file,
            number: 1,
            len: 0,
            last_ts: 0,
            rotate_bytes: u64::MAX,
            faults: None,
        };
        let handle = spawn(shared.clone(), segment).unwrap();
        order.appended(1).unwrap();
        shared.enqueue(b"record", 1).unwrap();
        assert!(matches!(order.wait(1), Err(WalError::Failed(_))));
        assert!(matches!(
            shared.enqueue(b"more", 2),
            Err(WalError::Failed(_))
        ));
        assert_eq!(shared.state.lock().durable_lsn, 0);
        handle.join().unwrap();
    }
}
