//! Snapshot isolation, own writes, rollback and write-write conflicts.

mod common;

use common::{commit, labels, props, store};
use nereid_storage::{CommitError, StorageError, WaitLimits};
use nereid_values::{Direction, Value};

#[test]
fn own_writes_are_visible_at_once_and_to_others_only_after_publish() {
    let s = store();
    let t1 = s.begin();
    let n = t1
        .create_node(&labels(&["Person"]), &props(&[("name", "Ann".into())]))
        .unwrap();
    assert!(t1.node_exists(n));
    assert_eq!(t1.node_property(n, "name"), Some(Value::from("Ann")));
    assert_eq!(t1.scan_nodes(Some("Person")), vec![n]);

    let t2 = s.begin();
    assert!(!t2.node_exists(n));
    assert!(t2.scan_nodes(None).is_empty());

    // Stamped but unpublished: still invisible to new readers.
    let ticket = t1.commit(|_, _| Ok::<(), ()>(())).unwrap().unwrap();
    assert_eq!(s.visible_ts(), 0);
    assert!(!s.begin().node_exists(n));
    // (Estimates are kept at stamping, so they may count it already.)
    assert_eq!(s.estimate_nodes(None), 1);
    // The committer still sees its own writes.
    assert!(t1.node_exists(n));

    ticket.publish();
    assert_eq!(s.visible_ts(), 1);
    assert!(s.begin().node_exists(n));
    assert_eq!(s.estimate_nodes(Some("Person")), 1);
    // The older snapshot stays as it was.
    assert!(!t2.node_exists(n));
}

#[test]
fn snapshot_isolation_keeps_old_property_values() {
    let s = store();
    let t = s.begin();
    let n = t.create_node(&[], &props(&[("v", Value::Int(1))])).unwrap();
    commit(&t).unwrap();

    let reader = s.begin();
    let writer = s.begin();
    writer.set_node_property(n, "v", Value::Int(2)).unwrap();
    assert_eq!(writer.node_property(n, "v"), Some(Value::Int(2)));
    assert_eq!(reader.node_property(n, "v"), Some(Value::Int(1)));
    commit(&writer).unwrap();
    assert_eq!(reader.node_property(n, "v"), Some(Value::Int(1)));
    assert_eq!(s.begin().node_property(n, "v"), Some(Value::Int(2)));
}

#[test]
fn rollback_undoes_inserts_and_deletes() {
    let s = store();
    let t = s.begin();
    let a = t
        .create_node(&labels(&["A"]), &props(&[("x", Value::Int(1))]))
        .unwrap();
    let b = t.create_node(&[], &Default::default()).unwrap();
    let r = t
        .create_rel(a, b, "KNOWS", &props(&[("w", Value::Float(0.5))]))
        .unwrap();
    commit(&t).unwrap();

    let t = s.begin();
    t.set_node_property(a, "x", Value::Int(2)).unwrap();
    t.remove_label(a, "A").unwrap();
    t.delete_rel(r).unwrap();
    let c = t.create_node(&[], &Default::default()).unwrap();
    assert!(!t.rel_exists(r));
    t.rollback();
    assert!(matches!(t.add_label(a, "B"), Err(StorageError::TxnClosed)));

    let check = s.begin();
    assert_eq!(check.node_property(a, "x"), Some(Value::Int(1)));
    assert!(check.node_has_label(a, "A"));
    assert!(check.rel_exists(r));
    assert_eq!(check.rel_property(r, "w"), Some(Value::Float(0.5)));
    assert!(!check.node_exists(c));

    // Dropping an active transaction rolls it back too.
    {
        let t = s.begin();
        t.set_node_property(a, "x", Value::Int(3)).unwrap();
    }
    assert_eq!(s.begin().node_property(a, "x"), Some(Value::Int(1)));
    // And the property is writable again (no marker left behind).
    let t = s.begin();
    t.set_node_property(a, "x", Value::Int(4)).unwrap();
    commit(&t).unwrap();
    assert_eq!(s.begin().node_property(a, "x"), Some(Value::Int(4)));
}

#[test]
fn concurrent_updates_of_one_property_conflict() {
    let s = store();
    let t = s.begin();
    let n = t.create_node(&[], &props(&[("v", Value::Int(0))])).unwrap();
    commit(&t).unwrap();

    let t1 = s.begin();
    let t2 = s.begin();
    t1.set_node_property(n, "v", Value::Int(1)).unwrap();
    // t1's delete marker is on the old version: t2 waits for t1, here for
    // no time at all (waits on threads: lock_wait_tests.rs) ...
    t2.set_wait_limits(expired());
    assert!(matches!(
        t2.set_node_property(n, "v", Value::Int(2)),
        Err(StorageError::LockWaitTimedOut(_))
    ));
    // ... and is doomed.
    assert!(matches!(
        commit(&t2),
        Err(CommitError::Storage(StorageError::WriteConflict(_)))
    ));
    commit(&t1).unwrap();

    // A snapshot older than t1's commit cannot overwrite it either.
    let t3 = s.begin();
    let t4 = s.begin();
    t3.set_node_property(n, "v", Value::Int(3)).unwrap();
    commit(&t3).unwrap();
    assert!(matches!(
        t4.set_node_property(n, "v", Value::Int(4)),
        Err(StorageError::WriteConflict(_))
    ));
    assert_eq!(s.begin().node_property(n, "v"), Some(Value::Int(3)));
}

