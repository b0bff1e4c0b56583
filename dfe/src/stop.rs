//! Why a running query stops before its end: a cancel flag set from another
//! thread (RESET, a client that left) and its transaction's deadline.
//!
//! Both are checked at the same points, before every batch an operator
//! produces and in loops inside one expression, so a timeout stops a query
//! exactly where a RESET would (docs/adr/0082-cancellation-and-time-sliced-pulls.md).
//! The deadline is a plain `Instant` compared with the clock at each check
//! (about 20 ns, paid only by queries that have one) rather than a timer
//! that sets the flag: no thread or timer registration per transaction,
//! and the reason is known where the query stops instead of being carried
//! through a shared flag (docs/adr/0087-transaction-timeouts.md).

use crate::error::{ExecError, ExecResult};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Who set a transaction's time limit: the status a client sees differs
/// (Neo4j: `TransactionTimedOutClientConfiguration` for the driver's own
/// timeout, `TransactionTimedOut` for the server's default).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TimeoutOrigin {
    Client,
    Server,
}

/// The moment a transaction's time is up, with the limit it came from.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Deadline {
    /// `None`: a limit too large for the clock, which never passes.
    at: Option<Instant>,
    limit: Duration,
    origin: TimeoutOrigin,
}

impl Deadline {
    /// `limit` after `start` (a transaction's BEGIN, or an auto-commit
    /// query's RUN).
    pub fn after(start: Instant, limit: Duration, origin: TimeoutOrigin) -> Deadline {
        Deadline {
            at: start.checked_add(limit),
            limit,
            origin,
        }
    }

    pub fn limit(&self) -> Duration {
        self.limit
    }

    pub fn origin(&self) -> TimeoutOrigin {
        self.origin
    }

    /// Fails with [`ExecError::TimedOut`] once the deadline has passed.
    pub fn check(&self) -> ExecResult<()> {
        if self.at.is_some_and(|at| Instant::now() >= at) {
            return Err(ExecError::TimedOut {
                limit: self.limit,
                origin: self.origin,
            });
        }
        Ok(())
    }
}

/// What a query and its nested plans poll to know whether to stop.
#[derive(Clone, Debug, Default)]
pub(crate) struct StopSignals {
    /// Set from another thread (see [`crate::Cursor::cancel_handle`]).
    pub(crate) cancel: Arc<AtomicBool>,
    pub(crate) deadline: Option<Deadline>,
}

impl StopSignals {
    /// Fails once the query was cancelled or its deadline passed
    /// (cancellation first: a RESET answers for what it interrupted).
    pub(crate) fn check(&self) -> ExecResult<()> {
        if self.cancel.load(Ordering::Relaxed) {
            return Err(ExecError::Cancelled);
        }
        match &self.deadline {
            Some(deadline) => deadline.check(),
            None => Ok(()),
        }
    }

    /// The same signals as the store's bounds on a wait for another
    /// transaction's write, which it checks while it sleeps.
    pub(crate) fn wait_limits(&self) -> nereid_storage::WaitLimits {
        nereid_storage::WaitLimits {
            deadline: self.deadline.and_then(|d| d.at),
            stop: Some(Arc::clone(&self.cancel)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deadline_fails_only_once_passed_and_names_its_origin() {
        let now = Instant::now();
        let later = Deadline::after(now, Duration::from_secs(3600), TimeoutOrigin::Client);
        assert_eq!(later.check(), Ok(()));
        let passed = Deadline::after(now, Duration::ZERO, TimeoutOrigin::Server);
        assert_eq!(
            passed.check(),
            Err(ExecError::TimedOut {
                limit: Duration::ZERO,
                origin: TimeoutOrigin::Server
            })
        );
        let huge = Deadline::after(now, Duration::MAX, TimeoutOrigin::Client);
        assert_eq!(huge.check(), Ok(()));
    }

    #[test]
    fn cancellation_is_reported_before_a_passed_deadline() {
        let signals = StopSignals {
            cancel: Arc::new(AtomicBool::new(true)),
            deadline: Some(Deadline::after(
                Instant::now(),
                Duration::ZERO,
                TimeoutOrigin::Client,
            )),
        };
        assert_eq!(signals.check(), Err(ExecError::Cancelled));
        signals.cancel.store(false, Ordering::Relaxed);
        assert!(matches!(signals.check(), Err(ExecError::TimedOut { .. })));
        assert_eq!(StopSignals::default().check(), Ok(()));
    }
}
