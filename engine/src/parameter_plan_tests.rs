//! Plans informed by parameter values (docs/adr/0152): the values a query
//! first runs with steer its estimates (an indexed equality counted for the
//! value, a list's length), and a cached plan is reused only for values
//! that estimate within an order of magnitude, else the text is planned
//! again and both plans kept.

use crate::db::{Database, DbConfig, Params};
use nereid_planner::PlanNode;
use nereid_values::Value;
use std::sync::Arc;

/// 1,000 `:A`-`:R`->`:B` pairs; the first two pairs have `k` 1 and 2 at
/// both ends, every other node `k = 0`: an equality on `k` keeps 1 or 998
/// nodes by value, while the average (three distinct values) says 333.
const GRAPH: &str = "UNWIND range(0, 999) AS i \
     WITH i, CASE i WHEN 0 THEN 1 WHEN 1 THEN 2 ELSE 0 END AS k \
     CREATE (:A {k: k})-[:R]->(:B {k: k})";

const JOIN: &str = "MATCH (a:A {k: $x})-[:R]->(b:B {k: $y}) RETURN count(*) AS c";

fn open(dir: &tempfile::TempDir) -> Arc<Database> {
    let db = Database::open(&DbConfig::new(dir.path().to_path_buf(), 2)).expect("opens");
    for query in [
        GRAPH,
        "CREATE INDEX a_k FOR (n:A) ON (n.k)",
        "CREATE INDEX b_k FOR (n:B) ON (n.k)",
        "CALL db.awaitIndexes(60)",
    ] {
        db.run(None, query, Params::new())
            .expect("runs")
            .discard(-1)
            .expect("completes");
    }
    db.rebuild_statistics();
    db
}

fn params(values: &[(&str, Value)]) -> Params {
    values
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}

fn xy(x: i64, y: i64) -> Params {
    params(&[("x", Value::Int(x)), ("y", Value::Int(y))])
}

fn explain(db: &Arc<Database>, query: &str, params: Params) -> PlanNode {
    let mut result = db
        .run(None, &format!("EXPLAIN {query}"), params)
        .expect("explains");
    result.discard(-1).expect("explained");
    let plan = result
        .summary()
        .plan
        .clone()
        .expect("an EXPLAIN has a plan");
    Arc::try_unwrap(plan).unwrap_or_else(|shared| (*shared).clone())
}

/// The operator the plan starts from: its deepest first child that reads
/// the graph (below it, at most an `Argument`).
fn leaf(node: &PlanNode) -> &PlanNode {
    match node.children.first() {
        Some(child) if child.operator_type != "Argument" => leaf(child),
        _ => node,
    }
}

/// The plan, one operator per line, for failure messages.
fn shown(node: &PlanNode) -> String {
    let mut text = format!(
        "{} {} ({})",
        node.operator_type, node.details, node.estimated_rows
    );
    for child in &node.children {
        text.push_str(&format!("\n  {}", shown(child).replace('\n', "\n  ")));
    }
    text
}

fn count(db: &Arc<Database>, query: &str, params: Params) -> Value {
    let mut result = db.run(None, query, params).expect("runs");
    let mut rows = Vec::new();
    result
        .pull(-1, &mut |row, _| rows.push(row.to_vec()))
        .expect("pulls");
    rows[0][0].clone()
}

#[test]
fn a_pattern_starts_from_the_end_its_values_make_smaller() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = open(&dir);
    let from_a = explain(&db, JOIN, xy(1, 0));
    assert!(
        leaf(&from_a).details.contains(":A(k"),
        "x = 1 names one :A: start there, got\n{}",
        shown(&from_a)
    );
    assert_eq!(leaf(&from_a).estimated_rows, 1.0);
    let from_b = explain(&db, JOIN, xy(0, 1));
    assert!(
        leaf(&from_b).details.contains(":B(k"),
        "y = 1 names one :B: start there, got\n{}",
        shown(&from_b)
    );
    assert_eq!(leaf(&from_b).estimated_rows, 1.0);
}

#[test]
fn a_cached_plan_serves_values_that_estimate_alike_and_is_replanned_for_others() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = open(&dir);
    let (hits, misses, texts) = db.plan_cache_counters();
    let counters = |h, m| (hits + h, misses + m, texts + 1);
    assert_eq!(count(&db, JOIN, xy(1, 0)), Value::Int(0));
    assert_eq!(count(&db, JOIN, xy(2, 0)), Value::Int(0));
    assert_eq!(
        db.plan_cache_counters(),
        counters(1, 1),
        "x = 1 and x = 2 each name one :A: one plan serves both"
    );
    assert_eq!(count(&db, JOIN, xy(0, 1)), Value::Int(0));
    assert_eq!(
        db.plan_cache_counters(),
        counters(1, 2),
        "x = 0 keeps 998 :A, not 1: planned again"
    );
    assert_eq!(count(&db, JOIN, xy(0, 2)), Value::Int(0));
    assert_eq!(count(&db, JOIN, xy(1, 0)), Value::Int(0));
    assert_eq!(
        db.plan_cache_counters(),
        counters(3, 2),
        "each kind of values finds its own plan again"
    );
    assert_eq!(count(&db, JOIN, xy(0, 0)), Value::Int(998));
    assert_eq!(count(&db, JOIN, xy(1, 1)), Value::Int(1));
    assert_eq!(db.plan_cache_counters(), counters(3, 4));
}

#[test]
fn estimated_rows_read_list_and_limit_parameters() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = open(&dir);
    let list = |n: i64| params(&[("xs", Value::List((0..n).map(Value::Int).collect()))]);
    let unwind = "UNWIND $xs AS x RETURN x";
    assert_eq!(explain(&db, unwind, list(7)).estimated_rows, 7.0);
    assert_eq!(explain(&db, unwind, list(300)).estimated_rows, 300.0);
    let limited = "MATCH (a:A) RETURN a LIMIT $n";
    let n = |n: i64| params(&[("n", Value::Int(n))]);
    assert_eq!(explain(&db, limited, n(3)).estimated_rows, 3.0);
    assert_eq!(explain(&db, limited, n(5000)).estimated_rows, 1000.0);
}
