//! An expand whose new end is pinned by an indexed equality on a value
//! bound earlier (planner rule `expand_into_known`: the end is sought once
//! where the value is bound, then `ExpandInto`) returns the rows of the
//! plan that expands every relationship and filters afterwards.
//!
//! On random small graphs (sources `:A`, targets `:T` whose `k` is drawn
//! from a few values or missing, parallel relationships allowed, so rows
//! repeat) and random lists of values (duplicates and nulls among them),
//! the query with `t.k = v` is compared with the same query written
//! `t.k = coalesce(v)`, which means the same but which the rule does not
//! move (its value is not a plain slot), so it keeps the expand-then-filter
//! plan. The rows must be the same multiset. The run counts the cases whose
//! plan used `ExpandInto` and fails unless most did (the rule also
//! weighs the store's estimate of the nodes a value names), so the
//! property is tested on the rewritten plan.

mod support;

use nereid_engine::Database;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use support::{explained, fresh_database, sorted_rows};

#[derive(Clone, Debug)]
struct Case {
    /// Number of `:A` nodes.
    sources: usize,
    /// Per `:T` node, its `k` (none: the key is missing).
    targets: Vec<Option<i64>>,
    /// (source, target) relationships of type `R`.
    edges: Vec<(usize, usize)>,
    /// The values unwound and matched against `t.k` (none: null).
    values: Vec<Option<i64>>,
}

fn case() -> impl Strategy<Value = Case> {
    (1usize..6, 1usize..8).prop_flat_map(|(sources, targets)| {
        (
            Just(sources),
            prop::collection::vec(prop::option::weighted(0.8, 0i64..4), targets),
            prop::collection::vec((0..sources, 0..targets), 0..20),
            prop::collection::vec(prop::option::weighted(0.85, 0i64..5), 1..4),
        )
            .prop_map(|(sources, targets, edges, values)| Case {
                sources,
                targets,
                edges,
                values,
            })
    })
}

fn create_query(case: &Case) -> String {
    let mut parts: Vec<String> = (0..case.sources)
        .map(|i| format!("(a{i}:A {{id: {i}}})"))
        .collect();
    parts.extend(case.targets.iter().enumerate().map(|(i, k)| match k {
        Some(k) => format!("(t{i}:T {{id: {i}, k: {k}}})"),
        None => format!("(t{i}:T {{id: {i}}})"),
    }));
    parts.extend(
        case.edges
            .iter()
            .map(|(s, t)| format!("(a{s})-[:R]->(t{t})")),
    );
    format!("CREATE {}", parts.join(", "))
}

fn query(case: &Case, value: &str) -> String {
    let values: Vec<String> = case
        .values
        .iter()
        .map(|v| v.map_or("null".to_string(), |v| v.to_string()))
        .collect();
    format!(
        "MATCH (a:A) WITH a UNWIND [{}] AS v \
         MATCH (a)-[r:R]->(t:T) WHERE t.k = {value} \
         RETURN a.id AS a, id(r) AS r, t.id AS t, v",
        values.join(", ")
    )
}

/// Whether the plan of `query` has an `ExpandInto`.
fn expands_into(db: &std::sync::Arc<Database>, query: &str) -> bool {
    format!("{:?}", explained(db, query)).contains("ExpandInto")
}

/// Runs `queries(case)` (the rule's text and one it leaves as
/// expand-then-filter) on random cases: the rows must be the same
/// multiset, and most rule texts must plan an `ExpandInto`.
fn assert_same_rows_as_expand_then_filter(queries: impl Fn(&Case) -> (String, String)) {
    let mut runner = TestRunner::new(Config {
        cases: 64,
        failure_persistence: None,
        ..Config::default()
    });
    let into = std::cell::Cell::new(0usize);
    let cases = std::cell::Cell::new(0usize);
    runner
        .run(&case(), |case| {
            let (_dir, db) = fresh_database();
            sorted_rows(&db, "CREATE INDEX t_k FOR (t:T) ON (t.k)");
            sorted_rows(&db, &create_query(&case));
            let (known, written) = queries(&case);
            cases.set(cases.get() + 1);
            if expands_into(&db, &known) {
                into.set(into.get() + 1);
            }
            prop_assert!(!expands_into(&db, &written));
            prop_assert_eq!(
                sorted_rows(&db, &known),
                sorted_rows(&db, &written),
                "{}",
                known
            );
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{} of {} plans used ExpandInto", into.get(), cases.get());
    assert!(
        into.get() * 2 > cases.get(),
        "{} of {} plans used ExpandInto: the property was not tested on the rule's plan",
        into.get(),
        cases.get()
    );
}

#[test]
fn expand_into_a_known_node_returns_the_rows_of_expand_then_filter() {
    assert_same_rows_as_expand_then_filter(|case| (query(case, "v"), query(case, "coalesce(v)")));
}

/// The same graphs with a literal value matched after `WITH DISTINCT`:
/// the rule then seeks the known node once per query over the earlier
/// part's rows (ADR 0198; dfe's `NodeIndexSeek` reuses the first row's
/// answer), and the rows must again be those of expand-then-filter.
#[test]
fn expand_into_a_node_known_by_a_literal_after_distinct_returns_the_same_rows() {
    assert_same_rows_as_expand_then_filter(|case| {
        let value = case.values[0].map_or("null".to_string(), |v| v.to_string());
        let query = |v: &str| {
            format!(
                "MATCH (a:A)-[:R]->(:T) WITH DISTINCT a \
                 MATCH (a)-[r:R]->(t:T) WHERE t.k = {v} \
                 RETURN a.id AS a, id(r) AS r, t.id AS t"
            )
        };
        (query(&value), query(&format!("coalesce({value})")))
    });
}
