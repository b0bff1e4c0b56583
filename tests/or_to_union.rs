//! A first hop filtered by `p(a) OR q(b)` planned as a union of a walk
//! from the `a` that `p` seeks and a walk back from the `b` that `q` seeks
//! (planner rule `or_to_union`) returns the rows of the written plan.
//!
//! On random small graphs (labels `A`, `B` or both (zero-length paths), a `name` that is sometimes
//! missing, relationships `R`/`S`, indexes on both labels' `name`), a hop
//! of random direction and length (one relationship, `*0..`, `*1..2`,
//! `*`) is filtered by the disjunction, which the rule may split, and by
//! `coalesce(disjunction, false)`, the same test in a form no rule splits:
//! the written plan. The rows (both ends' ids and the relationship list's
//! ids, in order) must be the same multiset. The run fails unless some
//! plans were split and some not.

mod support;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use support::{create_graph, explained, fresh_database, sorted_rows};

#[derive(Clone, Debug)]
struct Case {
    /// Per node: its label and its name (`None`: no name).
    nodes: Vec<(&'static str, Option<u8>)>,
    /// (source, target, type).
    edges: Vec<(usize, usize, &'static str)>,
    dir: u8,
    length: &'static str,
    /// The names the two sides of the disjunction ask for.
    p: u8,
    q: u8,
}

fn case() -> impl Strategy<Value = Case> {
    let label = prop_oneof![Just("A"), Just("B"), Just("A:B")];
    let rel_type = prop_oneof![Just("R"), Just("S")];
    let length = prop_oneof![Just(""), Just("*0.."), Just("*1..2"), Just("*")];
    // Small and sparse on purpose: an unbounded walk enumerates every
    // trail (relationship-unique path), which grows exponentially with the
    // edges per node; 24 nodes and 48 edges walked both ways (`*`, `-`)
    // ran for tens of minutes in the written plan alone.
    (3usize..9).prop_flat_map(move |n| {
        let nodes = prop::collection::vec((label.clone(), prop::option::weighted(0.8, 0u8..12)), n);
        let edges = prop::collection::vec((0..n, 0..n, rel_type.clone()), 0..(n + 3));
        (nodes, edges, 0u8..3, length.clone(), 0u8..12, 0u8..12).prop_map(
            |(nodes, edges, dir, length, p, q)| Case {
                nodes,
                edges,
                dir,
                length,
                p,
                q,
            },
        )
    })
}

fn create_query(case: &Case) -> String {
    let nodes = case
        .nodes
        .iter()
        .enumerate()
        .map(|(i, (label, name))| match name {
            Some(name) => format!(":{label} {{id: {i}, name: 'n{name}'}}"),
            None => format!(":{label} {{id: {i}}}"),
        });
    create_graph(nodes, &case.edges)
}

/// The query, its hop filtered by `filter` (given the disjunction).
fn query(case: &Case, filter: impl Fn(&str) -> String) -> String {
    let (l, r) = match case.dir {
        0 => ("-", "->"),
        1 => ("<-", "-"),
        _ => ("-", "-"),
    };
    let rels = if case.length.is_empty() {
        "[id(rs)]"
    } else {
        "[r IN rs | id(r)]"
    };
    let or = format!("a.name = 'n{}' OR b.name = 'n{}'", case.p, case.q);
    format!(
        "MATCH (a:A){l}[rs:R|S{}]{r}(b:B) WHERE {} RETURN a.id, b.id, {rels}",
        case.length,
        filter(&or)
    )
}

#[test]
fn split_disjunctions_return_the_written_plans_rows() {
    let mut runner = TestRunner::new(Config {
        cases: 128,
        failure_persistence: None,
        ..Config::default()
    });
    let split = std::cell::Cell::new(0usize);
    let cases = std::cell::Cell::new(0usize);
    runner
        .run(&case(), |case| {
            let (_dir, db) = fresh_database();
            sorted_rows(&db, &create_query(&case));
            sorted_rows(&db, "CREATE INDEX a_name FOR (n:A) ON (n.name)");
            sorted_rows(&db, "CREATE INDEX b_name FOR (n:B) ON (n.name)");
            let rewritten = query(&case, |or| or.to_string());
            let written = query(&case, |or| format!("coalesce({or}, false)"));
            cases.set(cases.get() + 1);
            let plan = format!("{:?}", explained(&db, &rewritten).plan);
            if plan.contains("Union") {
                split.set(split.get() + 1);
            }
            let unsplit = format!("{:?}", explained(&db, &written).plan);
            prop_assert!(!unsplit.contains("Union"), "{}", written);
            prop_assert_eq!(
                sorted_rows(&db, &rewritten),
                sorted_rows(&db, &written),
                "{}",
                rewritten
            );
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    eprintln!("{} of {} plans split", split.get(), cases.get());
    assert!(
        split.get() > 0 && split.get() < cases.get(),
        "{} of {} plans split: the property was not exercised on both kinds",
        split.get(),
        cases.get()
    );
}
