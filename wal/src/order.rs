//! The cross-partition acknowledgement rule: a commit may be acknowledged
//! (and published) only when it *and every commit with a smaller
//! timestamp* are durable.
//!
//! Why: commits are spread over log partitions that fsync independently.
//! If T2 (partition B) were acknowledged while T1 (partition A) was still
//! in A's queue, a crash would leave T2 in the log without T1; recovery
//! stops at the first timestamp gap (see `recovery`), so T2 would be lost
//! although acknowledged. Waiting for the whole prefix makes "acknowledged"
//! and "replayed after a crash" the same set.
//!
//! Invariants: `in_flight` holds the appended, not yet durable commits in
//! timestamp order, with its first entry never done (done entries at the
//! front are popped at once); a commit `ts` is acknowledgeable exactly when
//! no entry with a timestamp `<= ts` is left. Once `failed` is set, no
//! waiter still in flight is ever acknowledged (durability reports are
//! ignored, so the in-flight list is frozen: it is exactly the set of
//! refused commits) and no append is accepted, until [`CommitOrder::reset`],
//! which the log calls only after every refused commit was released (undone
//! in memory by its committer) and the log was cut back to the acknowledged
//! prefix (docs/adr/0083-resuming-after-a-log-failure.md).

use crate::error::WalError;
use parking_lot::{Condvar, Mutex};
use std::collections::{BTreeSet, VecDeque};

#[derive(Default)]
struct State {
    /// `(commit timestamp, durable)`, ascending by timestamp.
    in_flight: VecDeque<(u64, bool)>,
    /// The highest acknowledged timestamp (the recovered one at open).
    acked: u64,
    failed: Option<String>,
    /// Refused (in-flight at the failure) commits whose committer has undone
    /// them in memory.
    released: BTreeSet<u64>,
    closed: bool,
}

/// Shared by the [`Wal`](crate::Wal) handle and every partition writer.
#[derive(Default)]
pub(crate) struct CommitOrder {
    state: Mutex<State>,
    changed: Condvar,
}

impl CommitOrder {
    /// An order whose acknowledged prefix ends at `acked` (what recovery
    /// replayed).
    pub(crate) fn after(acked: u64) -> CommitOrder {
        let order = CommitOrder::default();
        order.state.lock().acked = acked;
        order
    }

    /// Registers an appended commit. Appends come in timestamp order (under
    /// the store's commit lock); an out-of-order one is inserted in place.
    pub(crate) fn appended(&self, ts: u64) -> Result<(), WalError> {
        let mut st = self.state.lock();
        if let Some(why) = &st.failed {
            return Err(WalError::Failed(why.clone()));
        }
        let at = st.in_flight.partition_point(|(t, _)| *t <= ts);
        st.in_flight.insert(at, (ts, false));
        Ok(())
    }

    /// Marks commits durable (as the durability setting counts it) and
    /// wakes the waiters whose whole prefix is now durable.
    pub(crate) fn durable(&self, timestamps: &[u64]) {
        if timestamps.is_empty() {
            return;
        }
        let mut st = self.state.lock();
        if st.failed.is_some() {
            return;
        }
        for ts in timestamps {
            let at = st.in_flight.partition_point(|(t, _)| t < ts);
            if let Some(entry) = st.in_flight.get_mut(at).filter(|(t, _)| t == ts) {
                entry.1 = true;
            }
        }
        while let Some(&(ts, true)) = st.in_flight.front() {
            st.in_flight.pop_front();
            st.acked = ts;
        }
        drop(st);
        self.changed.notify_all();
    }

    /// A partition failed: nothing in flight will ever be acknowledged.
    pub(crate) fn fail(&self, why: &str) {
        let mut st = self.state.lock();
        st.failed.get_or_insert_with(|| why.to_string());
        drop(st);
        self.changed.notify_all();
    }

    /// Unregisters `ts`, which was registered but never reached a
    /// partition's queue: the store did not keep it and will assign it again.
    pub(crate) fn withdraw(&self, ts: u64) {
        let mut st = self.state.lock();
        if let Some(at) = st.in_flight.iter().position(|(t, _)| *t == ts) {
            st.in_flight.remove(at);
        }
    }

    /// Why the log failed, while it is failed.
    pub(crate) fn failure(&self) -> Option<String> {
        self.state.lock().failed.clone()
    }

