//! Graph operations: expansion, deletes, statistics, entity materialisation.

mod common;

use common::{commit, labels, props, store};
use nereid_storage::{StorageError, WriteStats};
use nereid_values::{Direction, EntityResolver, Value};

#[test]
fn expand_follows_directions_types_and_self_loops() {
    let s = store();
    let t = s.begin();
    let a = t.create_node(&[], &Default::default()).unwrap();
    let b = t.create_node(&[], &Default::default()).unwrap();
    let ab = t.create_rel(a, b, "KNOWS", &Default::default()).unwrap();
    let ba = t.create_rel(b, a, "LIKES", &Default::default()).unwrap();
    let aa = t.create_rel(a, a, "SELF", &Default::default()).unwrap();

    let mut out = t.expand(a, Direction::Outgoing, &[]);
    out.sort();
    let mut expected = vec![(ab, b), (aa, a)];
    expected.sort();
    assert_eq!(out, expected);
    let mut inc = t.expand(a, Direction::Incoming, &[]);
    inc.sort();
    let mut expected = vec![(ba, b), (aa, a)];
    expected.sort();
    assert_eq!(inc, expected);
    assert_eq!(t.expand(a, Direction::Both, &[]).len(), 3);
    assert_eq!(
        t.expand(a, Direction::Both, &["KNOWS".into(), "LIKES".into()])
            .len(),
        2
    );
    assert!(t.expand(a, Direction::Both, &["NOPE".into()]).is_empty());
    assert_eq!(t.rel_endpoints(ba), Some((b, a, "LIKES".to_string())));
}

#[test]
fn deleting_a_connected_node_needs_detach() {
    let s = store();
    let t = s.begin();
    let a = t.create_node(&labels(&["A"]), &Default::default()).unwrap();
    let b = t.create_node(&[], &Default::default()).unwrap();
    let r = t
        .create_rel(a, b, "R", &props(&[("w", Value::Int(1))]))
        .unwrap();
    commit(&t).unwrap();

    let t = s.begin();
    assert_eq!(
        t.delete_node(a, false),
        Err(StorageError::DeleteConnectedNode(a.external()))
    );
    assert!(t.node_exists(a), "a failed delete changes nothing");
    assert!(t.is_read_only());
    t.delete_node(a, true).unwrap();
    assert!(!t.node_exists(a));
    assert!(!t.rel_exists(r));
    assert!(t.expand(b, Direction::Both, &[]).is_empty());
    // Deleting again in the same transaction is a no-op.
    t.delete_node(a, true).unwrap();
    t.delete_rel(r).unwrap();
    assert_eq!(
        t.stats(),
        WriteStats {
            nodes_deleted: 1,
            relationships_deleted: 1,
            ..Default::default()
        }
    );
    let (_, changes) = commit(&t).unwrap();
    assert!(matches!(
        changes[0],
        nereid_storage::Change::DeleteRel { .. }
    ));
    assert!(matches!(
        changes[1],
        nereid_storage::Change::DeleteNode { .. }
    ));
    assert_eq!(s.estimate_nodes(None), 1);
    assert_eq!(s.estimate_nodes(Some("A")), 0);
}

#[test]
fn missing_entities_are_errors() {
    let s = store();
    let t = s.begin();
    let a = t.create_node(&[], &Default::default()).unwrap();
    t.delete_node(a, false).unwrap();
    assert!(matches!(
        t.set_node_property(a, "x", Value::Int(1)),
        Err(StorageError::EntityNotFound(_))
    ));
    assert!(matches!(
        t.create_rel(a, a, "T", &Default::default()),
        Err(StorageError::EntityNotFound(_))
    ));
    assert!(matches!(
        t.delete_rel(nereid_values::RelId(12345)),
        Err(StorageError::EntityNotFound(_))
    ));
    assert!(!t.node_exists(nereid_values::NodeId(u64::MAX)));
    assert!(!t.rel_exists(nereid_values::RelId(u64::MAX)));
}

