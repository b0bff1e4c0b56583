//! Optimizer statistics: characteristic sets maintained at commit equal the
//! ones computed from scratch (a model read through the public API, and the
//! store's own rebuild) after random create/delete/set sequences with
//! rollbacks; replay rebuilds them too; HyperLogLog distinct counts stay
//! within the sketch's error bound, and a rebuild forgets deleted values.

mod common;

use common::{commit, labels, props, store};
use nereid_storage::stats::{CharacteristicSet, MemberStatistics, Staleness, StatMember};
use nereid_storage::{BulkNode, BulkRel, Change, Store};
use nereid_values::{Direction, NodeId, RelId, Value};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Clone, Debug)]
enum Op {
    CreateNode {
        label: Option<u8>,
        key: Option<u8>,
    },
    CreateRel {
        src: usize,
        dst: usize,
        ty: u8,
    },
    SetNodeProp {
        node: usize,
        key: u8,
        value: Option<i64>,
    },
    AddLabel {
        node: usize,
        label: u8,
    },
    RemoveLabel {
        node: usize,
        label: u8,
    },
    DeleteRel {
        rel: usize,
    },
    DeleteNode {
        node: usize,
        detach: bool,
    },
    Commit,
    Rollback,
}

fn op() -> impl Strategy<Value = Op> {
    let idx = 0usize..10;
    prop_oneof![
        3 => (proptest::option::of(0u8..3), proptest::option::of(0u8..3))
            .prop_map(|(label, key)| Op::CreateNode { label, key }),
        4 => (idx.clone(), idx.clone(), 0u8..2).prop_map(|(src, dst, ty)| Op::CreateRel { src, dst, ty }),
        2 => (idx.clone(), 0u8..3, proptest::option::of(-3i64..3))
            .prop_map(|(node, key, value)| Op::SetNodeProp { node, key, value }),
        1 => (idx.clone(), 0u8..3).prop_map(|(node, label)| Op::AddLabel { node, label }),
        1 => (idx.clone(), 0u8..3).prop_map(|(node, label)| Op::RemoveLabel { node, label }),
        1 => idx.clone().prop_map(|rel| Op::DeleteRel { rel }),
        1 => (idx, any::<bool>()).prop_map(|(node, detach)| Op::DeleteNode { node, detach }),
        2 => Just(Op::Commit),
        1 => Just(Op::Rollback),
    ]
}

/// Runs `ops`; returns the logged commits (for a replay).
fn run(store: &Arc<Store>, ops: &[Op]) -> Vec<(u64, Vec<Change>)> {
    let mut log = Vec::new();
    let mut nodes: Vec<NodeId> = Vec::new();
    let mut rels: Vec<RelId> = Vec::new();
    let mut txn = store.begin();
    let pick = |v: &[NodeId], i: usize| (!v.is_empty()).then(|| v[i % v.len()]);
    for op in ops {
        // Failing operations (deleting a connected node, touching a
        // deleted entity) are allowed: they change nothing.
        match op {
            Op::CreateNode { label, key } => {
                let l: Vec<String> = label.iter().map(|l| format!("L{l}")).collect();
                let p = key.map_or_else(BTreeMap::new, |k| {
                    props(&[(&format!("k{k}"), Value::Int(k as i64))])
                });
                if let Ok(id) = txn.create_node(&l, &p) {
                    nodes.push(id);
                }
            }
            Op::CreateRel { src, dst, ty } => {
                if let (Some(a), Some(b)) = (pick(&nodes, *src), pick(&nodes, *dst)) {
                    if let Ok(id) = txn.create_rel(a, b, &format!("T{ty}"), &BTreeMap::new()) {
                        rels.push(id);
                    }
                }
            }
            Op::SetNodeProp { node, key, value } => {
                if let Some(n) = pick(&nodes, *node) {
                    let v = value.map_or(Value::Null, Value::Int);
                    let _ = txn.set_node_property(n, &format!("k{key}"), v);
                }
            }
            Op::AddLabel { node, label } => {
                if let Some(n) = pick(&nodes, *node) {
                    let _ = txn.add_label(n, &format!("L{label}"));
                }
            }
            Op::RemoveLabel { node, label } => {
                if let Some(n) = pick(&nodes, *node) {
                    let _ = txn.remove_label(n, &format!("L{label}"));
                }
            }
            Op::DeleteRel { rel } => {
                if !rels.is_empty() {
                    let _ = txn.delete_rel(rels[rel % rels.len()]);
                }
            }
            Op::DeleteNode { node, detach } => {
                if let Some(n) = pick(&nodes, *node) {
                    let _ = txn.delete_node(n, *detach);
                }
            }
            Op::Commit => {
                let (ts, changes) = commit(&txn).expect("single writer: no conflicts");
                if !changes.is_empty() {
                    log.push((ts, changes));
                }
                txn = store.begin();
            }
            Op::Rollback => {
                txn.rollback();
                txn = store.begin();
            }
        }
    }
    let (ts, changes) = commit(&txn).expect("single writer: no conflicts");
    if !changes.is_empty() {
        log.push((ts, changes));
    }
    log
}

