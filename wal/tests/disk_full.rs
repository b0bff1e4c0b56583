//! A full disk, simulated with the `DiskFaults` seam: a failed log write
//! refuses its commit (nothing published), the log resumes once the disk
//! takes bytes again, and a restart replays exactly the acknowledged
//! commits (docs/adr/0083-resuming-after-a-log-failure.md).

mod common;
use common::commit;

use nereid_storage::{Store, StoreConfig, Txn};
use nereid_values::Value;
use nereid_wal::{DiskFaults, Durability, Lsn, Wal, WalError, WalOptions};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

fn options(faults: &Arc<DiskFaults>, durability: Durability) -> WalOptions {
    WalOptions {
        durability,
        segment_bytes: 400,
        partitions: 3,
        faults: Some(faults.clone()),
    }
}

/// A store recovered from the log in `dir`, and the log.
fn open(dir: &Path, options: &WalOptions) -> (Arc<Store>, Wal) {
    let store = Store::new(StoreConfig { partitions: 2 });
    let (wal, _) = Wal::open_after(dir, options, 0, |ts, changes| {
        store.replay(ts, changes).map_err(|e| e.to_string())
    })
    .unwrap();
    (store, wal)
}

fn create(txn: &Txn, v: i64) {
    let props = BTreeMap::from([("v".to_string(), Value::Int(v))]);
    txn.create_node(&["N".to_string()], &props).unwrap();
}

/// The `v` values of the nodes visible now, sorted.
fn values(store: &Arc<Store>) -> Vec<i64> {
    let txn = store.begin();
    let mut out: Vec<i64> = txn
        .scan_nodes(Some("N"))
        .into_iter()
        .filter_map(|id| match txn.node_property(id, "v") {
            Some(Value::Int(v)) => Some(v),
            _ => None,
        })
        .collect();
    out.sort_unstable();
    out
}

/// What the server does with a commit: append inside the commit, wait for
/// durability, publish; on a log failure revoke and release it. Returns
/// whether it was acknowledged, and the error otherwise.
fn try_commit(store: &Arc<Store>, wal: &Wal, v: i64) -> Result<u64, WalError> {
    let txn = store.begin();
    create(&txn, v);
    let mut lsn: Option<Lsn> = None;
    let ticket = match txn.commit(|ts, changes| {
        lsn = Some(wal.append(ts, ts, changes)?);
        Ok::<(), WalError>(())
    }) {
        Ok(ticket) => ticket.unwrap(),
        Err(nereid_storage::CommitError::Log(e)) => return Err(e),
        Err(e) => panic!("{e:?}"),
    };
    let lsn = lsn.unwrap();
    if let Err(e) = wal.wait_durable(lsn) {
        txn.revoke_commit().unwrap();
        wal.release_refused(lsn);
        return Err(e);
    }
    let ts = ticket.commit_ts();
    ticket.publish();
    Ok(ts)
}

fn disk_full_round_trip(durability: Durability) {
    let dir = tempfile::tempdir().unwrap();
    let faults = Arc::new(DiskFaults::default());
    let options = options(&faults, durability);
    let (store, wal) = open(dir.path(), &options);
    for v in 1..=5 {
        commit(&store, &wal, |t| create(t, v));
    }
    assert_eq!(store.visible_ts(), 5);

    faults.set_full(true);
    let refused = try_commit(&store, &wal, 100).unwrap_err();
    assert!(
        refused.to_string().contains("os error 28"),
        "the failure names ENOSPC: {refused}"
    );
    assert!(wal.failure().is_some());
    assert_eq!(store.visible_ts(), 5, "nothing published");
    assert_eq!(values(&store), vec![1, 2, 3, 4, 5], "reads go on");
    // Later commits are refused at once, before anything is written.
    assert!(matches!(
        try_commit(&store, &wal, 101),
        Err(WalError::Failed(_))
    ));
    assert!(
        wal.resume(|ts| store.rewind_commits(ts).map_err(|e| e.to_string()))
            .is_err(),
        "the disk is still full"
    );
    assert!(wal.failure().is_some());

    faults.set_full(false);
    let resumed = wal
        .resume(|ts| store.rewind_commits(ts).map_err(|e| e.to_string()))
        .unwrap();
    assert_eq!(resumed, Some(5), "cut after the last acknowledged commit");
    assert_eq!(wal.failure(), None);
    assert_eq!(
        wal.resume(|_| unreachable!()).unwrap(),
        None,
        "healthy: nothing to do"
    );
    for v in 6..=40 {
        assert_eq!(try_commit(&store, &wal, v).unwrap(), v as u64);
    }
    assert_eq!(values(&store), (1..=40).collect::<Vec<_>>());
    drop(wal);

    let (again, wal) = open(dir.path(), &options);
    assert_eq!(again.visible_ts(), 40);
    assert_eq!(values(&again), (1..=40).collect::<Vec<_>>());
    drop(wal);
}

#[test]
fn fsync_mode_resumes_after_the_disk_had_room_again() {
    disk_full_round_trip(Durability::Fsync);
}

#[test]
fn interval_mode_resumes_after_the_disk_had_room_again() {
    disk_full_round_trip(Durability::Interval(std::time::Duration::from_millis(5)));
}

/// Several commits in flight when the disk fills (stamped, queued in
/// different partitions, some maybe written and fsynced): all are refused,
/// the log resumes only once each was released, and none reappears, neither
/// in memory nor after a restart.
#[test]
fn every_commit_in_flight_at_the_failure_is_refused_and_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let faults = Arc::new(DiskFaults::default());
    let options = options(&faults, Durability::Fsync);
    let (store, wal) = open(dir.path(), &options);
    for v in 1..=3 {
        commit(&store, &wal, |t| create(t, v));
    }
    faults.set_full(true);
    // Stamp and queue three commits before waiting for any.
    let mut pending = Vec::new();
    for v in [200, 201, 202] {
        let txn = store.begin();
        create(&txn, v);
        let mut lsn = None;
        let result = txn.commit(|ts, changes| {
            lsn = Some(wal.append(ts, ts, changes)?);
            Ok::<(), WalError>(())
        });
        if result.is_ok() {
            pending.push((txn, lsn.unwrap()));
        }
    }
    assert!(!pending.is_empty());
    let mut waiting = pending.into_iter();
    let (first, first_lsn) = waiting.next().unwrap();
    assert!(wal.wait_durable(first_lsn).is_err());
    first.revoke_commit().unwrap();
    wal.release_refused(first_lsn);
    let rest: Vec<_> = waiting.collect();
    faults.set_full(false);
    if !rest.is_empty() {
        let blocked = wal.resume(|ts| store.rewind_commits(ts).map_err(|e| e.to_string()));
        assert!(
            blocked.is_err(),
            "refused commits not yet undone block resuming"
        );
    }
    for (txn, lsn) in rest {
        assert!(wal.wait_durable(lsn).is_err(), "refused once failed");
        txn.revoke_commit().unwrap();
        wal.release_refused(lsn);
    }
    let resumed = wal
        .resume(|ts| store.rewind_commits(ts).map_err(|e| e.to_string()))
        .unwrap();
    assert_eq!(resumed, Some(3));
    assert_eq!(try_commit(&store, &wal, 4).unwrap(), 4);
    assert_eq!(values(&store), vec![1, 2, 3, 4]);
    drop(wal);
    let (again, wal) = open(dir.path(), &options);
    assert_eq!(values(&again), vec![1, 2, 3, 4]);
    drop(wal);
}