#[test]
fn stats_follow_neo4j_counting() {
    let s = store();
    let t = s.begin();
    let n = t
        .create_node(
            &labels(&["A", "A", "B"]),
            &props(&[("x", Value::Int(1)), ("gone", Value::Null)]),
        )
        .unwrap();
    assert_eq!(t.node_labels(n), labels(&["A", "B"]));
    t.add_label(n, "A").unwrap(); // already there: not counted
    t.add_label(n, "C").unwrap();
    t.remove_label(n, "Z").unwrap(); // absent: not counted
    t.remove_label(n, "B").unwrap();
    t.set_node_property(n, "x", Value::Int(1)).unwrap(); // same value still counts
    t.set_node_property(n, "x", Value::Null).unwrap(); // removal counts
    t.set_node_property(n, "x", Value::Null).unwrap(); // nothing to remove
    assert!(matches!(
        t.set_node_property(n, "m", Value::Map(Default::default())),
        Err(StorageError::UnstorableValue("Map"))
    ));
    assert_eq!(
        t.stats(),
        WriteStats {
            nodes_created: 1,
            properties_set: 3,
            labels_added: 3,
            labels_removed: 1,
            ..Default::default()
        }
    );
    assert!(t.node_properties(n).is_empty());
}

#[test]
fn resolver_materialises_nodes_and_relationships() {
    let s = store();
    let t = s.begin();
    let a = t
        .create_node(
            &labels(&["P"]),
            &props(&[
                ("name", "a".into()),
                ("l", Value::List(vec![Value::Int(1), "x".into()].into())),
            ]),
        )
        .unwrap();
    let b = t.create_node(&[], &Default::default()).unwrap();
    let r = t
        .create_rel(a, b, "R", &props(&[("since", Value::Int(2020))]))
        .unwrap();
    let node = t.node(a).unwrap();
    assert_eq!(node.labels, labels(&["P"]));
    assert_eq!(node.properties.get("name"), Some(&Value::from("a")));
    assert_eq!(Some(node.element_id.clone()), t.node_key(a));
    let rel = t.relationship(r).unwrap();
    assert_eq!(rel.start, a);
    assert_eq!(rel.end, b);
    assert_eq!(rel.start_element_id, node.element_id);
    assert_eq!(rel.element_id, format!("r{}", r.external()));
    assert_eq!(rel.rel_type, "R");
    assert_eq!(rel.properties.get("since"), Some(&Value::Int(2020)));
    t.delete_rel(r).unwrap();
    assert!(t.relationship(r).is_none());
    assert_ne!(a.external(), b.external());
}

#[test]
fn relationship_properties_can_be_set_and_removed() {
    let s = store();
    let t = s.begin();
    let a = t.create_node(&[], &Default::default()).unwrap();
    let r = t.create_rel(a, a, "R", &Default::default()).unwrap();
    t.set_rel_property(r, "k", Value::Bytes(vec![1, 2]))
        .unwrap();
    t.set_rel_property(r, "k", Value::Bool(true)).unwrap();
    assert_eq!(t.rel_property(r, "k"), Some(Value::Bool(true)));
    t.set_rel_property(r, "k", Value::Null).unwrap();
    assert!(t.rel_properties(r).is_empty());
    assert_eq!(t.stats().properties_set, 3);
}

