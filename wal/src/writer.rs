//! Group commit: appenders enqueue framed records into a shared buffer; one
//! writer thread repeatedly takes everything queued, writes it with one
//! `write_all`, fsyncs once, and wakes every waiter whose record that fsync
//! covered.
//!
//! Invariants: `durable_lsn <= next_lsn`; bytes are written in the order
//! they were enqueued, so LSN order is file order; once `failed` is set it
//! stays set, nothing more is written or accepted, and `durable_lsn` never
//! moves again (a commit whose bytes may be partial is never acknowledged).

use crate::error::WalError;
use parking_lot::{Condvar, Mutex};
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::sync::Arc;
use std::thread::JoinHandle;

pub(crate) struct State {
    /// Records enqueued but not yet handed to the writer thread.
    pub(crate) pending: Vec<u8>,
    /// Offset just past the last enqueued record.
    pub(crate) next_lsn: u64,
    /// Offset up to which everything is written and fsynced.
    pub(crate) durable_lsn: u64,
    pub(crate) failed: Option<String>,
    pub(crate) shutdown: bool,
    /// Number of fsyncs done (observability and tests).
    pub(crate) syncs: u64,
}

pub(crate) struct Shared {
    pub(crate) state: Mutex<State>,
    /// Signals the writer: work queued or shutdown requested.
    pub(crate) work: Condvar,
    /// Signals waiters: `durable_lsn` moved or the log failed.
    pub(crate) durable: Condvar,
}

impl Shared {
    pub(crate) fn new(end: u64) -> Arc<Shared> {
        Arc::new(Shared {
            state: Mutex::new(State {
                pending: Vec::new(),
                next_lsn: end,
                durable_lsn: end,
                failed: None,
                shutdown: false,
                syncs: 0,
            }),
            work: Condvar::new(),
            durable: Condvar::new(),
        })
    }

    /// Enqueues one framed record; returns its LSN (the offset past it).
    pub(crate) fn enqueue(&self, record: &[u8]) -> Result<u64, WalError> {
        let mut st = self.state.lock();
        if let Some(why) = &st.failed {
            return Err(WalError::Failed(why.clone()));
        }
        if st.shutdown {
            return Err(WalError::Failed("the log is closed".into()));
        }
        st.pending.extend_from_slice(record);
        st.next_lsn += record.len() as u64;
        let lsn = st.next_lsn;
        drop(st);
        self.work.notify_one();
        Ok(lsn)
    }

    /// Blocks until `lsn` is durable or the log has failed.
    pub(crate) fn wait_durable(&self, lsn: u64) -> Result<(), WalError> {
        let mut st = self.state.lock();
        loop {
            if st.durable_lsn >= lsn {
                return Ok(());
            }
            if let Some(why) = &st.failed {
                return Err(WalError::Failed(why.clone()));
            }
            if st.shutdown && st.pending.is_empty() && st.next_lsn < lsn {
                return Err(WalError::Failed(format!("no record at lsn {lsn}")));
            }
            self.durable.wait(&mut st);
        }
    }
}

/// Starts the writer thread appending to `file` at offset `end`.
pub(crate) fn spawn(
    shared: Arc<Shared>,
    mut file: File,
    end: u64,
) -> std::io::Result<JoinHandle<()>> {
    file.seek(SeekFrom::Start(end))?;
    std::thread::Builder::new()
        .name("nereid-wal-writer".into())
        .spawn(move || run(&shared, file))
}

fn run(shared: &Shared, mut file: File) {
    loop {
        let (batch, batch_end) = {
            let mut st = shared.state.lock();
            while st.pending.is_empty() && !st.shutdown {
                shared.work.wait(&mut st);
            }
            if st.pending.is_empty() {
                return; // shutdown with nothing left to write
            }
            (std::mem::take(&mut st.pending), st.next_lsn)
        };
        let result = file.write_all(&batch).and_then(|()| file.sync_data());
        let mut st = shared.state.lock();
        match result {
            Ok(()) => {
                st.durable_lsn = batch_end;
                st.syncs += 1;
            }
            Err(e) => {
                tracing::error!(error = %e, "log write failed; refusing further commits");
                st.failed = Some(e.to_string());
            }
        }
        let stop = st.failed.is_some();
        drop(st);
        shared.durable.notify_all();
        if stop {
            return;
        }
    }
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
        let shared = Shared::new(0);
        let handle = spawn(shared.clone(), file, 0).unwrap();
        let lsn = shared.enqueue(b"record").unwrap();
        assert!(matches!(shared.wait_durable(lsn), Err(WalError::Failed(_))));
        assert!(matches!(shared.enqueue(b"more"), Err(WalError::Failed(_))));
        assert_eq!(shared.state.lock().durable_lsn, 0);
        handle.join().unwrap();
    }
}