/// The characteristic sets computed from the visible graph alone.
fn model(store: &Arc<Store>) -> Vec<CharacteristicSet> {
    let txn = store.begin();
    let mut groups: BTreeMap<Vec<StatMember>, Vec<BTreeMap<StatMember, u64>>> = BTreeMap::new();
    for node in txn.scan_nodes(None) {
        let mut members: BTreeMap<StatMember, u64> = BTreeMap::new();
        for l in txn.node_labels(node) {
            members.insert(StatMember::Label(l), 1);
        }
        for k in txn.node_properties(node).into_keys() {
            members.insert(StatMember::Key(k), 1);
        }
        for (rel, _) in txn.expand(node, Direction::Outgoing, &[]) {
            let (_, _, ty) = txn.rel_endpoints(rel).expect("visible");
            *members.entry(StatMember::OutType(ty)).or_insert(0) += 1;
        }
        groups
            .entry(members.keys().cloned().collect())
            .or_default()
            .push(members);
    }
    groups
        .into_iter()
        .map(|(key, vertices)| CharacteristicSet {
            count: vertices.len() as u64,
            members: key
                .into_iter()
                .map(|member| {
                    let m: Vec<u64> = vertices.iter().map(|v| v[&member]).collect();
                    MemberStatistics {
                        min: *m.iter().min().unwrap_or(&0),
                        max: *m.iter().max().unwrap_or(&0),
                        avg: m.iter().sum::<u64>() as f64 / m.len() as f64,
                        member,
                    }
                })
                .collect(),
        })
        .collect()
}

