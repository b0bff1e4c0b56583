//! Every order the join enumerator (planner rule `join_order`) may choose
//! returns the rows of the written order.
//!
//! On random small graphs, a random tree pattern (chains and stars, typed
//! hops, some ends labelled or narrowed by a property equality) is run as
//! one MATCH, which the rule may reorder, and as a pipeline of one-hop
//! MATCHes through `WITH *`, each starting from the node bound before it,
//! which no rule reorders: the written order. The pipeline repeats the
//! relationship uniqueness of one MATCH as explicit inequalities. The rows
//! (ids of every node and relationship) must be the same multiset. The run
//! also counts the cases whose plan started elsewhere than the written
//! start, and fails unless some were reordered and some not: the property
//! must have been tested on reordered plans.

mod support;

use nereid_engine::Database;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::sync::Arc;
use support::{create_graph, explained, fresh_database, sorted_rows};

/// One hop of a pattern: from the node at `parent` (an earlier node) to a
/// new node, of type `R` or `S`, outgoing or incoming.
#[derive(Clone, Debug)]
struct Hop {
    parent: usize,
    rel_type: &'static str,
    outgoing: bool,
}

/// What a pattern node requires: an optional label and an optional `k`.
#[derive(Clone, Debug)]
struct NodeReq {
    label: Option<&'static str>,
    k: Option<i64>,
}

#[derive(Clone, Debug)]
struct Case {
    /// Per node: its label and `k`.
    nodes: Vec<(&'static str, i64)>,
    /// (source, target, type).
    edges: Vec<(usize, usize, &'static str)>,
    reqs: Vec<NodeReq>,
    hops: Vec<Hop>,
}

fn case() -> impl Strategy<Value = Case> {
    let label = prop_oneof![Just("A"), Just("B")];
    let rel_type = prop_oneof![Just("R"), Just("S")];
    (4usize..14).prop_flat_map(move |n| {
        let nodes = prop::collection::vec((label.clone(), 0i64..6), n);
        let edges = prop::collection::vec((0..n, 0..n, rel_type.clone()), 0..(n * 3));
        let hops = (2usize..5).prop_flat_map({
            let rel_type = rel_type.clone();
            move |h| {
                (0..h)
                    .map(|i| {
                        (0..=i, rel_type.clone(), any::<bool>()).prop_map(
                            |(parent, rel_type, outgoing)| Hop {
                                parent,
                                rel_type,
                                outgoing,
                            },
                        )
                    })
                    .collect::<Vec<_>>()
            }
        });
        let req = (
            prop::option::weighted(0.4, prop_oneof![Just("A"), Just("B")]),
            prop::option::weighted(0.3, 0i64..6),
        )
            .prop_map(|(label, k)| NodeReq { label, k });
        (nodes, edges, hops).prop_flat_map(move |(nodes, edges, hops)| {
            let reqs = prop::collection::vec(req.clone(), hops.len() + 1);
            (Just(nodes), Just(edges), reqs, Just(hops)).prop_map(|(nodes, edges, reqs, hops)| {
                Case {
                    nodes,
                    edges,
                    reqs,
                    hops,
                }
            })
        })
    })
}

fn create_query(case: &Case) -> String {
    let nodes = case
        .nodes
        .iter()
        .enumerate()
        .map(|(i, (label, k))| format!(":{label} {{id: {i}, k: {k}}}"));
    create_graph(nodes, &case.edges)
}

fn node_text(case: &Case, i: usize) -> String {
    let req = &case.reqs[i];
    let label = req.label.map(|l| format!(":{l}")).unwrap_or_default();
    let k = req.k.map(|k| format!(" {{k: {k}}}")).unwrap_or_default();
    format!("(v{i}{label}{k})")
}

fn hop_text(case: &Case, h: usize, new_node: &str) -> String {
    let hop = &case.hops[h];
    let (left, right) = if hop.outgoing {
        ("-", "->")
    } else {
        ("<-", "-")
    };
    format!(
        "(v{}){left}[r{h}:{}]{right}{new_node}",
        hop.parent, hop.rel_type
    )
}

fn returned(case: &Case) -> String {
    let nodes = (0..=case.hops.len()).map(|i| format!("v{i}.id AS v{i}"));
    let rels = (0..case.hops.len()).map(|h| format!("id(r{h}) AS r{h}"));
    nodes.chain(rels).collect::<Vec<_>>().join(", ")
}

/// The whole pattern as one MATCH, node 0 written first.
fn one_match(case: &Case) -> String {
    let mut parts = vec![node_text(case, 0)];
    for h in 0..case.hops.len() {
        parts.push(hop_text(case, h, &node_text(case, h + 1)));
    }
    format!("MATCH {} RETURN {}", parts.join(", "), returned(case))
}

/// The written order: one MATCH per hop, each from a bound node.
fn pipeline(case: &Case) -> String {
    let mut q = format!("MATCH {}", node_text(case, 0));
    for h in 0..case.hops.len() {
        q.push_str(&format!(
            " WITH * MATCH {}",
            hop_text(case, h, &node_text(case, h + 1))
        ));
        let distinct: Vec<String> = (0..h).map(|e| format!("r{h} <> r{e}")).collect();
        if !distinct.is_empty() {
            q.push_str(&format!(" WHERE {}", distinct.join(" AND ")));
        }
    }
    format!("{q} RETURN {}", returned(case))
}

/// Whether the plan of `query` starts from another node than `v0` (slot
/// `$0`, the first variable lowered): the operator above the deepest
/// `Argument` of its first-input chain.
fn starts_elsewhere(db: &Arc<Database>, query: &str) -> bool {
    let summary = explained(db, query);
    let plan = summary.plan.as_ref().expect("EXPLAIN has a plan");
    let mut chain = vec![&**plan];
    while let Some(child) = chain.last().and_then(|n| n.children.first()) {
        chain.push(child);
    }
    let scan = chain
        .iter()
        .rev()
        .find(|n| n.operator_type != "Argument")
        .expect("a scan over the argument");
    let starts_at_v0 = scan
        .details
        .strip_prefix("$0")
        .is_some_and(|rest| !rest.starts_with(|c: char| c.is_ascii_digit()));
    !starts_at_v0
}

#[test]
fn enumerated_orders_return_the_written_orders_rows() {
    let mut runner = TestRunner::new(Config {
        cases: 96,
        failure_persistence: None,
        ..Config::default()
    });
    let reordered = std::cell::Cell::new(0usize);
    let cases = std::cell::Cell::new(0usize);
    runner
        .run(&case(), |case| {
            let (_dir, db) = fresh_database();
            sorted_rows(&db, &create_query(&case));
            let single = one_match(&case);
            cases.set(cases.get() + 1);
            if starts_elsewhere(&db, &single) {
                reordered.set(reordered.get() + 1);
            }
            prop_assert_eq!(
                sorted_rows(&db, &single),
                sorted_rows(&db, &pipeline(&case)),
                "{}",
                single
            );
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    // Both kinds of plan must have been compared (and the test of where a
    // plan starts must tell them apart).
    eprintln!("{} of {} patterns reordered", reordered.get(), cases.get());
    assert!(
        reordered.get() > 0 && reordered.get() < cases.get(),
        "{} of {} patterns reordered: the property was not exercised on both kinds",
        reordered.get(),
        cases.get()
    );
}
