//! Revoking a commit that was stamped but can never be published.
//!
//! Why: a commit is stamped under the commit mutex as soon as its log record
//! is queued, and published only once the record (and every smaller
//! timestamp) is durable. When the log write fails (a full disk), the commit
//! is refused, but its tuples still carry its timestamp. If the log later
//! resumes, newer commits are published past that timestamp, which would
//! make the refused commit's tuples visible. Revoking undoes the stamps
//! (inserted tuples are killed, deleted ones live again) and takes back the
//! commit's count and statistics deltas, so the store is as if the commit
//! had been rolled back; [`Store::rewind_commits`] then lets the timestamps
//! be assigned again (docs/adr/0083-resuming-after-a-log-failure.md).
//!
//! Safe because nobody has read the commit: readers start at the published
//! timestamp, which is below it, and a writer that met one of its stamped
//! tuples got a write conflict.

use super::state::{Status, TxnCore, Undo};
use crate::error::{Result, StorageError};
use crate::mvcc::{KILLED, NONE};
use crate::stats::TupleDelta;
use crate::store::Store;
use std::sync::atomic::Ordering;

/// Undoes the stamps of `core`'s commit (see the module docs).
pub(crate) fn revoke(store: &Store, core: &TxnCore) -> Result<()> {
    let mut st = core.state.lock();
    let commit_ts = core.committed_ts.load(Ordering::Acquire);
    if st.status != Status::Committed || commit_ts == 0 {
        return Err(StorageError::TxnClosed);
    }
    if store.visible_ts() >= commit_ts {
        return Err(StorageError::Revoke(format!(
            "commit {commit_ts} is already published"
        )));
    }
    let mut stat_deltas = Vec::with_capacity(st.undo.len());
    for undo in st.undo.drain(..).rev() {
        let (at, delta) = match undo {
            Undo::Inserted(at) => (at, -1),
            Undo::Deleted(at) => (at, 1),
        };
        store.with_tuple(at, |t| {
            if delta < 0 {
                t.set_begin(KILLED);
            } else {
                t.replace_end(commit_ts, NONE);
            }
            stat_deltas.push(TupleDelta {
                kind: at.kind,
                s: t.s,
                p: t.p,
                o: t.o,
                delta,
            });
        });
    }
    store.counts.retract(commit_ts);
    store.stats.apply(stat_deltas);
    core.committed_ts.store(0, Ordering::Release);
    st.status = Status::RolledBack;
    store.lock_waits.notify();
    Ok(())
}

impl Store {
    /// Makes `to` the last assigned commit timestamp again, so that the next
    /// commit gets `to + 1`: the log resumed after a failure and dropped every
    /// record above `to`. Every commit above `to` must have been revoked (its
    /// tuples and counts are gone); none may be published.
    pub fn rewind_commits(&self, to: u64) -> Result<()> {
        let mut last = self.commit_lock.lock();
        if self.visible_ts() > to {
            return Err(StorageError::Revoke(format!(
                "cannot rewind to commit {to}: commit {} is published",
                self.visible_ts()
            )));
        }
        if let Some(ts) = self.counts.newest_after(to) {
            return Err(StorageError::Revoke(format!(
                "cannot rewind to commit {to}: commit {ts} was not revoked"
            )));
        }
        *last = to;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::change::StoreConfig;
    use crate::{Store, Txn};
    use nereid_values::{NodeId, Value};
    use std::collections::BTreeMap;
    use std::sync::Arc;

    fn stamp(store: &Arc<Store>, f: impl FnOnce(&Txn)) -> (Txn, u64) {
        let txn = store.begin();
        f(&txn);
        let ticket = txn.commit(|_, _| Ok::<(), ()>(())).unwrap().unwrap();
        let ts = ticket.commit_ts();
        (txn, ts)
    }

    fn node(txn: &Txn, v: i64) -> NodeId {
        let props = BTreeMap::from([("v".to_string(), Value::Int(v))]);
        txn.create_node(&["A".to_string()], &props).unwrap()
    }

    #[test]
    fn revoked_commits_stay_invisible_after_the_clock_is_rewound() {
        let store = Store::new(StoreConfig { partitions: 2 });
        let (kept, kept_ts) = stamp(&store, |t| {
            node(t, 1);
        });
        store.publish(kept_ts);
        drop(kept);
        let survivor = {
            let t = store.begin();
            let id = node(&t, 2);
            t.commit(|_, _| Ok::<(), ()>(()))
                .unwrap()
                .unwrap()
                .publish();
            id
        };
        // Two stamped commits whose log failed: one creates, one deletes.
        let mut revoked_node = None;
        let (created, ts_a) = stamp(&store, |t| revoked_node = Some(node(t, 3)));
        let (deleted, ts_b) = stamp(&store, |t| t.delete_node(survivor, true).unwrap());
        assert_eq!((ts_a, ts_b), (3, 4));
        assert!(
            store.rewind_commits(2).is_err(),
            "unrevoked commits block the rewind"
        );
        deleted.revoke_commit().unwrap();
        created.revoke_commit().unwrap();
        assert!(created.revoke_commit().is_err(), "revoked once only");
        store.rewind_commits(2).unwrap();
        // The next commit reuses timestamp 3; publishing it must not reveal
        // the revoked ones.
        let (next, ts) = stamp(&store, |t| {
            node(t, 4);
        });
        assert_eq!(ts, 3);
        store.publish(ts);
        drop(next);
        let r = store.begin();
        assert!(r.node_exists(survivor), "the revoked delete is undone");
        assert_eq!(r.count_nodes(Some("A")), 3);
        assert!(!r.node_exists(revoked_node.unwrap()));
        assert_eq!(r.node_property(survivor, "v"), Some(Value::Int(2)));
        assert!(store.rewind_commits(2).is_err(), "commit 3 is published");
    }
}