#[test]
fn lost_update_of_a_new_property_is_refused() {
    let s = store();
    let t = s.begin();
    let n = t.create_node(&[], &Default::default()).unwrap();
    commit(&t).unwrap();

    let t1 = s.begin();
    let t2 = s.begin();
    t1.set_node_property(n, "new", Value::Int(1)).unwrap();
    t1.add_label(n, "L").unwrap();
    // t2 would wait for t1's uncommitted key ...
    t2.set_wait_limits(expired());
    assert!(matches!(
        t2.set_node_property(n, "new", Value::Int(2)),
        Err(StorageError::LockWaitTimedOut(_))
    ));
    commit(&t1).unwrap();
    // ... and a snapshot older than t1's commit cannot add them again.
    let t3 = s.begin();
    let t4 = s.begin();
    t3.set_node_property(n, "newer", Value::Int(1)).unwrap();
    t3.add_label(n, "M").unwrap();
    commit(&t3).unwrap();
    assert!(matches!(
        t4.set_node_property(n, "newer", Value::Int(2)),
        Err(StorageError::WriteConflict(_))
    ));
    let t6 = s.begin();
    let t7 = s.begin();
    t6.add_label(n, "K").unwrap();
    commit(&t6).unwrap();
    assert!(matches!(
        t7.add_label(n, "K"),
        Err(StorageError::WriteConflict(_))
    ));
    let check = s.begin();
    assert_eq!(check.node_property(n, "new"), Some(Value::Int(1)));
    assert_eq!(check.node_labels(n), vec!["L", "M", "K"]);
}

#[test]
fn writing_to_a_node_deleted_concurrently_conflicts() {
    let s = store();
    let t = s.begin();
    let a = t.create_node(&[], &Default::default()).unwrap();
    let b = t.create_node(&[], &Default::default()).unwrap();
    commit(&t).unwrap();

    // The edge creator commits first: the deleter must fail.
    let creator = s.begin();
    let deleter = s.begin();
    creator.create_rel(a, b, "T", &Default::default()).unwrap();
    commit(&creator).unwrap();
    deleter.delete_node(a, false).unwrap(); // its snapshot has no edge
    assert!(matches!(
        commit(&deleter),
        Err(CommitError::Storage(StorageError::WriteConflict(_)))
    ));
    assert!(s.begin().node_exists(a));

    // The deleter commits first: the property writer must fail.
    let deleter = s.begin();
    let writer = s.begin();
    deleter.delete_node(b, true).unwrap();
    writer.set_wait_limits(expired());
    assert!(matches!(
        writer.set_node_property(b, "p", Value::Int(1)),
        Err(StorageError::LockWaitTimedOut(_))
    ));
    commit(&deleter).unwrap();
    let late = s.begin();
    assert!(!late.node_exists(b));
    assert!(late.expand(a, Direction::Both, &[]).is_empty());
}

#[test]
fn log_failure_rolls_the_commit_back() {
    let s = store();
    let t = s.begin();
    let n = t.create_node(&[], &Default::default()).unwrap();
    let result = t.commit(|_, _| Err::<(), _>("disk full"));
    assert!(matches!(result, Err(CommitError::Log("disk full"))));
    assert!(!t.node_exists(n));
    let next = s.begin();
    let m = next.create_node(&[], &Default::default()).unwrap();
    let (ts, _) = commit(&next).unwrap();
    assert_eq!(ts, 1, "the failed commit did not consume the timestamp");
    assert!(s.begin().node_exists(m));
    assert!(!s.begin().node_exists(n));
}

#[test]
fn read_only_transactions_do_not_log() {
    let s = store();
    let t = s.begin();
    t.scan_nodes(None);
    assert!(t.is_read_only());
    let ticket = t
        .commit(|_, _| -> Result<(), ()> { panic!("must not log") })
        .unwrap();
    assert!(ticket.is_none());
}

#[test]
fn commits_from_many_threads_get_unique_increasing_timestamps() {
    let s = store();
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let s = s.clone();
            std::thread::spawn(move || {
                (0..50)
                    .map(|i| {
                        let t = s.begin();
                        t.create_node(&labels(&["T"]), &props(&[("i", Value::Int(i))]))
                            .unwrap();
                        commit(&t).unwrap().0
                    })
                    .collect::<Vec<u64>>()
            })
        })
        .collect();
    let mut all: Vec<u64> = handles
        .into_iter()
        .flat_map(|h| h.join().unwrap())
        .collect();
    all.sort();
    assert_eq!(all, (1..=200).collect::<Vec<u64>>());
    assert_eq!(s.estimate_nodes(Some("T")), 200);
    assert_eq!(s.visible_ts(), 200);
}

#[test]
fn store_and_txn_are_shareable_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<nereid_storage::Store>();
    assert_send_sync::<nereid_storage::Txn>();
    assert_send_sync::<nereid_storage::CommitTicket>();
}

/// Limits that end any wait for another transaction's write at once.
fn expired() -> WaitLimits {
    WaitLimits {
        deadline: Some(std::time::Instant::now()),
        stop: None,
    }
}
