//! The bulk path: one commit, readable through transactions, counted by
//! the O(1) estimates, all or nothing.

mod common;

use common::{commit, labels, store};
use nereid_storage::apl::{AccessMode, EdgePattern, Endpoint, ModeChoice};
use nereid_storage::{BulkNode, BulkRel, StorageError, Txn};
use nereid_values::{Direction, NodeId, Value};
use std::collections::BTreeMap;

#[test]
fn bulk_loaded_graph_reads_like_a_committed_one() {
    let s = store();
    let props: Vec<[(&str, Value); 2]> = (0..100)
        .map(|i| {
            [
                ("name", Value::from(format!("v{i}"))),
                ("age", Value::Int(i)),
            ]
        })
        .collect();
    let nodes: Vec<BulkNode<'_>> = props
        .iter()
        .enumerate()
        .map(|(i, p)| BulkNode {
            labels: if i % 2 == 0 {
                &["Even", "Even"]
            } else {
                &["Odd"]
            },
            properties: p,
        })
        .collect();
    let before = s.visible_ts();
    let ids = s.bulk_load_nodes(&nodes).unwrap();
    assert_eq!(s.visible_ts(), before + 1);
    let weight = [("w", Value::Float(0.5))];
    let rels: Vec<BulkRel<'_>> = (0..99)
        .map(|i| BulkRel {
            src: ids[i],
            dst: ids[i + 1],
            rel_type: "NEXT",
            properties: &weight,
        })
        .collect();
    let rel_ids = s.bulk_load_rels(&rels).unwrap();
    let t = s.begin();
    assert_eq!(t.node_labels(ids[4]), labels(&["Even"]));
    assert_eq!(t.node_property(ids[7], "name"), Some(Value::from("v7")));
    assert_eq!(t.node_property(ids[7], "age"), Some(Value::Int(7)));
    assert_eq!(
        t.expand(ids[3], Direction::Outgoing, &[]),
        vec![(rel_ids[3], ids[4])]
    );
    assert_eq!(t.rel_property(rel_ids[3], "w"), Some(Value::Float(0.5)));
    assert_eq!(
        t.rel_endpoints(rel_ids[98]),
        Some((ids[98], ids[99], "NEXT".to_string()))
    );
    assert_eq!(s.estimate_nodes(None), 100);
    assert_eq!(s.estimate_nodes(Some("Even")), 50);
    assert_eq!(t.scan_nodes(Some("Odd")).len(), 50);
    // transactions keep working on top, and estimates follow them
    t.delete_node(ids[0], true).unwrap();
    commit(&t).unwrap();
    assert_eq!(s.estimate_nodes(Some("Even")), 49);
    assert_eq!(s.estimate_nodes(None), 99);
    assert!(s
        .begin()
        .create_node(&labels(&["Odd"]), &BTreeMap::new())
        .is_ok());
}

#[test]
fn a_missing_endpoint_fails_the_whole_load() {
    let s = store();
    let ids = s
        .bulk_load_nodes(&[BulkNode {
            labels: &[],
            properties: &[],
        }])
        .unwrap();
    let ts = s.visible_ts();
    let result = s.bulk_load_rels(&[
        BulkRel {
            src: ids[0],
            dst: ids[0],
            rel_type: "R",
            properties: &[],
        },
        BulkRel {
            src: ids[0],
            dst: NodeId(12345),
            rel_type: "R",
            properties: &[],
        },
    ]);
    assert!(matches!(result, Err(StorageError::EntityNotFound(_))));
    assert_eq!(s.visible_ts(), ts);
    assert!(s.begin().expand(ids[0], Direction::Both, &[]).is_empty());
}

#[test]
fn estimates_follow_commits_and_rollbacks() {
    let s = store();
    let t = s.begin();
    let a = t.create_node(&labels(&["A"]), &BTreeMap::new()).unwrap();
    t.rollback();
    assert_eq!(s.estimate_nodes(Some("A")), 0);
    let t = s.begin();
    let b = t.create_node(&labels(&["A"]), &BTreeMap::new()).unwrap();
    commit(&t).unwrap();
    let t = s.begin();
    t.add_label(b, "B").unwrap();
    t.remove_label(b, "A").unwrap();
    commit(&t).unwrap();
    assert_eq!(s.estimate_nodes(Some("A")), 0);
    assert_eq!(s.estimate_nodes(Some("B")), 1);
    assert_eq!(s.estimate_nodes(None), 1);
    let _ = a;
}

/// Every edge `txn` sees through the APL in `mode`, sorted.
fn apl_edges(txn: &Txn, mode: AccessMode, from: &[NodeId]) -> Vec<(NodeId, NodeId)> {
    let apl = txn.apl();
    let frontier = apl.vertex_set_of(from.iter().copied());
    let pattern = EdgePattern {
        src: Endpoint::In(&frontier),
        types: &[],
        dst: Endpoint::Any,
    };
    let mut edges = Vec::new();
    apl.edges(&pattern, None, ModeChoice::Force(mode), |m| {
        edges.push((m.src, m.dst))
    });
    edges.sort();
    edges
}

