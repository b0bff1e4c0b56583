//! The pushed property scan (`Apl::edges_with_property`) against the other
//! two ways of answering the same question: a relation scan of the type
//! and an index scan from every node, each followed by reading the
//! property through the transaction and testing it. All three must return
//! the same edges, for committed edges (in frozen zones), deleted ones,
//! property updates and the transaction's own uncommitted writes; and the
//! pushed scan gives the same with and without a `ValueTest` deciding
//! integers or floats on their stored bits.

mod common;

use common::{commit, labels, props, store};
use nereid_storage::apl::{
    AccessMode, Comparison, EdgeMatch, EdgePattern, Endpoint, ModeChoice, ValueTest,
};
use nereid_storage::Txn;
use nereid_values::{RelId, Value};
use proptest::prelude::*;
use std::collections::BTreeSet;

const TYPES: [&str; 3] = ["A", "B", "C"];

fn value() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        1 => Just(None),
        3 => (-5i64..15).prop_map(|i| Some(Value::Int(i))),
        2 => (-5.0f64..15.0).prop_map(|f| Some(Value::Float(f))),
        1 => Just(Some(Value::Float(f64::NAN))),
        1 => "[a-c]{0,2}".prop_map(|s| Some(Value::String(s))),
        1 => any::<bool>().prop_map(|b| Some(Value::Bool(b))),
    ]
}

type Edge = (usize, usize, usize, Option<Value>);

fn edge(nodes: usize) -> impl Strategy<Value = Edge> {
    (0..nodes, 0..nodes, 0usize..3, value())
}

/// The test every path applies: `w < threshold` for numbers (never NaN),
/// `w >= 'b'` for strings, false otherwise.
fn test(threshold: i64) -> impl Fn(&Value) -> bool {
    move |v| match v {
        Value::Int(i) => *i < threshold,
        Value::Float(f) => *f < threshold as f64,
        Value::String(s) => s.as_str() >= "b",
        _ => false,
    }
}

fn create(txn: &Txn, nodes: &[nereid_values::NodeId], e: &Edge) -> RelId {
    let properties = match &e.3 {
        Some(v) => props(&[("w", v.clone())]),
        None => props(&[]),
    };
    txn.create_rel(nodes[e.0], nodes[e.1], TYPES[e.2], &properties)
        .expect("create edge")
}

