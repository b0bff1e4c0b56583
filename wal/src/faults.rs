//! A fault-injection seam for tests: makes the log's file writes fail with
//! `ENOSPC` (`No space left on device`) on demand, the way a full disk does.
//!
//! Why it exists in the library (not under `cfg(test)`): the integration
//! tests in `wal/tests/` and the server's tests drive a real [`Wal`] through
//! a disk-full episode; they need a switch they can flip while the log runs.
//! Production code never sets it ([`WalOptions::faults`] is `None`), and
//! checking it costs one relaxed load per group write.
//!
//! [`Wal`]: crate::Wal
//! [`WalOptions::faults`]: crate::WalOptions::faults

use std::sync::atomic::{AtomicBool, Ordering};

/// While "full", every log file write, fsync, segment creation and disk probe
/// fails with `ENOSPC`; a group write first writes half its bytes (a torn
/// write, as a real full disk may leave).
#[derive(Debug, Default)]
pub struct DiskFaults {
    full: AtomicBool,
}

impl DiskFaults {
    pub fn set_full(&self, full: bool) {
        self.full.store(full, Ordering::SeqCst);
    }

    pub fn is_full(&self) -> bool {
        self.full.load(Ordering::SeqCst)
    }

    /// `Err(ENOSPC)` while full.
    pub(crate) fn check(&self) -> std::io::Result<()> {
        if self.is_full() {
            return Err(no_space());
        }
        Ok(())
    }
}

/// The error a full disk gives: `ENOSPC`, which is 28 on Linux and macOS.
pub(crate) fn no_space() -> std::io::Error {
    std::io::Error::from_raw_os_error(28)
}
