//! Index seeks against the plans they replace, through the planner and the
//! executor on a real store: for random graphs (integers, floats with NaN
//! and -0.0, strings, booleans, lists, dates, missing values) and random
//! predicates (equality, `IN`, ranges with one or two ends, `STARTS WITH`,
//! `ENDS WITH`, `CONTAINS`, `IS NOT NULL`, composite prefixes, `ORDER BY
//! ... LIMIT`), a query planned with the store's indexes returns the same
//! rows as the same query planned without any (label scan and filter),
//! read in one transaction that has also written (created, changed and
//! deleted nodes and relationships it has not committed).
//!
//! The plan is checked to use an index operator where one is expected, so
//! a planner that stopped seeking would fail here rather than pass
//! trivially; and a plan naming an index the store does not have runs the
//! executor's fallback.

use nereid_dfe::{Cursor, ExecError, Params};
use nereid_planner::{
    explain, Catalog, IndexDescriptor, IndexEntity, IndexKind, PhysicalPlan, ProcedureSignature,
};
use nereid_storage::{EntityKind, IndexDef, Store, StoreConfig, Txn};
use nereid_values::{compare_for_order, Value};
use proptest::prelude::*;
use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

/// A catalog with fixed estimates and the given indexes.
struct Indexes(Vec<IndexDescriptor>);

impl Catalog for Indexes {
    fn estimate_nodes(&self, label: Option<&str>) -> u64 {
        if label.is_some() {
            100
        } else {
            1000
        }
    }

    fn procedure_signature(&self, _name: &str) -> Option<ProcedureSignature> {
        None
    }

    fn indexes(&self) -> Vec<IndexDescriptor> {
        self.0.clone()
    }
}

fn descriptor(
    name: &str,
    kind: IndexKind,
    entity: IndexEntity,
    label: &str,
    keys: &[&str],
) -> IndexDescriptor {
    IndexDescriptor {
        name: name.into(),
        kind,
        entity,
        label: label.into(),
        keys: keys.iter().map(|k| k.to_string()).collect(),
        unique: false,
    }
}

/// The indexes every test store gets.
fn store_indexes() -> Vec<IndexDescriptor> {
    vec![
        descriptor("l_p", IndexKind::Range, IndexEntity::Node, "L", &["p"]),
        descriptor(
            "l_q_p",
            IndexKind::Range,
            IndexEntity::Node,
            "L",
            &["q", "p"],
        ),
        descriptor("l_p_text", IndexKind::Text, IndexEntity::Node, "L", &["p"]),
        descriptor(
            "t_p",
            IndexKind::Range,
            IndexEntity::Relationship,
            "T",
            &["p"],
        ),
    ]
}

fn plan(query: &str, catalog: &dyn Catalog) -> Arc<PhysicalPlan> {
    let stmt = nereid_cypher::parse(query).expect("parses");
    nereid_cypher::analyze(&stmt).expect("analyses");
    Arc::new(nereid_planner::plan(&stmt, catalog).expect("plans"))
}

fn run(
    plan: Arc<PhysicalPlan>,
    txn: &Arc<Txn>,
    params: &Params,
) -> Result<Vec<Vec<Value>>, ExecError> {
    let mut cursor = Cursor::new(plan, Arc::clone(txn), params.clone());
    let mut rows = Vec::new();
    while let Some(row) = cursor.next_row()? {
        rows.push(row);
    }
    Ok(rows)
}

fn commit(txn: Txn) {
    if let Some(ticket) = txn.commit(|_, _| Ok::<(), Infallible>(())).expect("commit") {
        ticket.publish();
    }
}

fn props(p: &Option<Value>, q: &Option<Value>) -> BTreeMap<String, Value> {
    let mut m = BTreeMap::new();
    if let Some(p) = p {
        m.insert("p".to_string(), p.clone());
    }
    if let Some(q) = q {
        m.insert("q".to_string(), q.clone());
    }
    m
}

