//! Transaction deadlines end to end through `Database` and the real
//! executor: a query past its deadline stops with the status of whoever set
//! the limit, leaves nothing behind, and the database goes on as before.

use crate::db::{Database, DbConfig, Params};
use nereid_dfe::{Deadline, TimeoutOrigin};
use nereid_errors::Status;
use nereid_values::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A cartesian product of three scans over the graph's 2,000 nodes:
/// 8 billion rows, far more than any test waits for.
const ENDLESS: &str = "MATCH (a), (b), (c) RETURN count(*) AS n";

fn open(dir: &tempfile::TempDir) -> Arc<Database> {
    let db = Database::open(&DbConfig::new(dir.path().to_path_buf(), 2)).expect("opens");
    let mut load = db
        .run(
            None,
            "UNWIND range(1, 2000) AS i CREATE (:N {i: i})",
            Params::new(),
        )
        .expect("plans");
    load.discard(-1).expect("loads");
    db
}

fn within(ms: u64, origin: TimeoutOrigin) -> Option<Deadline> {
    Some(Deadline::after(
        Instant::now(),
        Duration::from_millis(ms),
        origin,
    ))
}

/// Runs and pulls `query` auto-commit under `deadline`: its rows, or the
/// status it failed with.
fn run(
    db: &Arc<Database>,
    query: &str,
    deadline: Option<Deadline>,
) -> Result<Vec<Vec<Value>>, Status> {
    let mut result = db
        .run_until(None, query, Params::new(), deadline)
        .map_err(|e| e.status)?;
    let mut rows = Vec::new();
    result
        .pull(-1, &mut |row, _| rows.push(row.to_vec()))
        .map_err(|e| e.status)?;
    Ok(rows)
}

fn count_created(db: &Arc<Database>) -> Value {
    let rows = run(db, "MATCH (t:T) RETURN count(t) AS c", None).expect("counts");
    rows[0][0].clone()
}

#[test]
fn a_query_past_its_deadline_stops_with_the_status_of_whoever_set_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = open(&dir);
    let started = Instant::now();
    assert_eq!(
        run(&db, ENDLESS, within(200, TimeoutOrigin::Client)),
        Err(Status::TransactionTimedOutClientConfiguration)
    );
    assert_eq!(
        run(&db, ENDLESS, within(200, TimeoutOrigin::Server)),
        Err(Status::TransactionTimedOut)
    );
    // Generous: the point is that both ended, not how fast.
    assert!(started.elapsed() < Duration::from_secs(60));
    // A deadline far away changes nothing.
    let rows = run(
        &db,
        "MATCH (n:N) RETURN count(n) AS n",
        within(600_000, TimeoutOrigin::Client),
    );
    assert_eq!(rows, Ok(vec![vec![Value::Int(2000)]]));
}

#[test]
fn a_timed_out_query_leaves_nothing_behind() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = open(&dir);
    // Auto-commit: the writes before the endless part are rolled back.
    let query = format!("UNWIND range(1, 10) AS i CREATE (:T) WITH count(*) AS c {ENDLESS}");
    assert_eq!(
        run(&db, &query, within(200, TimeoutOrigin::Client)),
        Err(Status::TransactionTimedOutClientConfiguration)
    );
    assert_eq!(count_created(&db), Value::Int(0));
    // Explicit: a statement that wrote, then one that timed out; the
    // session rolls the transaction back, as after any failure.
    let tx = db.begin();
    let deadline = within(200, TimeoutOrigin::Server);
    let mut first = db
        .run_until(
            Some(&tx),
            "UNWIND range(1, 5) AS i CREATE (:T)",
            Params::new(),
            deadline,
        )
        .expect("plans");
    first.discard(-1).expect("creates");
    let second = db
        .run_until(Some(&tx), ENDLESS, Params::new(), deadline)
        .and_then(|mut r| r.discard(-1));
    assert_eq!(
        second.map_err(|e| e.status),
        Err(Status::TransactionTimedOut)
    );
    db.rollback(tx);
    assert_eq!(count_created(&db), Value::Int(0));
}

#[test]
fn loops_inside_one_expression_stop_at_the_deadline_too() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = open(&dir);
    // One row, one batch: reduce's steps (10^8 of them, over small
    // lists) are where the deadline is checked.
    let query = "RETURN reduce(s = 0, i IN range(1, 10000) | \
                 s + reduce(t = 0, j IN range(1, 10000) | t + j)) AS s";
    assert_eq!(
        run(&db, query, within(200, TimeoutOrigin::Client)),
        Err(Status::TransactionTimedOutClientConfiguration)
    );
}