/// A bulk load starts its zones frozen at its commit timestamp: a snapshot
/// taken before the load is published sees none of it, through every read
/// path (point reads, index probes, relation scans, label scans, counts),
/// including after a later transaction deletes from those zones; one taken
/// after sees all of it.
#[test]
fn a_snapshot_from_before_a_bulk_load_sees_none_of_it() {
    let s = store();
    // Tuples already in the partitions, so the load fills the rest of
    // started zones (stamped) as well as zones of its own (frozen).
    let t = s.begin();
    let early: Vec<NodeId> = (0..10)
        .map(|_| t.create_node(&labels(&["P"]), &BTreeMap::new()).unwrap())
        .collect();
    t.create_rel(early[0], early[1], "R", &BTreeMap::new())
        .unwrap();
    commit(&t).unwrap();
    let before = s.begin();

    let props: Vec<[(&str, Value); 1]> = (0..3000).map(|i| [("i", Value::Int(i))]).collect();
    let nodes: Vec<BulkNode<'_>> = props
        .iter()
        .map(|p| BulkNode {
            labels: &["P"],
            properties: p,
        })
        .collect();
    let ids = s.bulk_load_nodes(&nodes).unwrap();
    let rels: Vec<BulkRel<'_>> = (0..3000)
        .map(|i| BulkRel {
            src: ids[i],
            dst: ids[(i * 7 + 1) % 3000],
            rel_type: "R",
            properties: &[],
        })
        .collect();
    s.bulk_load_rels(&rels).unwrap();
    let after = s.begin();

    // A later transaction deletes a loaded edge's source, materialising the
    // stamps of a frozen zone.
    let t = s.begin();
    t.delete_node(ids[5], true).unwrap();
    commit(&t).unwrap();

    let all: Vec<NodeId> = early.iter().chain(&ids).copied().collect();
    for (snapshot, loaded) in [(&before, false), (&after, true)] {
        assert_eq!(snapshot.node_exists(ids[5]), loaded);
        assert_eq!(snapshot.node_exists(ids[2999]), loaded);
        assert_eq!(
            snapshot.node_property(ids[17], "i"),
            loaded.then_some(Value::Int(17))
        );
        let expected_nodes = if loaded { 3010 } else { 10 };
        assert_eq!(snapshot.scan_nodes(None).len(), expected_nodes);
        assert_eq!(snapshot.scan_nodes(Some("P")).len(), expected_nodes);
        assert_eq!(snapshot.count_nodes(Some("P")), expected_nodes as u64);
        assert_eq!(
            snapshot.expand(ids[5], Direction::Outgoing, &[]).len(),
            usize::from(loaded)
        );
        let index = apl_edges(snapshot, AccessMode::IndexScan, &all);
        let scan = apl_edges(snapshot, AccessMode::RelationScan, &all);
        assert_eq!(index, scan);
        assert_eq!(index.len(), if loaded { 3001 } else { 1 });
    }
    let now = s.begin();
    assert!(!now.node_exists(ids[5]));
    assert_eq!(now.scan_nodes(None).len(), 3009);
    assert_eq!(apl_edges(&now, AccessMode::RelationScan, &all).len(), 2999);
}

/// A bulk load appends in chunks, releasing each partition between them,
/// so transactions write into the same partitions meanwhile (and readers
/// read them). Neither sees the load before it is published; afterwards
/// every vertex and edge of both reads back whole, and the load's edges
/// carry their own properties (their statement ids stayed consecutive).
#[test]
fn a_bulk_load_interleaved_with_transactions_keeps_both_whole() {
    let s = store();
    let n = 20_000;
    let props: Vec<[(&str, Value); 2]> = (0..n)
        .map(|i| [("k", Value::Int(i)), ("name", Value::from(format!("b{i}")))])
        .collect();
    let nodes: Vec<BulkNode<'_>> = props
        .iter()
        .map(|p| BulkNode {
            labels: &["Bulk"],
            properties: p,
        })
        .collect();
    let before = s.begin();
    let done = std::sync::atomic::AtomicBool::new(false);
    let (ids, own) = std::thread::scope(|scope| {
        // One transaction writing throughout the load (its commit waits
        // for the load's: the writes themselves go in between chunks).
        let writer = scope.spawn(|| {
            let t = s.begin();
            let mut own = Vec::new();
            while !done.load(std::sync::atomic::Ordering::Relaxed) || own.len() < 10 {
                let k = own.len() as i64;
                let id = t
                    .create_node(&labels(&["Own"]), &common::props(&[("k", Value::Int(k))]))
                    .unwrap();
                own.push((id, k));
            }
            commit(&t).unwrap();
            own
        });
        let ids = s.bulk_load_nodes(&nodes).unwrap();
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        (ids, writer.join().unwrap())
    });
    assert!(before.scan_nodes(Some("Bulk")).is_empty());
    let rels: Vec<BulkRel<'_>> = (0..n as usize - 1)
        .map(|i| BulkRel {
            src: ids[i],
            dst: ids[i + 1],
            rel_type: "NEXT",
            properties: &props[i][..1],
        })
        .collect();
    let rel_ids = s.bulk_load_rels(&rels).unwrap();
    let t = s.begin();
    assert_eq!(t.scan_nodes(Some("Bulk")).len(), n as usize);
    assert_eq!(t.scan_nodes(Some("Own")).len(), own.len());
    for (i, &id) in ids.iter().enumerate() {
        assert_eq!(t.node_property(id, "k"), Some(Value::Int(i as i64)));
        assert_eq!(
            t.node_property(id, "name"),
            Some(Value::from(format!("b{i}")))
        );
    }
    for &(id, k) in &own {
        assert_eq!(t.node_property(id, "k"), Some(Value::Int(k)));
    }
    for (i, &rel) in rel_ids.iter().enumerate() {
        assert_eq!(t.rel_property(rel, "k"), Some(Value::Int(i as i64)));
        assert_eq!(
            t.rel_endpoints(rel),
            Some((ids[i], ids[i + 1], "NEXT".to_string()))
        );
    }
}