fn edge_counts(store: &Store) -> Vec<u64> {
    vec![
        store.estimate_relationships(None),
        store.estimate_relationships(Some("T0")),
        store.estimate_relationships(Some("T1")),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn incremental_characteristic_sets_equal_recomputed(ops in proptest::collection::vec(op(), 1..60)) {
        let s = store();
        let log = run(&s, &ops);
        let expected = model(&s);
        prop_assert_eq!(&s.characteristic_sets(), &expected);
        let counts = edge_counts(&s);

        let replayed = store();
        for (ts, changes) in &log {
            replayed.replay(*ts, changes).expect("replays");
        }
        prop_assert_eq!(&replayed.characteristic_sets(), &expected);
        prop_assert_eq!(edge_counts(&replayed), counts.clone());
        let staleness = s.statistics_staleness();
        prop_assert_eq!(replayed.statistics_staleness(), staleness);

        s.rebuild_statistics();
        prop_assert_eq!(&s.characteristic_sets(), &expected);
        prop_assert_eq!(edge_counts(&s), counts);
        // The live count kept commit by commit is the one a scan finds.
        prop_assert_eq!(
            s.statistics_staleness(),
            Staleness { live: staleness.live, forgotten: 0 }
        );
    }
}

#[test]
fn nodes_having_members_sum_over_the_sets_that_contain_them() {
    let s = store();
    let t = s.begin();
    let a = t
        .create_node(&labels(&["P"]), &props(&[("name", Value::Int(1))]))
        .unwrap();
    let b = t.create_node(&labels(&["P"]), &BTreeMap::new()).unwrap();
    t.create_node(&labels(&["Q"]), &props(&[("name", Value::Int(2))]))
        .unwrap();
    t.create_rel(a, b, "R", &BTreeMap::new()).unwrap();
    commit(&t).unwrap();
    let having = |m: &[StatMember]| s.estimate_nodes_having(m);
    let label = |l: &str| StatMember::Label(l.into());
    let key = |k: &str| StatMember::Key(k.into());
    assert_eq!(having(&[]), 3);
    assert_eq!(having(&[label("P")]), 2);
    assert_eq!(having(&[key("name")]), 2);
    assert_eq!(having(&[label("P"), key("name")]), 1);
    assert_eq!(having(&[StatMember::OutType("R".into())]), 1);
    assert_eq!(having(&[label("Nope")]), 0);
}

/// Within three standard deviations (the sketch's own bounds) and within
/// 3 x 1.04 / sqrt(4096) of the truth.
fn assert_close(estimate: nereid_storage::stats::DistinctEstimate, truth: f64) {
    assert!(
        estimate.lower <= truth && truth <= estimate.upper,
        "{truth} outside [{}, {}]",
        estimate.lower,
        estimate.upper
    );
    let relative = (estimate.estimate - truth).abs() / truth;
    assert!(relative <= 3.0 * 1.04 / 64.0, "{estimate:?} vs {truth}");
}

#[test]
fn distinct_counts_are_within_the_sketch_error_and_a_rebuild_forgets_deleted_values() {
    let s = store();
    let values: Vec<[(&str, Value); 2]> = (0..30_000i64)
        .map(|i| {
            [
                ("id", Value::Int(i)),
                // 1,000 distinct strings, each 30 times.
                ("group", Value::String(format!("g{}", i % 1000))),
            ]
        })
        .collect();
    let nodes: Vec<BulkNode<'_>> = values
        .iter()
        .map(|p| BulkNode {
            labels: &["N"],
            properties: p,
        })
        .collect();
    let ids = s.bulk_load_nodes(&nodes).unwrap();
    // Node i points at node (i * 7) % 5000: 30,000 sources, 5,000 targets.
    let rels: Vec<BulkRel<'_>> = ids
        .iter()
        .enumerate()
        .map(|(i, &src)| BulkRel {
            src,
            dst: ids[(i * 7) % 5000],
            rel_type: "TO",
            properties: &[],
        })
        .collect();
    s.bulk_load_rels(&rels).unwrap();

    assert_close(s.distinct_node_values("id").unwrap(), 30_000.0);
    assert_close(s.distinct_node_values("group").unwrap(), 1000.0);
    let to = s.rel_type_statistics("TO").unwrap();
    assert_eq!(to.count, 30_000);
    assert_close(to.distinct_sources, 30_000.0);
    assert_close(to.distinct_targets, 5000.0);
    assert!(s.distinct_node_values("missing").is_none());
    // Two values per node and one edge each, nothing deleted yet.
    let fresh = Staleness {
        live: 90_000,
        forgotten: 0,
    };
    assert_eq!(s.statistics_staleness(), fresh);
    assert!(!fresh.is_outdated(10));

    // Delete the second half: the sketch keeps counting them until a rebuild.
    let t = s.begin();
    for &id in &ids[15_000..] {
        t.delete_node(id, true).unwrap();
    }
    commit(&t).unwrap();
    assert_close(s.distinct_node_values("id").unwrap(), 30_000.0);
    assert_eq!(s.rel_type_statistics("TO").unwrap().count, 15_000);
    let drifted = s.statistics_staleness();
    assert_eq!(
        drifted,
        Staleness {
            live: 45_000,
            forgotten: 45_000
        }
    );
    assert!(drifted.is_outdated(10) && drifted.is_outdated(100));
    assert!(!drifted.is_outdated(101) && !drifted.is_outdated(0));
    s.rebuild_statistics();
    assert_eq!(
        s.statistics_staleness(),
        Staleness {
            live: 45_000,
            forgotten: 0
        }
    );
    assert_close(s.distinct_node_values("id").unwrap(), 15_000.0);
    assert_close(
        s.rel_type_statistics("TO").unwrap().distinct_sources,
        15_000.0,
    );
    assert_eq!(
        s.estimate_nodes_having(&[StatMember::Key("id".into())]),
        15_000
    );
}

#[test]
fn a_rebuild_concurrent_with_commits_misses_none_of_them() {
    let s = store();
    let writer = {
        let s = s.clone();
        std::thread::spawn(move || {
            for i in 0..200i64 {
                let t = s.begin();
                let a = t
                    .create_node(&labels(&["W"]), &props(&[("i", Value::Int(i))]))
                    .unwrap();
                t.create_rel(a, a, "SELF", &BTreeMap::new()).unwrap();
                commit(&t).unwrap();
            }
        })
    };
    for _ in 0..20 {
        s.rebuild_statistics();
    }
    writer.join().unwrap();
    assert_eq!(s.characteristic_sets(), model(&s));
    assert_eq!(s.estimate_relationships(Some("SELF")), 200);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// A graph load feeds its vertices' and edges' statistics in bulk, on
    /// threads of their own beside the appends: the sets equal the ones
    /// recomputed from the loaded graph and the store's own rebuild,
    /// whatever the edges' order and spread over cells.
    #[test]
    fn a_graph_load_keeps_the_characteristic_sets_of_the_graph(
        vertices in proptest::collection::vec((any::<bool>(), any::<bool>()), 1..80),
        edges in proptest::collection::vec((any::<usize>(), any::<usize>(), 0u8..3), 0..400),
    ) {
        use nereid_storage::{BulkEnd, GraphRel, KeyedNode};
        let s = store();
        let keys: Vec<String> = (0..vertices.len()).map(|i| format!("k{i}")).collect();
        let named = [("name", Value::Int(1))];
        let nodes: Vec<KeyedNode<'_, &str>> = vertices
            .iter()
            .zip(&keys)
            .map(|(&(labelled, with_name), key)| KeyedNode {
                key,
                node: BulkNode {
                    labels: if labelled { &["L"] } else { &[] },
                    properties: if with_name { &named } else { &[] },
                },
            })
            .collect();
        let types = ["T0", "T1", "T2"];
        let rels: Vec<GraphRel<&str, &[(&str, Value)]>> = edges
            .iter()
            .map(|&(src, dst, ty)| GraphRel {
                src: BulkEnd::Loaded(src % vertices.len()),
                dst: BulkEnd::Loaded(dst % vertices.len()),
                rel_type: types[ty as usize],
                properties: &[][..],
            })
            .collect();
        // The same load with one end missing fails (found while the
        // edges are staged) and leaves the statistics as they were.
        let dangling = [GraphRel {
            src: BulkEnd::Loaded(0),
            dst: BulkEnd::Loaded(vertices.len() + 5),
            rel_type: "T0",
            properties: &[][..],
        }];
        let failed = s.bulk_load_graph(
            vec![&nodes[..]],
            vec![&rels[..], &dangling[..]],
            |_| Ok::<(), ()>(()),
        );
        prop_assert!(failed.is_err());
        prop_assert_eq!(s.characteristic_sets(), model(&s));
        prop_assert!(s.characteristic_sets().is_empty());
        s.bulk_load_graph(vec![&nodes[..]], vec![&rels[..]], |_| Ok::<(), ()>(()))
            .unwrap()
            .unwrap();
        let expected = model(&s);
        prop_assert_eq!(&s.characteristic_sets(), &expected);
        let counts = edge_counts(&s);
        s.rebuild_statistics();
        prop_assert_eq!(&s.characteristic_sets(), &expected);
        prop_assert_eq!(edge_counts(&s), counts);
    }
}
