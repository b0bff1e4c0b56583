//! Version stamps and visibility ("fast MVCC" over insert/delete-only tuples).
//!
//! Every tuple carries two stamps:
//! - `begin`: the commit timestamp of the transaction that inserted it, the
//!   [`marker`] of the inserting transaction while it is uncommitted, or
//!   [`KILLED`] when that transaction rolled back (never visible);
//! - `end`: [`NONE`] while the tuple is alive, the marker of a transaction
//!   that deletes it (uncommitted), or the commit timestamp of the deletion.
//!
//! Commit timestamps are below 2^63; markers have the top bit set. A
//! deletion installs its marker with a compare-and-swap from `NONE`, so two
//! writers can never both delete one tuple: the loser gets a write conflict
//! (first-writer-wins, as in snapshot isolation).
//!
//! Dead versions (deletions older than every live snapshot, killed inserts)
//! are collected by module `gc`, which frees their slots for reuse.

use std::sync::atomic::{AtomicU64, Ordering};

/// `end` of a live tuple.
pub(crate) const NONE: u64 = u64::MAX;
/// `begin` of an insert whose transaction rolled back.
pub(crate) const KILLED: u64 = u64::MAX - 1;
/// `begin` of a collected slot awaiting reuse (module `gc`); never visible.
pub(crate) const FREED: u64 = u64::MAX - 2;
const MARK_BIT: u64 = 1 << 63;

/// The stamp an uncommitted transaction `txn` puts on its writes.
pub(crate) fn marker(txn: u64) -> u64 {
    MARK_BIT | txn
}

pub(crate) fn is_commit_ts(stamp: u64) -> bool {
    stamp & MARK_BIT == 0
}

/// A transaction's view: what it reads and which marker is its own.
#[derive(Copy, Clone, Debug)]
pub(crate) struct View {
    pub(crate) read_ts: u64,
    /// The transaction's marker (0 for a view that owns no writes: no tuple
    /// ever carries stamp 0, because commit timestamps start at 1).
    pub(crate) me: u64,
    /// After a commit, the transaction's own commit timestamp, so that it
    /// keeps seeing its own (now stamped) writes; 0 before.
    pub(crate) my_commit_ts: u64,
}

impl View {
    /// A view of the committed state at `read_ts`, owning nothing.
    pub(crate) fn committed(read_ts: u64) -> Self {
        View {
            read_ts,
            me: 0,
            my_commit_ts: 0,
        }
    }

    /// Whether the view sees the tuples of a zone frozen at `frozen_at`
    /// (module `relation::zone`): all of them when its snapshot is at or
    /// after that timestamp, none otherwise.
    #[inline]
    pub(crate) fn sees_frozen(&self, frozen_at: u64) -> bool {
        frozen_at <= self.read_ts
    }

    fn sees_stamp(&self, stamp: u64) -> bool {
        stamp == self.me
            || (is_commit_ts(stamp)
                && (stamp <= self.read_ts
                    || (self.my_commit_ts != 0 && stamp == self.my_commit_ts)))
    }

    pub(crate) fn visible(&self, begin: &AtomicU64, end: &AtomicU64) -> bool {
        // end first: a deletion that commits between the two loads carries a
        // timestamp above read_ts, so it cannot hide a tuple we should see.
        let end = end.load(Ordering::Acquire);
        let begin = begin.load(Ordering::Acquire);
        self.sees_stamp(begin) && !self.sees_stamp(end)
    }
}

/// Outcome of trying to install a delete marker.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum DeleteOutcome {
    /// We installed our marker.
    Deleted,
    /// Our marker was already there.
    AlreadyMine,
    /// Another transaction deleted the tuple (committed or not).
    Conflict,
}

/// Marks a tuple (which the caller saw as visible) deleted by `me`.
pub(crate) fn try_delete(end: &AtomicU64, me: u64) -> DeleteOutcome {
    match end.compare_exchange(NONE, me, Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => DeleteOutcome::Deleted,
        Err(current) if current == me => DeleteOutcome::AlreadyMine,
        Err(_) => DeleteOutcome::Conflict,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tuple(begin: u64, end: u64) -> (AtomicU64, AtomicU64) {
        (AtomicU64::new(begin), AtomicU64::new(end))
    }

    #[test]
    fn visibility_rules() {
        let me = marker(7);
        let view = View {
            read_ts: 10,
            me,
            my_commit_ts: 0,
        };
        let cases = [
            (5, NONE, true),
            (10, NONE, true),
            (11, NONE, false),
            (me, NONE, true),
            (marker(8), NONE, false),
            (KILLED, NONE, false),
            (5, me, false),
            (5, marker(8), true),
            (5, 9, false),
            (5, 12, true),
            (me, me, false),
        ];
        for (b, e, expect) in cases {
            let (b_, e_) = tuple(b, e);
            assert_eq!(view.visible(&b_, &e_), expect, "begin {b:#x} end {e:#x}");
        }
        let after_commit = View {
            my_commit_ts: 15,
            ..view
        };
        let (b, e) = tuple(15, NONE);
        assert!(after_commit.visible(&b, &e));
        let (b, e) = tuple(14, NONE);
        assert!(!after_commit.visible(&b, &e));
    }

    #[test]
    fn delete_is_first_writer_wins() {
        let end = AtomicU64::new(NONE);
        assert_eq!(try_delete(&end, marker(1)), DeleteOutcome::Deleted);
        assert_eq!(try_delete(&end, marker(1)), DeleteOutcome::AlreadyMine);
        assert_eq!(try_delete(&end, marker(2)), DeleteOutcome::Conflict);
    }
}