fn sorted(mut edges: Vec<EdgeMatch>) -> Vec<EdgeMatch> {
    edges.sort();
    edges
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn pushed_scan_equals_scan_then_filter(
        nodes in 1usize..20,
        committed in proptest::collection::vec(edge(20), 0..60),
        deleted in proptest::collection::vec(0usize..60, 0..15),
        updated in proptest::collection::vec((0usize..60, value()), 0..15),
        own in proptest::collection::vec(edge(20), 0..10),
        types in proptest::collection::vec(0usize..4, 0..3),
        threshold in -5i64..15,
    ) {
        let store = store();
        let setup = store.begin();
        let ids: Vec<_> = (0..nodes)
            .map(|_| setup.create_node(&labels(&[]), &props(&[])).expect("node"))
            .collect();
        let clamp = |e: &Edge| (e.0 % nodes, e.1 % nodes, e.2, e.3.clone());
        let rels: Vec<RelId> = committed.iter().map(|e| create(&setup, &ids, &clamp(e))).collect();
        commit(&setup).expect("commit");
        drop(setup);
        store.collect_garbage();
        let txn = store.begin();
        for &d in &deleted {
            if let Some(&rel) = rels.get(d) {
                let _ = txn.delete_rel(rel);
            }
        }
        for (u, v) in &updated {
            if let Some(&rel) = rels.get(*u) {
                let _ = txn.set_rel_property(rel, "w", v.clone().unwrap_or(Value::Null));
            }
        }
        for e in &own {
            create(&txn, &ids, &clamp(e));
        }
        let type_names: Vec<String> = types
            .iter()
            .map(|&t| TYPES.get(t).copied().unwrap_or("NoSuchType").to_string())
            .collect();
        let apl = txn.apl();
        let keep = test(threshold);

        let mut pushed = Vec::new();
        apl.edges_with_property(&type_names, "w", None, &keep, |m| pushed.push(m));
        for fast in [
            ValueTest::Int(Comparison::Less, threshold),
            ValueTest::Float(Comparison::Less, threshold as f64),
        ] {
            let mut decided = Vec::new();
            apl.edges_with_property(&type_names, "w", Some(fast), &keep, |m| decided.push(m));
            prop_assert_eq!(sorted(decided), sorted(pushed.clone()), "{:?}", fast);
        }

        let filtered = |m: &EdgeMatch| txn.rel_property(m.rel, "w").is_some_and(|v| keep(&v));
        let mut scanned = Vec::new();
        let any = EdgePattern { src: Endpoint::Any, types: &type_names, dst: Endpoint::Any };
        apl.edges(&any, None, ModeChoice::Force(AccessMode::RelationScan), |m| {
            if filtered(&m) {
                scanned.push(m);
            }
        });
        let everyone = apl.vertex_set_of(ids.iter().copied());
        let from_all = EdgePattern { src: Endpoint::In(&everyone), types: &type_names, dst: Endpoint::Any };
        let mut indexed = Vec::new();
        apl.edges(&from_all, None, ModeChoice::Force(AccessMode::IndexScan), |m| {
            if filtered(&m) {
                indexed.push(m);
            }
        });

        let pushed = sorted(pushed);
        prop_assert_eq!(pushed.iter().collect::<BTreeSet<_>>().len(), pushed.len(), "no duplicates");
        prop_assert_eq!(&pushed, &sorted(scanned));
        prop_assert_eq!(&pushed, &sorted(indexed));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// The node property scan (`Apl::nodes_with_property`) finds exactly
    /// the nodes of the label a label scan finds and a property read then
    /// keeps, with and without a `ValueTest`: committed nodes (in frozen
    /// zones), deleted ones, property updates and removals, added labels
    /// and the transaction's own writes.
    #[test]
    fn node_property_scan_equals_label_scan_then_filter(
        committed in proptest::collection::vec((0usize..3, value()), 0..40),
        deleted in proptest::collection::vec(0usize..40, 0..8),
        updated in proptest::collection::vec((0usize..40, value()), 0..12),
        labelled in proptest::collection::vec(0usize..40, 0..6),
        own in proptest::collection::vec((0usize..3, value()), 0..8),
        threshold in -5i64..15,
    ) {
        const LABELS: [&str; 3] = ["A", "B", "C"];
        let create = |txn: &Txn, (label, v): &(usize, Option<Value>)| {
            let properties = match v {
                Some(v) => props(&[("w", v.clone())]),
                None => props(&[]),
            };
            txn.create_node(&labels(&[LABELS[*label]]), &properties).expect("node")
        };
        let store = store();
        let setup = store.begin();
        let ids: Vec<_> = committed.iter().map(|n| create(&setup, n)).collect();
        commit(&setup).expect("commit");
        drop(setup);
        store.collect_garbage();
        let txn = store.begin();
        for &d in &deleted {
            if let Some(&node) = ids.get(d) {
                let _ = txn.delete_node(node, true);
            }
        }
        for (u, v) in &updated {
            if let Some(&node) = ids.get(*u) {
                let _ = txn.set_node_property(node, "w", v.clone().unwrap_or(Value::Null));
            }
        }
        for &l in &labelled {
            if let Some(&node) = ids.get(l) {
                let _ = txn.add_label(node, "A");
            }
        }
        for n in &own {
            create(&txn, n);
        }
        let keep = test(threshold);
        let apl = txn.apl();
        for label in [None, Some("A"), Some("B"), Some("Nope")] {
            let expected: BTreeSet<_> = txn
                .scan_nodes(label)
                .into_iter()
                .filter(|&n| txn.node_property(n, "w").is_some_and(|v| keep(&v)))
                .collect();
            for fast in [
                None,
                Some(ValueTest::Int(Comparison::Less, threshold)),
                Some(ValueTest::Float(Comparison::Less, threshold as f64)),
            ] {
                let mut found = Vec::new();
                apl.nodes_with_property(label, "w", fast, &keep, |n| found.push(n));
                let set: BTreeSet<_> = found.iter().copied().collect();
                prop_assert_eq!(set.len(), found.len(), "no duplicates");
                prop_assert_eq!(&set, &expected, "{:?} {:?}", label, fast);
            }
        }
    }
}
