//! The per-query memory budget end to end through `Database`: a query over
//! `query_max_memory` fails with `MemoryPoolOutOfMemoryError`, leaves
//! nothing behind, and the next query runs as if nothing happened.

use crate::db::{Database, DbConfig, Params};
use nereid_errors::Status;
use nereid_values::Value;
use std::sync::Arc;

const LIMIT: usize = 64 << 20;

fn open(dir: &tempfile::TempDir) -> Arc<Database> {
    let config = DbConfig {
        query_max_memory: LIMIT,
        ..DbConfig::new(dir.path().to_path_buf(), 2)
    };
    Database::open(&config).expect("opens")
}

/// Runs and pulls `query` auto-commit: its rows, or the status it failed with.
fn run(db: &Arc<Database>, query: &str, params: Params) -> Result<Vec<Vec<Value>>, Status> {
    let mut result = db.run(None, query, params).map_err(|e| e.status)?;
    let mut rows = Vec::new();
    result
        .pull(-1, &mut |row, _| rows.push(row.to_vec()))
        .map_err(|e| e.status)?;
    Ok(rows)
}

fn count(db: &Arc<Database>) -> Value {
    let rows = run(db, "MATCH (n:N) RETURN count(n) AS c", Params::new()).expect("counts");
    rows[0][0].clone()
}

#[test]
fn values_built_over_the_budget_fail_the_query_with_the_memory_status() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = open(&dir);
    let over = Err(Status::MemoryPoolOutOfMemoryError);
    // 10M elements of range(): refused before the list is built.
    let range = "RETURN size(range(1, 10000000)) AS n";
    assert_eq!(run(&db, range, Params::new()), over);
    // collect() keeps what it is fed; a sort keeps every row.
    let collect = "UNWIND range(1, 3000000) AS i RETURN size(collect(i)) AS n";
    assert_eq!(run(&db, collect, Params::new()), over);
    let sort = "UNWIND range(1, 3000000) AS i WITH i ORDER BY i DESC RETURN count(*) AS n";
    assert_eq!(run(&db, sort, Params::new()), over);
    // Doubling a string: the step that would cross the limit is refused.
    let doubling = "RETURN size(reduce(s = 'x', i IN range(1, 40) | s + s)) AS n";
    assert_eq!(run(&db, doubling, Params::new()), over);
    // A list built for every row of a batch.
    let per_row = "UNWIND range(1, 1000) AS i RETURN size(range(1, 100000 + i)) AS n";
    assert_eq!(run(&db, per_row, Params::new()), over);
    // A list literal copied into every row: the copies share one list
    // (docs/adr/0093-shared-list-values.md), so the query fits.
    let copies = format!(
        "UNWIND range(1, 1000) AS i RETURN size([{}]) AS n",
        vec!["1"; 100_000].join(",")
    );
    let rows = run(&db, &copies, Params::new()).expect("shares the literal");
    assert_eq!(rows, vec![vec![Value::Int(100_000)]; 1000]);
    // Under the budget the same shapes run, and what they held is released.
    let small = "UNWIND range(1, 300000) AS i RETURN size(collect(i)) AS n";
    for _ in 0..3 {
        let rows = run(&db, small, Params::new());
        assert_eq!(rows, Ok(vec![vec![Value::Int(300_000)]]));
    }
}

#[test]
fn parameters_count_against_the_budget() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = open(&dir);
    let big = Value::List(vec![Value::Int(1); LIMIT / std::mem::size_of::<Value>() + 1].into());
    let params = Params::from([("l".to_string(), big)]);
    assert_eq!(
        run(&db, "RETURN 1 AS one", params),
        Err(Status::MemoryPoolOutOfMemoryError)
    );
    let small = Params::from([(
        "l".to_string(),
        Value::List(vec![Value::Int(1); 1000].into()),
    )]);
    assert_eq!(
        run(&db, "RETURN size($l) AS n", small),
        Ok(vec![vec![Value::Int(1000)]])
    );
}

#[test]
fn a_writing_query_over_the_budget_leaves_nothing_behind() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = open(&dir);
    run(&db, "CREATE (:N)", Params::new()).expect("creates");
    let query = "UNWIND range(1, 100) AS i CREATE (:N {i: i}) \
                 WITH count(*) AS c RETURN size(range(1, 10000000)) AS n";
    assert_eq!(
        run(&db, query, Params::new()),
        Err(Status::MemoryPoolOutOfMemoryError)
    );
    assert_eq!(count(&db), Value::Int(1));
    // In an explicit transaction the failure is the query's; the session
    // rolls the transaction back.
    let tx = db.begin();
    let mut result = db
        .run(
            Some(&tx),
            "UNWIND range(1, 5) AS i CREATE (:N)",
            Params::new(),
        )
        .expect("runs");
    result.discard(-1).expect("creates");
    let failed = db
        .run(
            Some(&tx),
            "RETURN size(range(1, 10000000)) AS n",
            Params::new(),
        )
        .and_then(|mut r| r.discard(-1));
    assert_eq!(
        failed.map_err(|e| e.status),
        Err(Status::MemoryPoolOutOfMemoryError)
    );
    db.rollback(tx);
    assert_eq!(count(&db), Value::Int(1));
}

#[test]
fn the_message_names_the_limit_and_the_setting() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = open(&dir);
    let mut result = db
        .run(None, "RETURN size(range(1, 10000000)) AS n", Params::new())
        .expect("plans");
    let err = result.discard(-1).expect_err("over the budget");
    assert!(err.message.contains("64.0 MiB"), "{}", err.message);
    assert!(
        err.message.contains("--query-max-memory"),
        "{}",
        err.message
    );
    assert!(
        err.message.contains("NEREID_QUERY_MAX_MEMORY"),
        "{}",
        err.message
    );
}