    /// The refused commit `ts` was undone in memory by its committer.
    pub(crate) fn release(&self, ts: u64) {
        let mut st = self.state.lock();
        if st.failed.is_some() && st.in_flight.iter().any(|(t, _)| *t == ts) {
            st.released.insert(ts);
        }
    }

    /// While failed: the last acknowledged timestamp, where the log is cut
    /// to resume, once every refused commit was released; an error while
    /// some are not. `None` when the log has not failed.
    pub(crate) fn cut_point(&self) -> Result<Option<u64>, WalError> {
        let st = self.state.lock();
        if st.failed.is_none() {
            return Ok(None);
        }
        let pending = st
            .in_flight
            .iter()
            .filter(|(t, _)| !st.released.contains(t))
            .count();
        if pending > 0 {
            return Err(WalError::Failed(format!(
                "{pending} refused commit(s) are still being undone"
            )));
        }
        Ok(Some(st.in_flight.front().map_or(st.acked, |(t, _)| t - 1)))
    }

    /// Ends a failure: the log was cut at the acknowledged prefix and the
    /// store's clock rewound to it; appends are accepted again.
    pub(crate) fn reset(&self) {
        let mut st = self.state.lock();
        if let Some((ts, _)) = st.in_flight.front() {
            st.acked = ts - 1;
        }
        st.in_flight.clear();
        st.released.clear();
        st.failed = None;
    }

    /// Every writer has stopped: waiters still in flight can never be
    /// acknowledged.
    pub(crate) fn close(&self) {
        self.state.lock().closed = true;
        self.changed.notify_all();
    }

    /// Blocks until `ts` and every smaller appended timestamp are durable,
    /// or fails when the log failed or closed first.
    pub(crate) fn wait(&self, ts: u64) -> Result<(), WalError> {
        let mut st = self.state.lock();
        loop {
            if st.in_flight.front().is_none_or(|(t, _)| *t > ts) {
                return Ok(());
            }
            if let Some(why) = &st.failed {
                return Err(WalError::Failed(why.clone()));
            }
            if st.closed {
                return Err(WalError::Failed(format!(
                    "the log closed before commit {ts} was durable"
                )));
            }
            self.changed.wait(&mut st);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn acknowledged(order: &CommitOrder, ts: u64) -> bool {
        let st = order.state.lock();
        st.in_flight.front().is_none_or(|(t, _)| *t > ts)
    }

    #[test]
    fn a_commit_waits_for_every_smaller_one() {
        let order = CommitOrder::default();
        for ts in 1..=4 {
            order.appended(ts).unwrap();
        }
        order.durable(&[2, 4]);
        assert!(!acknowledged(&order, 2), "1 is not durable yet");
        order.durable(&[1]);
        assert!(acknowledged(&order, 1));
        assert!(acknowledged(&order, 2));
        assert!(!acknowledged(&order, 3));
        assert!(!acknowledged(&order, 4), "3 is not durable yet");
        order.durable(&[3]);
        assert!(acknowledged(&order, 4));
        order.wait(4).unwrap();
    }

    #[test]
    fn failure_and_close_release_waiters_with_an_error() {
        let order = CommitOrder::default();
        order.appended(1).unwrap();
        order.appended(2).unwrap();
        order.durable(&[2]);
        order.close();
        assert!(matches!(order.wait(2), Err(WalError::Failed(_))));
        order.fail("disk full");
        assert!(matches!(order.appended(3), Err(WalError::Failed(_))));
        assert!(matches!(order.wait(1), Err(WalError::Failed(_))));
    }

    #[test]
    fn a_failure_freezes_the_refused_commits_until_all_are_released() {
        let order = CommitOrder::after(10);
        for ts in 11..=14 {
            order.appended(ts).unwrap();
        }
        order.durable(&[11]);
        assert_eq!(order.cut_point().unwrap(), None, "not failed");
        order.fail("disk full");
        order.durable(&[12, 13, 14]);
        for ts in 12..=14 {
            assert!(order.wait(ts).is_err(), "{ts} is refused after the failure");
        }
        order.release(12);
        order.release(14);
        assert!(order.cut_point().is_err(), "13 is not undone yet");
        order.release(13);
        assert_eq!(order.cut_point().unwrap(), Some(11));
        order.reset();
        assert_eq!(order.failure(), None);
        order.appended(12).unwrap();
        order.durable(&[12]);
        order.wait(12).unwrap();
    }
}
