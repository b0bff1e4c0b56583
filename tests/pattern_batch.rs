//! Pattern expressions evaluated over many rows at once (`exists`,
//! `EXISTS { }`, `COUNT { }` and pattern comprehensions whose nested plan
//! is a row-by-row chain: `dfe/src/eval/pattern_batch.rs`) answer as when
//! evaluated for one row at a time.
//!
//! On random small graphs (sources `:A`, nodes `:T` with a `k` drawn from a
//! few values or missing, parallel relationships, so patterns match the
//! same way several times, and hubs whose two-hop paths pass the `exists`
//! batch's row cap), one query over every source (a batch of rows, the
//! batched evaluation) is compared with the same query run once per source
//! (one row each, the per-row evaluation). Comprehension lists are sorted,
//! since a pattern's matches have no defined order.

use nereid_engine::{Database, DbConfig, Params};
use nereid_values::Value;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::sync::Arc;

#[derive(Clone, Debug)]
struct Case {
    /// Per `:A` node, its `k` (none: missing).
    sources: Vec<Option<i64>>,
    /// Per `:T` node, its `k` (none: missing).
    targets: Vec<Option<i64>>,
    /// Relationships `R` (from, to), over all nodes: sources first, then
    /// targets.
    edges: Vec<(usize, usize)>,
}

fn case() -> impl Strategy<Value = Case> {
    (4usize..9, 1usize..6).prop_flat_map(|(sources, targets)| {
        let n = sources + targets;
        (
            prop::collection::vec(prop::option::weighted(0.7, 0i64..3), sources),
            prop::collection::vec(prop::option::weighted(0.7, 0i64..3), targets),
            prop::collection::vec((0..n, 0..n), 0..60),
        )
            .prop_map(|(sources, targets, edges)| Case {
                sources,
                targets,
                edges,
            })
    })
}

fn node(label: &str, i: usize, k: Option<i64>) -> String {
    match k {
        Some(k) => format!("(n{i}:{label} {{id: {i}, k: {k}}})"),
        None => format!("(n{i}:{label} {{id: {i}}})"),
    }
}

fn create_query(case: &Case) -> String {
    let s = case.sources.len();
    let mut parts: Vec<String> = case
        .sources
        .iter()
        .enumerate()
        .map(|(i, k)| node("A", i, *k))
        .collect();
    parts.extend(
        case.targets
            .iter()
            .enumerate()
            .map(|(i, k)| node("T", s + i, *k)),
    );
    parts.extend(
        case.edges
            .iter()
            .map(|(a, b)| format!("(n{a})-[:R]->(n{b})")),
    );
    format!("CREATE {}", parts.join(", "))
}

/// The projection of every query: each form of pattern expression.
const RETURNED: &str = "a.id AS a, \
     EXISTS { (a)-[:R]->()-[:R]->(b) WHERE b.k = a.k } AS two_hops, \
     EXISTS { (a)-[:R]->(:T {k: 1}) } AS to_one, \
     COUNT { (a)-[:R]->()-[:R]->() } AS paths, \
     apoc.coll.sort([(a)-[:R]->(b) | b.k]) AS ks, \
     size([(a)<-[:R]-(b) WHERE b.k IS NULL | b]) AS from_null, \
     [x IN [1, 2] WHERE (a)-[:R]->({k: x})] AS xs";

fn rows(db: &Arc<Database>, query: &str, params: Params) -> Vec<Vec<Value>> {
    let mut result = db
        .run(None, query, params)
        .unwrap_or_else(|e| panic!("{query}: {e:?}"));
    let mut out = Vec::new();
    result
        .pull(-1, &mut |row, _| out.push(row.to_vec()))
        .unwrap_or_else(|e| panic!("{query}: {e:?}"));
    out
}

fn sorted(mut rows: Vec<Vec<Value>>) -> Vec<String> {
    let mut out: Vec<String> = rows.drain(..).map(|r| format!("{r:?}")).collect();
    out.sort();
    out
}

#[test]
fn batched_pattern_expressions_answer_as_per_row() {
    let mut runner = TestRunner::new(Config {
        cases: 64,
        failure_persistence: None,
        ..Config::default()
    });
    runner
        .run(&case(), |case| {
            let dir = tempfile::tempdir().expect("temp dir");
            let db = Database::open(&DbConfig::new(dir.path().to_path_buf(), 2))
                .expect("database opens");
            rows(&db, &create_query(&case), Params::new());
            let batched = rows(
                &db,
                &format!("MATCH (a:A) RETURN {RETURNED}"),
                Params::new(),
            );
            let filtered = rows(
                &db,
                "MATCH (a:A) WHERE (a)-[:R]->()-[:R]->({k: 0}) RETURN a.id",
                Params::new(),
            );
            let mut one_by_one = Vec::new();
            let mut filtered_one_by_one = Vec::new();
            for i in 0..case.sources.len() {
                let params = || {
                    let mut p = Params::new();
                    p.insert("i".into(), Value::Int(i64::try_from(i).unwrap_or(0)));
                    p
                };
                one_by_one.extend(rows(
                    &db,
                    &format!("MATCH (a:A {{id: $i}}) RETURN {RETURNED}"),
                    params(),
                ));
                filtered_one_by_one.extend(rows(
                    &db,
                    "MATCH (a:A {id: $i}) WHERE (a)-[:R]->()-[:R]->({k: 0}) RETURN a.id",
                    params(),
                ));
            }
            prop_assert_eq!(sorted(batched), sorted(one_by_one));
            prop_assert_eq!(sorted(filtered), sorted(filtered_one_by_one));
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
}