/// The column read of a property answers exactly what the point read does,
/// row by row: committed, overwritten, removed, deleted and this
/// transaction's own values, repeated rows, ids that never existed, keys
/// never used.
#[test]
fn a_property_column_equals_the_point_reads_row_by_row() {
    let s = store();
    let setup = s.begin();
    let nodes: Vec<_> = (0..300i64)
        .map(|i| {
            let mut p = vec![("k", Value::Int(i))];
            if i % 3 == 0 {
                p.push(("s", Value::String(format!("v{i}"))));
            }
            setup.create_node(&labels(&["N"]), &props(&p)).unwrap()
        })
        .collect();
    commit(&setup).unwrap();
    let t = s.begin();
    for (i, &n) in nodes.iter().enumerate() {
        match i % 7 {
            0 => t.set_node_property(n, "k", Value::Int(-1)).unwrap(),
            1 => t.set_node_property(n, "k", Value::Null).unwrap(),
            2 => t.delete_node(n, true).unwrap(),
            3 => t
                .set_node_property(n, "s", Value::String(format!("new{i}")))
                .unwrap(),
            _ => {}
        }
    }
    let fresh = t.create_node(&[], &props(&[("k", Value::Int(7))])).unwrap();
    let rows = column_rows(&nodes, fresh);
    for key in ["k", "s", "missing"] {
        let column = t.node_property_column(&rows, key);
        let points: Vec<_> = rows.iter().map(|&n| t.node_property(n, key)).collect();
        assert_eq!(column, points, "key {key}");
    }
    // Node 2 was deleted, node 4 left alone.
    assert_eq!(
        t.node_property_column(&[nodes[2], nodes[4]], "k"),
        vec![None, Some(Value::Int(4))]
    );
    assert!(t.node_property_column(&[], "k").is_empty());
}

/// Rows for a column read: `nodes` backwards, the first 50 again, a node
/// the transaction created, and ids that name nothing.
fn column_rows(
    nodes: &[nereid_values::NodeId],
    fresh: nereid_values::NodeId,
) -> Vec<nereid_values::NodeId> {
    let mut rows: Vec<_> = nodes.iter().rev().copied().collect();
    rows.extend_from_slice(&nodes[..50]);
    rows.push(fresh);
    rows.extend([0, 1, u64::MAX, 1 << 63].map(nereid_values::NodeId));
    rows
}

/// The label column (read through the pipelined probe) answers as the
/// point test does, whatever the transaction changed: labels added and
/// removed, nodes deleted or created, rows repeated, ids that name nothing.
#[test]
fn a_label_column_equals_the_point_tests_row_by_row() {
    let s = store();
    let setup = s.begin();
    let nodes: Vec<_> = (0..300i64)
        .map(|i| {
            let names: &[&str] = match i % 4 {
                0 => &["A"],
                1 => &["A", "B"],
                2 => &["B"],
                _ => &[],
            };
            setup
                .create_node(&labels(names), &props(&[("k", Value::Int(i))]))
                .unwrap()
        })
        .collect();
    commit(&setup).unwrap();
    let t = s.begin();
    for (i, &n) in nodes.iter().enumerate() {
        match i % 5 {
            0 => t.add_label(n, "B").unwrap(),
            1 => t.remove_label(n, "A").unwrap(),
            2 => t.delete_node(n, true).unwrap(),
            _ => {}
        }
    }
    let fresh = t.create_node(&labels(&["A"]), &props(&[])).unwrap();
    let rows = column_rows(&nodes, fresh);
    for label in ["A", "B", "missing"] {
        let column = t.node_has_label_column(&rows, label);
        let points: Vec<_> = rows.iter().map(|&n| t.node_has_label(n, label)).collect();
        assert_eq!(column, points, "label {label}");
    }
    // Node 1 lost A and kept B; node 3 never had a label.
    assert_eq!(
        t.node_has_label_column(&[nodes[1], nodes[3]], "B"),
        vec![true, false]
    );
    assert!(t.node_has_label_column(&[], "A").is_empty());
}