/// A store holding `committed` (label L, or M for every fifth) with every
/// index online, and a transaction on it that then wrote `own` (nodes, a
/// relationship between consecutive ones), changed `p` of some committed
/// nodes and deleted others, without committing.
fn setup(
    committed: &[(Option<Value>, Option<Value>)],
    own: &[(Option<Value>, Option<Value>)],
) -> Arc<Txn> {
    let store = Store::new(StoreConfig::default());
    let txn = store.begin();
    let mut ids = Vec::new();
    for (i, (p, q)) in committed.iter().enumerate() {
        let label = if i % 5 == 4 { "M" } else { "L" };
        ids.push(
            txn.create_node(&[label.to_string()], &props(p, q))
                .expect("node"),
        );
    }
    for (i, pair) in ids.windows(2).enumerate() {
        let (p, _) = &committed[i];
        txn.create_rel(pair[0], pair[1], "T", &props(p, &None))
            .expect("rel");
    }
    commit(txn);
    for d in store_indexes() {
        let txn = store.begin();
        txn.create_index(
            IndexDef {
                name: d.name.clone(),
                kind: match d.kind {
                    IndexKind::Range => nereid_storage::IndexKind::Range,
                    IndexKind::Text => nereid_storage::IndexKind::Text,
                },
                entity: match d.entity {
                    IndexEntity::Node => EntityKind::Node,
                    IndexEntity::Relationship => EntityKind::Relationship,
                },
                label: d.label.clone(),
                more_labels: Vec::new(),
                keys: d.keys.clone(),
            },
            false,
        )
        .expect("create index");
        commit(txn);
    }
    assert!(store.await_indexes(Duration::from_secs(30)));
    let txn = Arc::new(store.begin());
    let mut own_ids = Vec::new();
    for (p, q) in own {
        own_ids.push(
            txn.create_node(&["L".to_string()], &props(p, q))
                .expect("own node"),
        );
    }
    for (i, pair) in own_ids.windows(2).enumerate() {
        let (p, _) = &own[i];
        txn.create_rel(pair[0], pair[1], "T", &props(p, &None))
            .expect("own rel");
    }
    for (i, id) in ids.iter().enumerate() {
        match i % 7 {
            // Changed: the index must see the new value, not the old.
            2 => match &own.first().and_then(|(p, _)| p.clone()) {
                Some(v) => txn.set_node_property(*id, "p", v.clone()).expect("set"),
                None => txn
                    .set_node_property(*id, "p", Value::Null)
                    .expect("remove"),
            },
            5 => txn.delete_node(*id, true).expect("delete"),
            _ => {}
        }
    }
    txn
}

/// Rows as a sorted list of their debug forms (a multiset).
fn multiset(rows: &[Vec<Value>]) -> Vec<String> {
    let mut out: Vec<String> = rows.iter().map(|r| format!("{r:?}")).collect();
    out.sort();
    out
}

/// A value of one of the kinds a property can hold.
fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-4i64..4).prop_map(Value::Int),
        prop::sample::select(vec![
            -1.5f64,
            -0.0,
            0.0,
            0.5,
            1.0,
            2.0,
            3.5,
            f64::NAN,
            f64::INFINITY
        ])
        .prop_map(Value::Float),
        prop::sample::select(vec!["", "a", "ab", "abc", "b", "ba", "bab", "c"])
            .prop_map(|s| Value::String(s.to_string())),
        any::<bool>().prop_map(Value::Bool),
        prop::collection::vec((-2i64..2).prop_map(Value::Int), 0..3)
            .prop_map(|items| Value::List(items.into())),
        (0u32..3).prop_map(|d| Value::Date(
            chrono::NaiveDate::from_ymd_opt(2020, 1, 1 + d).expect("a date")
        )),
    ]
}

fn property() -> impl Strategy<Value = Option<Value>> {
    prop::option::weighted(0.8, value())
}

