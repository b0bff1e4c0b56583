//! Parallel segments end to end through `Database` and the real executor
//! (docs/adr/0139-morsel-driven-parallel-segments.md): the same queries on
//! the same graph with `query_threads` 1 and 3 give the same rows in the
//! same order (collected lists, float sums, sort ties, DISTINCT's first
//! occurrences) or fail with the same status, and the 3-thread database's
//! plans do hold a `Gather` (else this would compare serial with serial).

use crate::db::{Database, DbConfig, Params};
use nereid_errors::Status;
use nereid_planner::PlanNode;
use nereid_values::Value;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// 300 `:P` with 80 `:R` each to their own `:M`: the chain under each
/// query's aggregation or sort is estimated at 24,000 rows, over the
/// rule's threshold.
const GRAPH: &str = "UNWIND range(0, 299) AS i \
     CREATE (p:P {i: i, f: i * 0.37 + 0.001}) \
     WITH p, i UNWIND range(0, 79) AS j \
     CREATE (p)-[:R {w: j * 1.1 + i / 7.0}]->(:M {j: j, s: toString((i * 13 + j) % 11)})";

fn open(dir: &tempfile::TempDir, threads: usize) -> Arc<Database> {
    let config = DbConfig {
        query_threads: threads,
        ..DbConfig::new(dir.path().to_path_buf(), 2)
    };
    let db = Database::open(&config).expect("opens");
    db.run(None, GRAPH, Params::new())
        .expect("plans")
        .discard(-1)
        .expect("loads");
    db.rebuild_statistics();
    db
}

fn run(db: &Arc<Database>, query: &str) -> Result<Vec<Vec<Value>>, Status> {
    let mut result = db.run(None, query, Params::new()).map_err(|e| e.status)?;
    let mut rows = Vec::new();
    result
        .pull(-1, &mut |row, _| rows.push(row.to_vec()))
        .map_err(|e| e.status)?;
    Ok(rows)
}

fn has_gather(node: &PlanNode) -> bool {
    node.operator_type == "Gather" || node.children.iter().any(has_gather)
}

fn plan_has_gather(db: &Arc<Database>, query: &str) -> bool {
    let mut result = db
        .run(None, &format!("EXPLAIN {query}"), Params::new())
        .expect("explains");
    result.discard(-1).expect("explained");
    let summary = result.summary();
    has_gather(summary.plan.as_deref().expect("an EXPLAIN has a plan"))
}

const QUERIES: &[&str] = &[
    // collect(): the list in the producer's row order.
    "MATCH (p:P)-[r:R]->(m) RETURN collect(m.j) AS js",
    // Float sums in row order, grouped.
    "MATCH (p:P)-[r:R]->(m) RETURN p.i % 5 AS k, sum(r.w * p.f) AS s, avg(r.w) AS a, \
     count(*) AS c ORDER BY k",
    // Top with ties on its key: the serial run's first rows.
    "MATCH (p:P)-[r:R]->(m) WHERE m.j > 10 RETURN p.i AS i, m.j AS j ORDER BY m.s LIMIT 50",
    // A full sort with ties.
    "MATCH (p:P)-[r:R]->(m) WHERE m.j % 3 = 0 RETURN p.i AS i, m.j AS j ORDER BY m.s DESC",
    // DISTINCT keeps first occurrences in order.
    "MATCH (p:P)-[r:R]->(m) RETURN DISTINCT m.s AS s, p.i % 3 AS k",
    // An optional match in the chain.
    "MATCH (p:P) OPTIONAL MATCH (p)-[:R]->(m:M) WHERE m.j < 3 \
     RETURN p.i AS i, collect(m.j) AS js ORDER BY i",
];

#[test]
fn parallel_and_serial_runs_give_the_same_rows_in_the_same_order() {
    let (serial_dir, parallel_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let serial = open(&serial_dir, 1);
    let parallel = open(&parallel_dir, 3);
    for query in QUERIES {
        assert!(!plan_has_gather(&serial, query), "one thread: {query}");
        assert!(plan_has_gather(&parallel, query), "no Gather for {query}");
        let expected = run(&serial, query).expect("runs serially");
        assert!(!expected.is_empty(), "{query}");
        // Several runs: workers race differently each time.
        for _ in 0..3 {
            assert_eq!(run(&parallel, query).as_ref(), Ok(&expected), "{query}");
        }
    }
}

#[test]
fn a_failing_worker_fails_the_query_with_the_serial_status() {
    let (serial_dir, parallel_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let serial = open(&serial_dir, 1);
    let parallel = open(&parallel_dir, 2);
    let query = "MATCH (p:P)-[r:R]->(m) RETURN sum(10 / (m.j - 40)) AS s";
    assert!(plan_has_gather(&parallel, query));
    let expected = run(&serial, query);
    assert_eq!(expected, Err(Status::ArithmeticError));
    assert_eq!(run(&parallel, query), expected);
    // The database goes on.
    assert_eq!(
        run(&parallel, "MATCH (p:P) RETURN count(p) AS c"),
        Ok(vec![vec![Value::Int(300)]])
    );
}

#[test]
fn a_deadline_stops_the_workers_too() {
    let dir = tempfile::tempdir().unwrap();
    let db = open(&dir, 2);
    // Each of the 24,000 chain rows spins through a long reduce: far
    // longer than the deadline.
    let query = "MATCH (p:P)-[r:R]->(m) \
                 RETURN sum(reduce(s = 0, x IN range(1, 5000) | s + x)) AS s";
    assert!(plan_has_gather(&db, query));
    let deadline = Some(nereid_dfe::Deadline::after(
        Instant::now(),
        Duration::from_millis(300),
        nereid_dfe::TimeoutOrigin::Client,
    ));
    let started = Instant::now();
    let outcome = db
        .run_until(None, query, Params::new(), deadline)
        .and_then(|mut r| r.discard(-1))
        .map_err(|e| e.status);
    assert_eq!(
        outcome.map(|_| ()),
        Err(Status::TransactionTimedOutClientConfiguration)
    );
    // Generous: the point is that the workers stopped, not how fast.
    assert!(started.elapsed() < Duration::from_secs(60));
}

/// Sessions running parallel segments at once share the one worker pool
/// (ADR 0153): more queries than pool threads, each still gets the serial
/// run's rows in order (a caller whose jobs wait runs its own morsels).
#[test]
fn concurrent_parallel_queries_share_the_pool_and_keep_their_rows() {
    let (serial_dir, parallel_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let serial = open(&serial_dir, 1);
    let parallel = open(&parallel_dir, 2);
    let expected: Vec<_> = QUERIES
        .iter()
        .map(|query| run(&serial, query).expect("runs serially"))
        .collect();
    std::thread::scope(|scope| {
        for session in 0..4 {
            let (parallel, expected) = (&parallel, &expected);
            scope.spawn(move || {
                for round in 0..3 {
                    // Each session starts at another query.
                    for i in 0..QUERIES.len() {
                        let k = (i + session + round) % QUERIES.len();
                        let rows = run(parallel, QUERIES[k]);
                        assert_eq!(rows.as_ref(), Ok(&expected[k]), "{}", QUERIES[k]);
                    }
                }
            });
        }
    });
}