/// A hub whose adjacency is bulk loaded (sorted throughout), then grown by
/// transactions in scrambled order (an unsorted tail, merged into the
/// sorted prefix as it grows), then thinned by deletes and garbage
/// collection: `expand_into` keeps finding exactly what filtering `expand`
/// finds, for every target, type restriction and direction.
#[test]
fn expand_into_agrees_with_expand_on_a_growing_hub() {
    use nereid_storage::BulkRel;
    let s = store();
    let t = s.begin();
    let hub = t.create_node(&[], &Default::default()).unwrap();
    let others: Vec<_> = (0..64)
        .map(|_| t.create_node(&[], &Default::default()).unwrap())
        .collect();
    commit(&t).unwrap();
    drop(t);
    let types = ["A", "B", "C"];
    let rels: Vec<BulkRel<'_>> = (0..600)
        .map(|k| BulkRel {
            src: hub,
            dst: others[(k * 37) % others.len()],
            rel_type: types[k % 3],
            properties: &[],
        })
        .collect();
    s.bulk_load_rels(&rels).unwrap();
    let check = |t: &nereid_storage::Txn| {
        for &other in others.iter().chain([&hub]) {
            for names in [vec![], vec!["B".to_string()], vec!["C".into(), "A".into()]] {
                for dir in [Direction::Outgoing, Direction::Incoming, Direction::Both] {
                    for (from, to) in [(hub, other), (other, hub)] {
                        let mut expected: Vec<_> = t
                            .expand(from, dir, &names)
                            .into_iter()
                            .filter(|&(_, o)| o == to)
                            .collect();
                        let mut got = t.expand_into(from, to, dir, &names);
                        expected.sort();
                        got.sort();
                        assert_eq!(got, expected, "{dir:?} {names:?}");
                    }
                }
            }
        }
    };
    for round in 0..3 {
        let t = s.begin();
        for k in 0..300 {
            let to = others[(k * 53 + round * 7) % others.len()];
            t.create_rel(hub, to, types[(k + round) % 3], &Default::default())
                .unwrap();
        }
        t.create_rel(hub, hub, "A", &Default::default()).unwrap();
        check(&t);
        commit(&t).unwrap();
        drop(t);
        let t = s.begin();
        let out = t.expand(hub, Direction::Outgoing, &[]);
        for &(rel, _) in out.iter().step_by(5) {
            t.delete_rel(rel).unwrap();
        }
        check(&t);
        commit(&t).unwrap();
        drop(t);
        s.collect_garbage();
        check(&s.begin());
    }
}

/// `rel_property_column` (the batch read behind `r.key` over many rows)
/// equals `rel_property` row by row: committed and own relationships,
/// updated, removed and deleted properties, deleted relationships (whose
/// property tuples go with them), repeats, unknown ids and keys. The
/// relationships join many node pairs, so the column's rows fall into many
/// edge partitions (read one partition at a time, then put back in order).
#[test]
fn a_relationship_property_column_equals_the_point_reads_row_by_row() {
    let s = store();
    let setup = s.begin();
    let nodes: Vec<_> = (0..24)
        .map(|_| setup.create_node(&labels(&["N"]), &props(&[])).unwrap())
        .collect();
    let a = nodes[0];
    let rels: Vec<_> = (0..200i64)
        .map(|i| {
            let mut p = vec![("w", Value::Int(i))];
            if i % 4 == 0 {
                p.push(("s", Value::String(format!("r{i}"))));
            }
            let at = i as usize;
            let (src, dst) = (nodes[at % 24], nodes[(at * 7 + 3) % 24]);
            setup.create_rel(src, dst, "T", &props(&p)).unwrap()
        })
        .collect();
    commit(&setup).unwrap();
    let t = s.begin();
    for (i, &r) in rels.iter().enumerate() {
        match i % 5 {
            0 => t.set_rel_property(r, "w", Value::Int(-1)).unwrap(),
            1 => t.set_rel_property(r, "w", Value::Null).unwrap(),
            2 => t.delete_rel(r).unwrap(),
            _ => {}
        }
    }
    let own = t
        .create_rel(a, a, "T", &props(&[("w", Value::Int(9))]))
        .unwrap();
    let mut rows: Vec<_> = rels.iter().rev().copied().collect();
    rows.extend_from_slice(&rels[..20]);
    rows.push(own);
    rows.extend([0, 1, u64::MAX, 1 << 63].map(nereid_values::RelId));
    for key in ["w", "s", "missing"] {
        let column = t.rel_property_column(&rows, key);
        let points: Vec<_> = rows.iter().map(|&r| t.rel_property(r, key)).collect();
        assert_eq!(column, points, "key {key}");
    }
    assert!(t.rel_property_column(&[], "w").is_empty());
}
