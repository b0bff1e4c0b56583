//! `Database::metrics` follows queries, transactions, the log and
//! checkpoints as they happen.

use crate::{Database, DbConfig, Params};
use std::sync::Arc;

fn run(db: &Arc<Database>, query: &str) -> Result<(), crate::DbError> {
    db.run(None, query, Params::new())?.discard(-1).map(drop)
}

#[test]
fn queries_transactions_the_log_and_checkpoints_are_counted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = Database::open(&DbConfig::new(dir.path().to_path_buf(), 2)).expect("opens");
    let start = db.metrics();
    assert_eq!(start.transactions.active, 0);
    assert_eq!(start.checkpoints.last, None);

    run(&db, "CREATE (:M {i: 1})").expect("writes");
    run(&db, "RETURN nope").expect_err("an unknown variable");
    let tx = db.begin();
    assert_eq!(db.metrics().transactions.active, 1);
    db.run(Some(&tx), "CREATE (:M {i: 2})", Params::new())
        .expect("runs")
        .discard(-1)
        .expect("pulls");
    db.rollback(tx);
    let tx = db.begin();
    db.commit(tx).expect("an empty commit");
    db.checkpoint().expect("checkpoint");

    let m = db.metrics();
    assert_eq!(m.queries.succeeded, 2);
    assert_eq!(m.queries.client_errors, 1);
    assert_eq!(m.queries.failed, 0);
    assert_eq!(m.query_seconds.count(), 3);
    // The failed query's auto-commit transaction never began: it failed
    // while planning.
    assert_eq!(m.transactions.committed, 2);
    assert_eq!(m.transactions.rolled_back, 1);
    assert_eq!(m.transactions.active, 0);
    assert!(m.log.bytes_written > 0);
    assert!(m.log.fsync_seconds.count() >= 1);
    assert_eq!(m.checkpoints.taken, 1);
    assert!(m.checkpoints.last.is_some());
    assert_eq!(m.write_conflicts, 0);
}

#[test]
fn a_write_conflict_is_counted_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = Database::open(&DbConfig::new(dir.path().to_path_buf(), 2)).expect("opens");
    run(&db, "CREATE (:C {v: 0})").expect("writes");
    let (first, second) = (db.begin(), db.begin());
    let set = |tx: &crate::Transaction, v: i64| {
        let query = format!("MATCH (c:C) SET c.v = {v}");
        db.run(Some(tx), &query, Params::new())
            .and_then(|mut r| r.discard(-1))
    };
    // The second reads first: its snapshot is then seen, so its write,
    // meeting the first's commit, cannot run again on a newer one.
    db.run(Some(&second), "MATCH (c:C) RETURN c.v", Params::new())
        .and_then(|mut r| r.discard(-1))
        .expect("reads");
    set(&first, 1).expect("the first writer");
    db.commit(first).expect("the first commits");
    let refused = match set(&second, 2) {
        Err(e) => e,
        Ok(_) => db.commit(second).expect_err("the second commit"),
    };
    assert_eq!(refused.status, nereid_errors::Status::DeadlockDetected);
    assert_eq!(db.metrics().write_conflicts, 1);
}

#[test]
fn inner_transactions_of_call_in_transactions_are_counted() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = Database::open(&DbConfig::new(dir.path().to_path_buf(), 2)).expect("opens");
    run(
        &db,
        "UNWIND range(1, 5) AS i CALL { WITH i CREATE (:B {i: i}) } IN TRANSACTIONS OF 2 ROWS",
    )
    .expect("writes in batches");
    let m = db.metrics();
    // Three batches of at most two rows, then the outer auto-commit one.
    assert_eq!(m.transactions.committed, 4);
    assert_eq!(m.transactions.active, 0);

    run(
        &db,
        "UNWIND [1, 0, 2] AS i CALL { WITH i CREATE (:C {x: 1 / i}) } \
         IN TRANSACTIONS OF 1 ROW ON ERROR CONTINUE",
    )
    .expect("the failing batch is skipped");
    let m = db.metrics();
    // Two more batches and the outer transaction committed, one rolled back.
    assert_eq!(m.transactions.committed, 7);
    assert_eq!(m.transactions.rolled_back, 1);
    assert_eq!(m.transactions.active, 0);
}
