//! Writers meeting each other's uncommitted writes, on real threads: the
//! second waits and then sees the first's outcome; cycles of waits fail
//! one member at once (module `lock_wait`).

use crate::change::StoreConfig;
use crate::{StorageError, Store, Txn, WaitLimits};
use nereid_values::{NodeId, Value};
use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

fn store_with(nodes: usize) -> (Arc<Store>, Vec<NodeId>) {
    let store = Store::new(StoreConfig { partitions: 2 });
    let txn = store.begin();
    let props = BTreeMap::from([("v".to_string(), Value::Int(0))]);
    let ids = (0..nodes)
        .map(|_| txn.create_node(&["N".to_string()], &props).unwrap())
        .collect();
    commit(&txn);
    (store, ids)
}

fn commit(txn: &Txn) {
    if let Some(ticket) = txn.commit(|_, _| Ok::<(), ()>(())).unwrap() {
        ticket.publish();
    }
}

fn set(txn: &Txn, node: NodeId, key: &str, v: i64) -> Result<(), StorageError> {
    txn.set_node_property(node, key, Value::Int(v))
}

/// Blocks until `n` transactions wait (no timing: a waiter registers
/// before it sleeps).
fn until_waiting(store: &Store, n: usize) {
    while store.lock_waits.waiting() < n {
        thread::yield_now();
    }
}

fn committed(store: &Arc<Store>, node: NodeId, key: &str) -> Option<Value> {
    store.begin().node_property(node, key)
}

/// One node whose `key` tx1 set to 1 and keeps open, and tx2 waiting on
/// a thread to set it to 2.
struct Contest {
    store: Arc<Store>,
    node: NodeId,
    tx1: Txn,
    tx2: Arc<Txn>,
    waiter: thread::JoinHandle<Result<(), StorageError>>,
}

fn contest(key: &'static str) -> Contest {
    let (store, ids) = store_with(1);
    let node = ids[0];
    let tx1 = store.begin();
    set(&tx1, node, key, 1).unwrap();
    let tx2 = Arc::new(store.begin());
    let waiter = {
        let tx2 = Arc::clone(&tx2);
        thread::spawn(move || set(&tx2, node, key, 2))
    };
    until_waiting(&store, 1);
    Contest {
        store,
        node,
        tx1,
        tx2,
        waiter,
    }
}

#[test]
fn a_writer_waits_for_a_commit_then_runs_again_on_the_new_version() {
    for key in ["v", "fresh"] {
        let c = contest(key);
        commit(&c.tx1);
        let outcome = c.waiter.join().unwrap();
        assert!(
            matches!(outcome, Err(StorageError::WriteConflict(_))),
            "{key}: {outcome:?}"
        );
        c.tx2.restart().unwrap();
        assert_eq!(
            c.tx2.node_property(c.node, key),
            Some(Value::Int(1)),
            "{key}"
        );
        set(&c.tx2, c.node, key, 2).unwrap();
        commit(&c.tx2);
        assert_eq!(
            committed(&c.store, c.node, key),
            Some(Value::Int(2)),
            "{key}"
        );
    }
}

#[test]
fn a_writer_waits_for_a_rollback_then_goes_on() {
    for key in ["v", "fresh"] {
        let c = contest(key);
        c.tx1.rollback();
        c.waiter.join().unwrap().unwrap();
        commit(&c.tx2);
        assert_eq!(
            committed(&c.store, c.node, key),
            Some(Value::Int(2)),
            "{key}"
        );
    }
}

#[test]
fn a_label_added_by_both_waits_too() {
    let (store, ids) = store_with(1);
    let n = ids[0];
    let tx1 = store.begin();
    tx1.add_label(n, "L").unwrap();
    let tx2 = Arc::new(store.begin());
    let waiter = {
        let tx2 = Arc::clone(&tx2);
        thread::spawn(move || tx2.add_label(n, "L"))
    };
    until_waiting(&store, 1);
    commit(&tx1);
    let outcome = waiter.join().unwrap();
    assert!(matches!(outcome, Err(StorageError::WriteConflict(_))));
}

#[test]
fn a_deleted_node_is_waited_for() {
    let (store, ids) = store_with(1);
    let n = ids[0];
    let tx1 = store.begin();
    tx1.delete_node(n, true).unwrap();
    let tx2 = Arc::new(store.begin());
    let waiter = {
        let tx2 = Arc::clone(&tx2);
        thread::spawn(move || set(&tx2, n, "v", 2))
    };
    until_waiting(&store, 1);
    commit(&tx1);
    assert!(matches!(
        waiter.join().unwrap(),
        Err(StorageError::WriteConflict(_))
    ));
    tx2.restart().unwrap();
    assert!(!tx2.node_exists(n), "the new snapshot sees the deletion");
}

