//! Commit and rollback.
//!
//! Commit, under the store's commit mutex: validate (write-write conflicts
//! that a delete CAS cannot see), assign `last + 1`, hand the changes to the
//! log callback, then stamp every insert/delete of the transaction with the
//! commit timestamp. Logging before stamping means a failed log write only
//! has to undo markers; either way no reader can see the commit, because
//! readers start at the published timestamp, which is below it.

use super::schema_ddl;
use super::schema_writes::validate_at_commit;
use super::state::{Status, TxnCore, TxnState, Undo};
use super::validate::validate;
use super::CommitError;
use crate::change::Change;
use crate::counts::count_keys;
use crate::error::StorageError;
use crate::mvcc::{KILLED, NONE};
use crate::stats::TupleDelta;
use crate::store::Store;
use std::sync::atomic::Ordering;

/// Commits `core`; `Ok(None)` for a transaction that wrote nothing.
pub(crate) fn commit<E>(
    store: &Store,
    core: &TxnCore,
    log: impl FnOnce(u64, &[Change]) -> Result<(), E>,
) -> Result<Option<u64>, CommitError<E>> {
    let mut st = core.state.lock();
    if st.status != Status::Active {
        return Err(CommitError::Storage(StorageError::TxnClosed));
    }
    if let Some(why) = st.doomed.clone() {
        rollback_locked(store, core, &mut st);
        return Err(CommitError::Storage(StorageError::WriteConflict(why)));
    }
    if st.changes.is_empty() && st.undo.is_empty() {
        st.status = Status::Committed;
        return Ok(None);
    }
    let mut last = store.commit_lock.lock();
    let checked = validate(store, core, &st)
        .and_then(|()| validate_at_commit(store, core.view(), &st, *last))
        .and_then(|()| {
            if st.schema_change {
                schema_ddl::prepare(store, &st, *last)
            } else {
                Ok(Vec::new())
            }
        });
    let prepared = match checked {
        Ok(prepared) => prepared,
        Err(e) => {
            drop(last);
            rollback_locked(store, core, &mut st);
            return Err(CommitError::Storage(e));
        }
    };
    let commit_ts = *last + 1;
    if let Err(e) = log(commit_ts, &st.changes) {
        drop(last);
        rollback_locked(store, core, &mut st);
        return Err(CommitError::Log(e));
    }
    stamp(store, core, &mut st, commit_ts);
    let stale = std::mem::take(&mut st.stale);
    st.index_inserts.clear();
    store.queue_stale(stale_at(stale, commit_ts));
    if !prepared.is_empty() {
        st.populate = schema_ddl::install(store, prepared);
    }
    *last = commit_ts;
    Ok(Some(commit_ts))
}

/// Stamps a replayed transaction (the caller holds the commit mutex).
pub(crate) fn stamp_committed(store: &Store, core: &TxnCore, commit_ts: u64) {
    let mut st = core.state.lock();
    stamp(store, core, &mut st, commit_ts);
}

fn stamp(store: &Store, core: &TxnCore, st: &mut TxnState, commit_ts: u64) {
    let mut deltas = Vec::new();
    let mut stat_deltas = Vec::with_capacity(st.undo.len());
    for undo in &st.undo {
        let (at, delta) = match *undo {
            Undo::Inserted(at) => (at, 1),
            Undo::Deleted(at) => (at, -1),
        };
        let counted = store.with_tuple(at, |t| {
            if delta > 0 {
                t.set_begin(commit_ts);
            } else {
                t.set_end(commit_ts);
            }
            stat_deltas.push(TupleDelta {
                kind: at.kind,
                s: t.s,
                p: t.p,
                o: t.o,
                delta,
            });
            count_keys(at.kind, t.p, t.o.payload).map(move |key| (key, delta))
        });
        deltas.extend(counted.into_iter().flatten());
    }
    store.apply_counts(commit_ts, deltas);
    store.stats.apply(stat_deltas);
    let deleted = st.undo.iter().filter(|u| matches!(u, Undo::Deleted(_)));
    let deleted = deleted.count() as u64;
    store
        .snapshots
        .garbage
        .fetch_add(deleted, Ordering::Relaxed);
    store
        .snapshots
        .fresh
        .fetch_add(st.undo.len() as u64 - deleted, Ordering::Relaxed);
    core.committed_ts.store(commit_ts, Ordering::Release);
    st.status = Status::Committed;
}

/// Rolls back an active transaction; a no-op otherwise.
pub(crate) fn rollback(store: &Store, core: &TxnCore) {
    let mut st = core.state.lock();
    if st.status == Status::Active {
        rollback_locked(store, core, &mut st);
    }
}

/// Undoes the writes newest first: inserts are killed (never visible),
/// deletes are unmarked.
pub(crate) fn rollback_locked(store: &Store, core: &TxnCore, st: &mut TxnState) {
    let killed = st.undo.iter().filter(|u| matches!(u, Undo::Inserted(_)));
    store
        .snapshots
        .garbage
        .fetch_add(killed.count() as u64, Ordering::Relaxed);
    for undo in st.undo.drain(..).rev() {
        match undo {
            Undo::Inserted(at) => {
                store.with_tuple(at, |t| t.set_begin(KILLED));
            }
            Undo::Deleted(at) => {
                store.with_tuple(at, |t| t.replace_end(core.marker, NONE));
            }
        }
    }
    st.status = Status::RolledBack;
    st.stale.clear();
    let added = std::mem::take(&mut st.index_inserts);
    store.queue_stale(stale_at(added, store.visible_ts()));
    store.lock_waits.notify();
}

/// Entries moved off (or added by a rolled-back write) as of `after`.
fn stale_at(
    entries: Vec<(std::sync::Arc<crate::schema::PropertyIndex>, Vec<u8>, u64)>,
    after: u64,
) -> Vec<crate::schema::StaleEntry> {
    entries
        .into_iter()
        .map(|(index, key, entity)| crate::schema::StaleEntry {
            index,
            key,
            entity,
            after,
        })
        .collect()
}
