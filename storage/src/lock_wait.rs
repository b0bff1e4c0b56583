//! Waiting for another transaction's uncommitted write, and deadlock
//! detection (docs/adr/0126-waiting-for-uncommitted-writes.md).
//!
//! Why: under first-writer-wins a write that met another transaction's
//! uncommitted write failed at once (or, for a property both added, at
//! commit), whatever that transaction would do next. Neo4j makes the second
//! writer wait for the first and then see its outcome; drivers and their
//! conformance tests expect it. Here a writer that meets a stamp of another
//! open transaction (its marker), or of a commit not yet published, waits
//! until the stamp changes: the holder committed and published, or rolled
//! back. The caller then decides on the stamp it finds.
//!
//! There is no lock table: the item's own stamp is the lock, so a write that
//! meets nobody costs nothing more than before. Only waiting transactions
//! are recorded, each with the one holder it waits for (`graph`); a wait
//! that would close a cycle fails at once with [`StorageError::Deadlock`].
//! Waits end early when the transaction's deadline passes or its stop flag
//! is set (RESET, termination, a client that left, server shutdown).

use crate::error::{Result, StorageError};
use crate::mvcc::{is_commit_ts, FREED, KILLED, NONE};
use parking_lot::{Condvar, Mutex};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long a waiter sleeps before it looks at its stop flag, deadline and
/// stamp again, even when nobody woke it (a stop flag is set from outside
/// and wakes nobody).
const POLL: Duration = Duration::from_millis(20);

/// What bounds a transaction's waits for other transactions' writes: its
/// deadline (`None`: none) and the flag that stops its running statement.
#[derive(Clone, Default, Debug)]
pub struct WaitLimits {
    pub deadline: Option<Instant>,
    pub stop: Option<Arc<AtomicBool>>,
}

impl WaitLimits {
    fn stopped(&self) -> bool {
        self.stop
            .as_ref()
            .is_some_and(|s| s.load(Ordering::Acquire))
    }
}

/// The transactions waiting now, each for one holder (markers).
#[derive(Default)]
pub(crate) struct LockWaits {
    graph: Mutex<HashMap<u64, u64>>,
    changed: Condvar,
    /// How many wait now: ending a transaction wakes nobody when zero.
    waiting: AtomicUsize,
    /// Set when the store shuts down: every wait ends, none begins.
    closed: AtomicBool,
}

impl LockWaits {
    /// How many transactions wait now (tests wait for a waiter to appear).
    #[cfg(test)]
    pub(crate) fn waiting(&self) -> usize {
        self.waiting.load(Ordering::SeqCst)
    }

    /// Ends every wait now and refuses new ones (server shutdown).
    pub(crate) fn close(&self) {
        self.closed.store(true, Ordering::SeqCst);
        let _graph = self.graph.lock();
        self.changed.notify_all();
    }

    /// Wakes the waiters to look at their stamps again: a transaction
    /// ended, or a commit was published.
    pub(crate) fn notify(&self) {
        if self.waiting.load(Ordering::SeqCst) > 0 {
            let _graph = self.graph.lock();
            self.changed.notify_all();
        }
    }

    /// Waits while `stamp()` is held by another transaction: the marker of
    /// one still open, or a commit above `visible()` (stamped, not yet
    /// published). Returns the stamp then. `me` is the waiter's marker.
    pub(crate) fn wait(
        &self,
        me: u64,
        limits: &WaitLimits,
        visible: impl Fn() -> u64,
        stamp: impl Fn() -> u64,
    ) -> Result<u64> {
        let held = |s: u64| held_by_other(s, me, visible());
        let first = stamp();
        if !held(first) {
            return Ok(first);
        }
        // The thread sleeps until another transaction ends: its pool may
        // lend its place meanwhile (crates/blocking).
        nereid_blocking::blocking(|| self.sleep(me, limits, held, stamp))
    }

    /// [`LockWaits::wait`] once the stamp was found held.
    fn sleep(
        &self,
        me: u64,
        limits: &WaitLimits,
        held: impl Fn(u64) -> bool,
        stamp: impl Fn() -> u64,
    ) -> Result<u64> {
        let mut graph = self.graph.lock();
        self.waiting.fetch_add(1, Ordering::SeqCst);
        let mut holder = None;
        let outcome = loop {
            let now = stamp();
            if !held(now) {
                break Ok(now);
            }
            // A marker names an open holder; a commit timestamp a holder
            // that only publishes, which waits for nobody.
            let current = (!is_commit_ts(now)).then_some(now);
            if current != holder {
                holder = current;
                match current {
                    Some(h) if closes_cycle(&graph, me, h) => break Err(deadlock(me, h)),
                    Some(h) => graph.insert(me, h),
                    None => graph.remove(&me),
                };
            }
            if limits.stopped() || self.closed.load(Ordering::SeqCst) {
                break Err(StorageError::LockWaitStopped);
            }
            let slice = match limits.deadline {
                Some(at) => match at.checked_duration_since(Instant::now()) {
                    Some(left) if !left.is_zero() => left.min(POLL),
                    _ => break Err(timed_out()),
                },
                None => POLL,
            };
            self.changed.wait_for(&mut graph, slice);
        };
        graph.remove(&me);
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        outcome
    }
}

/// Whether `stamp` belongs to a transaction other than `me` that has not
/// ended visibly: its marker, or its commit not yet published.
fn held_by_other(stamp: u64, me: u64, visible: u64) -> bool {
    if stamp == me || stamp == NONE || stamp == KILLED || stamp == FREED {
        return false;
    }
    !is_commit_ts(stamp) || stamp > visible
}

/// Whether `me` waiting for `holder` closes a cycle: following who waits
/// for whom from `holder` leads back to `me`.
fn closes_cycle(graph: &HashMap<u64, u64>, me: u64, holder: u64) -> bool {
    let mut at = holder;
    // Each waiter waits for one holder: at most `len` steps end anywhere.
    for _ in 0..=graph.len() {
        if at == me {
            return true;
        }
        match graph.get(&at) {
            Some(&next) => at = next,
            None => return false,
        }
    }
    false
}

fn deadlock(me: u64, holder: u64) -> StorageError {
    let id = |marker: u64| marker & !(1 << 63);
    StorageError::Deadlock(format!(
        "Deadlock detected: transaction {} would wait for transaction {}, which waits \
         (directly or through others) for transaction {}; this transaction is rolled back. \
         Retry it.",
        id(me),
        id(holder),
        id(me)
    ))
}

fn timed_out() -> StorageError {
    StorageError::LockWaitTimedOut(
        "The transaction has been terminated: its timeout passed while it waited for another \
         transaction's write on the same entity, so it can take no more locks. Retry your \
         operation in a new transaction, perhaps with a longer timeout."
            .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mvcc::marker;

    #[test]
    fn a_cycle_is_found_through_every_waiter() {
        let graph = HashMap::from([(marker(2), marker(3)), (marker(3), marker(1))]);
        assert!(closes_cycle(&graph, marker(1), marker(2)));
        assert!(!closes_cycle(&graph, marker(4), marker(2)));
        assert!(!closes_cycle(&HashMap::new(), marker(1), marker(2)));
    }

    #[test]
    fn only_other_open_or_unpublished_stamps_hold() {
        let me = marker(1);
        assert!(held_by_other(marker(2), me, 10));
        assert!(held_by_other(11, me, 10));
        for free in [me, NONE, KILLED, FREED, 10, 3] {
            assert!(!held_by_other(free, me, 10), "{free:#x}");
        }
    }
}