#[test]
fn a_wait_ends_at_the_deadline_and_dooms_the_transaction() {
    let (store, ids) = store_with(1);
    let tx1 = store.begin();
    set(&tx1, ids[0], "v", 1).unwrap();
    let tx2 = store.begin();
    tx2.set_wait_limits(WaitLimits {
        deadline: Some(Instant::now() + Duration::from_millis(50)),
        stop: None,
    });
    let outcome = set(&tx2, ids[0], "v", 2);
    assert!(matches!(outcome, Err(StorageError::LockWaitTimedOut(_))));
    assert!(tx2.commit(|_, _| Ok::<(), ()>(())).is_err());
    commit(&tx1);
    assert_eq!(committed(&store, ids[0], "v"), Some(Value::Int(1)));
}

#[test]
fn a_stop_flag_releases_a_waiter() {
    let (store, ids) = store_with(1);
    let n = ids[0];
    let tx1 = store.begin();
    set(&tx1, n, "v", 1).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let waiter = {
        let (store, stop) = (Arc::clone(&store), Arc::clone(&stop));
        thread::spawn(move || {
            let tx2 = store.begin();
            tx2.set_wait_limits(WaitLimits {
                deadline: None,
                stop: Some(stop),
            });
            set(&tx2, n, "v", 2)
        })
    };
    until_waiting(&store, 1);
    stop.store(true, std::sync::atomic::Ordering::Release);
    assert_eq!(waiter.join().unwrap(), Err(StorageError::LockWaitStopped));
}

#[test]
fn a_deadlock_of_two_fails_the_second_waiter_and_frees_the_first() {
    let (store, ids) = store_with(2);
    let (a, b) = (ids[0], ids[1]);
    let tx1 = Arc::new(store.begin());
    let tx2 = store.begin();
    set(&tx1, a, "v", 1).unwrap();
    set(&tx2, b, "v", 2).unwrap();
    let first = {
        let tx1 = Arc::clone(&tx1);
        thread::spawn(move || set(&tx1, b, "v", 1))
    };
    until_waiting(&store, 1);
    let victim = set(&tx2, a, "v", 2);
    assert!(
        matches!(victim, Err(StorageError::Deadlock(_))),
        "{victim:?}"
    );
    tx2.rollback();
    first.join().unwrap().unwrap();
    commit(&tx1);
    assert_eq!(committed(&store, b, "v"), Some(Value::Int(1)));
}

#[test]
fn a_deadlock_of_three_is_found_through_the_middle_waiter() {
    let (store, ids) = store_with(3);
    let txs: Vec<Arc<Txn>> = (0..3).map(|_| Arc::new(store.begin())).collect();
    for (txn, &node) in txs.iter().zip(&ids) {
        set(txn, node, "v", 1).unwrap();
    }
    // 0 waits for 1, 1 waits for 2; 2 asking for 0's node closes the cycle.
    let mut waiters = Vec::new();
    for i in 0..2 {
        let (txn, node) = (Arc::clone(&txs[i]), ids[i + 1]);
        waiters.push(thread::spawn(move || set(&txn, node, "v", 2)));
        until_waiting(&store, i + 1);
    }
    let victim = set(&txs[2], ids[0], "v", 2);
    assert!(
        matches!(victim, Err(StorageError::Deadlock(_))),
        "{victim:?}"
    );
    txs[2].rollback();
    let second = waiters.pop().unwrap().join().unwrap();
    assert_eq!(second, Ok(()), "1 goes on once 2 rolled back");
    commit(&txs[1]);
    let first = waiters.pop().unwrap().join().unwrap();
    assert!(
        matches!(first, Err(StorageError::WriteConflict(_))),
        "0 met 1's commit: {first:?}"
    );
}

#[test]
fn shutting_down_releases_every_waiter() {
    let (store, ids) = store_with(1);
    let n = ids[0];
    let tx1 = store.begin();
    set(&tx1, n, "v", 1).unwrap();
    let waiter = {
        let store = Arc::clone(&store);
        thread::spawn(move || set(&store.begin(), n, "v", 2))
    };
    until_waiting(&store, 1);
    store.release_waiters();
    assert_eq!(waiter.join().unwrap(), Err(StorageError::LockWaitStopped));
}