/// A WHERE clause over `n` (reading `$a`, `$b`, `$l`) and whether an index
/// must serve it.
fn predicate() -> impl Strategy<Value = (&'static str, bool)> {
    prop::sample::select(vec![
        ("n.p = $a", true),
        ("$a = n.p", true),
        ("n.p IN $l", true),
        ("n.p IN [$a, $b, $a]", true),
        ("n.p < $a", true),
        ("n.p <= $a", true),
        ("n.p > $a", true),
        ("$a >= n.p", true),
        ("n.p > $a AND n.p <= $b", true),
        ("n.p >= $a AND n.p < $b AND n.q = $b", true),
        ("n.p STARTS WITH $a", true),
        ("n.p ENDS WITH $a", true),
        ("n.p CONTAINS $a", true),
        ("n.p IS NOT NULL", true),
        ("n.q = $a AND n.p = $b", true),
        ("n.q = $a AND n.p > $b", true),
        ("n.q IN $l AND n.p IS NOT NULL", true),
        ("n.q = $a AND n.p STARTS WITH $b", true),
        ("n.p = $a AND n.q <> $b", true),
        ("n.p > $a AND n.p > $b", true),
        ("n.p STARTS WITH $a AND n.p < $b", true),
        ("n.q > $a AND n.p > $b", true),
        ("n.q = $a AND n.p IN $l", true),
        ("n.p >= $a AND n.p <= $a", true),
        ("n.q = $a", false),
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn node_seeks_return_the_rows_of_the_scan_they_replace(
        committed in prop::collection::vec((property(), property()), 0..30),
        own in prop::collection::vec((property(), property()), 0..6),
        (where_, indexed) in predicate(),
        a in value(),
        b in value(),
        l in prop::collection::vec(value(), 0..4),
        order in prop::sample::select(vec!["", " ORDER BY n.p", " ORDER BY n.p DESC"]),
        limit in prop::option::of(0i64..5),
    ) {
        let txn = setup(&committed, &own);
        let params: Params = [
            ("a".to_string(), a),
            ("b".to_string(), b),
            ("l".to_string(), Value::List(l.into())),
        ]
        .into_iter()
        .collect();
        let limit = limit.map(|k| format!(" LIMIT {k}")).unwrap_or_default();
        let query = format!("MATCH (n:L) WHERE {where_} RETURN n, n.p AS p{order}{limit}");
        let with_index = plan(&query, &Indexes(store_indexes()));
        let text = explain(&with_index);
        prop_assert_eq!(text.contains("Index"), indexed, "{}", text);
        let without = plan(&query, &Indexes(Vec::new()));
        let expected = run(without, &txn, &params);
        let actual = run(with_index, &txn, &params);
        match (expected, actual) {
            (Ok(expected), Ok(actual)) => {
                if order.is_empty() && limit.is_empty() {
                    prop_assert_eq!(multiset(&expected), multiset(&actual), "{}", text);
                } else {
                    // Ties may come in any order (and a limit may keep
                    // either of them): the keys must agree in order.
                    prop_assert_eq!(expected.len(), actual.len(), "{}", text);
                    if !order.is_empty() {
                        for (e, a) in expected.iter().zip(&actual) {
                            prop_assert_eq!(
                                compare_for_order(&e[1], &a[1]),
                                Ordering::Equal,
                                "{:?} vs {:?}\n{}", expected, actual, text
                            );
                        }
                    }
                    if limit.is_empty() {
                        prop_assert_eq!(multiset(&expected), multiset(&actual), "{}", text);
                    }
                }
            }
            (Err(e), Err(a)) => prop_assert_eq!(e.to_string(), a.to_string()),
            (e, a) => prop_assert!(false, "scan {:?} but seek {:?}\n{}", e, a, text),
        }
    }

    #[test]
    fn relationship_seeks_return_the_rows_of_the_expand_they_replace(
        committed in prop::collection::vec((property(), property()), 0..20),
        own in prop::collection::vec((property(), property()), 0..5),
        where_ in prop::sample::select(vec![
            "r.p = $a", "r.p > $a", "r.p <= $a AND r.p > $b", "r.p IS NOT NULL",
            "r.p STARTS WITH $a", "r.p IN [$a, $b]",
        ]),
        pattern in prop::sample::select(vec!["(x)-[r:T]->(y)", "(x)<-[r:T]-(y)", "(x)-[r:T]-(y)"]),
        a in value(),
        b in value(),
    ) {
        let txn = setup(&committed, &own);
        let params: Params = [("a".to_string(), a), ("b".to_string(), b)].into_iter().collect();
        let query = format!("MATCH {pattern} WHERE {where_} RETURN x, r, y");
        let with_index = plan(&query, &Indexes(store_indexes()));
        let text = explain(&with_index);
        prop_assert!(text.contains("RelationshipIndex"), "{}", text);
        let expected = run(plan(&query, &Indexes(Vec::new())), &txn, &params).expect("scan");
        let actual = run(with_index, &txn, &params).expect("seek");
        prop_assert_eq!(multiset(&expected), multiset(&actual), "{}", text);
    }
}

/// A plan naming indexes the store does not have (dropped after planning)
/// answers through the executor's fallback, with the same rows, order and
/// limit.
#[test]
fn a_missing_index_falls_back_to_the_scan() {
    let data: Vec<(Option<Value>, Option<Value>)> = (0..20)
        .map(|i| {
            (
                Some(Value::Int(i % 7)),
                Some(Value::String(format!("s{}", i % 3))),
            )
        })
        .collect();
    let txn = setup(&data, &[]);
    let ghosts: Vec<IndexDescriptor> = store_indexes()
        .into_iter()
        .map(|mut d| {
            d.name = format!("{}_dropped", d.name);
            d
        })
        .collect();
    let params = Params::new();
    for query in [
        "MATCH (n:L) WHERE n.p = 3 RETURN n",
        "MATCH (n:L) WHERE n.p IN [1, 1.0, 2] RETURN n",
        "MATCH (n:L) WHERE n.p >= 2 RETURN n.p AS p ORDER BY n.p DESC LIMIT 4",
        "MATCH (n:L) WHERE n.q STARTS WITH 's1' AND n.p IS NOT NULL RETURN n",
        "MATCH (x)-[r:T]-(y) WHERE r.p < 3 RETURN x, r, y",
    ] {
        let seek = plan(query, &Indexes(ghosts.clone()));
        assert!(explain(&seek).contains("Index"), "{}", explain(&seek));
        let expected = run(plan(query, &Indexes(Vec::new())), &txn, &params).expect("scan");
        let actual = run(seek, &txn, &params).expect("fallback");
        if query.contains("ORDER BY") {
            assert_eq!(expected, actual, "{query}");
        } else {
            assert_eq!(multiset(&expected), multiset(&actual), "{query}");
        }
        assert!(!expected.is_empty(), "{query}: a test that can fail");
    }
}

/// `x IN v` with `v` not a list is the filter's type error, seek or not.
#[test]
fn in_over_a_non_list_is_a_type_error() {
    let txn = setup(&[(Some(Value::Int(1)), None)], &[]);
    let params: Params = [("v".to_string(), Value::Int(1))].into_iter().collect();
    let query = "MATCH (n:L) WHERE n.p IN $v RETURN n";
    let expected = run(plan(query, &Indexes(Vec::new())), &txn, &params).expect_err("scan fails");
    let actual =
        run(plan(query, &Indexes(store_indexes())), &txn, &params).expect_err("seek fails");
    assert_eq!(expected.to_string(), actual.to_string());
}

/// Ends that contradict each other (`x > 3 AND x <= 1`) find nothing
/// through the index, as through the scan (the store's ordered index
/// panicked on an inverted range before).
#[test]
fn contradicting_range_ends_find_nothing() {
    let data: Vec<(Option<Value>, Option<Value>)> = (0..10)
        .map(|i| (Some(Value::Int(i)), Some(Value::String(format!("s{i}")))))
        .collect();
    let txn = setup(&data, &[]);
    let params = Params::new();
    for query in [
        "MATCH (n:L) WHERE n.p > 3 AND n.p <= 1 RETURN n",
        "MATCH (n:L) WHERE n.p > 3 AND n.p < 3 RETURN n",
        "MATCH (n:L) WHERE n.q > 's5' AND n.q < 's2' AND n.p IS NOT NULL RETURN n",
        "MATCH (x)-[r:T]->(y) WHERE r.p >= 5 AND r.p < 2 RETURN r",
    ] {
        let seek = plan(query, &Indexes(store_indexes()));
        assert!(explain(&seek).contains("SeekByRange"), "{}", explain(&seek));
        assert_eq!(
            run(seek, &txn, &params).expect("runs"),
            Vec::<Vec<Value>>::new()
        );
    }
}
