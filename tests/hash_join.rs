//! Plans with a hash join (planner rule `hash_join`) return the rows of the
//! per-row plan.
//!
//! On random small graphs (nodes `A` with `x` and `B` with `y` drawn from
//! integers, integral floats, strings and missing values; `B -[:R]-> C`
//! edges with `C.y`), three query shapes with an equality between two
//! MATCH parts are run as written, which the rule may turn into a hash
//! join, and with the equality wrapped in `coalesce(..., false)`, which
//! keeps the same rows but is no key, so the per-row plan stays. The rows
//! must be the same multiset; the run fails unless some plans had a
//! `HashJoin`.

mod support;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use support::{explained, fresh_database, sorted_rows};

#[derive(Clone, Debug)]
struct Case {
    a: Vec<Option<&'static str>>,
    b: Vec<Option<&'static str>>,
    c: Vec<Option<&'static str>>,
    /// (b, c) edges.
    edges: Vec<(usize, usize)>,
    shape: usize,
}

fn value() -> impl Strategy<Value = Option<&'static str>> {
    prop::option::weighted(
        0.85,
        prop_oneof![
            Just("1"),
            Just("1.0"),
            Just("2"),
            Just("2.5"),
            Just("'1'"),
            Just("'x'"),
            Just("3"),
        ],
    )
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec(value(), 8..30),
        prop::collection::vec(value(), 8..30),
        prop::collection::vec(value(), 1..10),
        0usize..3,
    )
        .prop_flat_map(|(a, b, c, shape)| {
            let (nb, nc) = (b.len(), c.len());
            let edges = prop::collection::vec((0..nb, 0..nc), 0..(nb * 2));
            (Just(a), Just(b), Just(c), edges, Just(shape)).prop_map(|(a, b, c, edges, shape)| {
                Case {
                    a,
                    b,
                    c,
                    edges,
                    shape,
                }
            })
        })
}

fn create_query(case: &Case) -> String {
    let node = |label: &str, key: &str, i: usize, v: &Option<&str>| match v {
        Some(v) => format!(
            "({}{i}:{label} {{id: {i}, {key}: {v}}})",
            label.to_lowercase()
        ),
        None => format!("({}{i}:{label} {{id: {i}}})", label.to_lowercase()),
    };
    let mut parts: Vec<String> = Vec::new();
    parts.extend(case.a.iter().enumerate().map(|(i, v)| node("A", "x", i, v)));
    parts.extend(case.b.iter().enumerate().map(|(i, v)| node("B", "y", i, v)));
    parts.extend(case.c.iter().enumerate().map(|(i, v)| node("C", "y", i, v)));
    parts.extend(
        case.edges
            .iter()
            .map(|(b, c)| format!("(b{b})-[:R]->(c{c})")),
    );
    format!("CREATE {}", parts.join(", "))
}

/// The query of `case`'s shape with `equal` (given the two sides) as the
/// join condition. The keys are expressions (`x + 0`), not properties of a
/// scanned node: a string seek per row would serve those.
fn query(case: &Case, equal: &dyn Fn(&str, &str) -> String) -> String {
    match case.shape {
        0 => format!(
            "MATCH (a:A) MATCH (b:B) WHERE {} RETURN a.id AS a, b.id AS b",
            equal("toString(a.x)", "toString(b.y)")
        ),
        1 => format!(
            "MATCH (a:A) OPTIONAL MATCH (b:B) WHERE {} RETURN a.id AS a, b.id AS b",
            equal("a.x", "head([b.y])")
        ),
        _ => format!(
            "MATCH (a:A) MATCH (b:B)-[r:R]->(c:C) WHERE {} AND b.id <> a.id \
             RETURN a.id AS a, id(r) AS r",
            equal("a.x", "c.y")
        ),
    }
}

fn plain(l: &str, r: &str) -> String {
    format!("{l} = {r}")
}

fn wrapped(l: &str, r: &str) -> String {
    format!("coalesce({l} = {r}, false)")
}

/// Whether the EXPLAIN plan of `query` holds a `HashJoin`.
fn has_hash_join(db: &std::sync::Arc<nereid_engine::Database>, query: &str) -> bool {
    let summary = explained(db, query);
    let plan = summary.plan.as_ref().expect("EXPLAIN has a plan");
    format!("{plan:?}").contains("operator_type: \"HashJoin\"")
}

#[test]
fn hash_join_plans_return_the_per_row_plans_rows() {
    let mut runner = TestRunner::new(Config {
        cases: 64,
        failure_persistence: None,
        ..Config::default()
    });
    let joined = std::cell::Cell::new(0usize);
    let cases = std::cell::Cell::new(0usize);
    runner
        .run(&case(), |case| {
            let (_dir, db) = fresh_database();
            sorted_rows(&db, &create_query(&case));
            let with_keys = query(&case, &plain);
            let reference = query(&case, &wrapped);
            cases.set(cases.get() + 1);
            if has_hash_join(&db, &with_keys) {
                joined.set(joined.get() + 1);
            }
            prop_assert!(!has_hash_join(&db, &reference));
            prop_assert_eq!(
                sorted_rows(&db, &with_keys),
                sorted_rows(&db, &reference),
                "{}",
                with_keys
            );
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{} of {} plans with a hash join", joined.get(), cases.get());
    assert!(
        joined.get() > 0,
        "no plan had a hash join: the property was not exercised"
    );
}
