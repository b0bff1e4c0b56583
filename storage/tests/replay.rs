//! Replaying logged changes reproduces ids, data and the id generators.

mod common;

use common::{commit, labels, props, store};
use nereid_storage::{Change, StorageError, Store, StoreConfig};
use nereid_values::{Direction, EntityResolver, NodeId, Value};

#[test]
fn replay_reproduces_ids_and_generators_continue() {
    let original = store();
    let mut log: Vec<(u64, Vec<Change>)> = Vec::new();
    let t = original.begin();
    let a = t
        .create_node(&labels(&["A"]), &props(&[("x", Value::Int(1))]))
        .unwrap();
    let b = t.create_node(&[], &Default::default()).unwrap();
    let r = t
        .create_rel(a, b, "R", &props(&[("w", "heavy".into())]))
        .unwrap();
    log.push(commit(&t).unwrap());
    let t = original.begin();
    t.set_node_property(a, "x", Value::Int(2)).unwrap();
    t.add_label(b, "B").unwrap();
    let c = t.create_node(&[], &Default::default()).unwrap();
    let r2 = t.create_rel(b, c, "S", &Default::default()).unwrap();
    t.delete_rel(r).unwrap();
    log.push(commit(&t).unwrap());
    let t = original.begin();
    t.delete_node(c, true).unwrap();
    log.push(commit(&t).unwrap());

    let replayed = store();
    for (ts, changes) in &log {
        replayed.replay(*ts, changes).unwrap();
    }
    assert_eq!(replayed.visible_ts(), 3);
    let (o, n) = (original.begin(), replayed.begin());
    for id in [a, b, c] {
        assert_eq!(o.node(id), n.node(id));
    }
    for id in [r, r2] {
        assert_eq!(o.relationship(id), n.relationship(id));
    }
    assert_eq!(n.node_property(a, "x"), Some(Value::Int(2)));
    assert!(n.node_exists(b) && !n.node_exists(c) && !n.rel_exists(r2));

    // Generators continue after the replayed maximum: no id is reused.
    let t = replayed.begin();
    let d = t.create_node(&[], &Default::default()).unwrap();
    let r3 = t.create_rel(a, b, "R", &Default::default()).unwrap();
    assert!(![a, b, c].contains(&d));
    assert!(![r, r2].contains(&r3));
    let key = t.node_key(d).unwrap();
    assert!(![a, b, c]
        .iter()
        .any(|x| o.node(*x).map(|n| n.element_id) == Some(key.clone())));
    let (ts, _) = commit(&t).unwrap();
    assert_eq!(ts, 4);
    let mut rels = replayed.begin().expand(a, Direction::Outgoing, &[]);
    rels.sort();
    assert_eq!(rels, vec![(r3, b)]);
}

#[test]
fn replay_rejects_bad_input() {
    let s = store();
    let node = Change::CreateNode {
        id: NodeId(1 << 60 | 5),
        key: "n0".into(),
        labels: vec![],
        properties: Default::default(),
    };
    // The gui does not carry the key's hash.
    assert!(matches!(s.replay(1, &[node]), Err(StorageError::Replay(_))));
    // Unknown entities.
    let set = Change::SetNodeProperty {
        id: NodeId(42),
        key: "x".into(),
        value: Value::Int(1),
    };
    assert!(matches!(s.replay(1, &[set]), Err(StorageError::Replay(_))));
    // Timestamps must increase.
    s.replay(3, &[]).unwrap();
    assert!(matches!(s.replay(3, &[]), Err(StorageError::Replay(_))));
    // A relationship id from another partition layout.
    let src = Store::new(StoreConfig { partitions: 1 });
    let t = src.begin();
    let a = t.create_node(&[], &Default::default()).unwrap();
    let b = t.create_node(&[], &Default::default()).unwrap();
    t.create_rel(a, b, "R", &Default::default()).unwrap();
    let (_, changes) = commit(&t).unwrap();
    let other = Store::new(StoreConfig { partitions: 8 });
    let result = other.replay(1, &changes);
    // With 8x8 cells the edge only lands in cell 0 if both nodes hash there.
    let cell0 = (a.0 & 7) == 0 && (b.0 & 7) == 0;
    assert_eq!(result.is_ok(), cell0, "{result:?}");
    if result.is_err() {
        assert!(
            !other.begin().node_exists(a),
            "a failed replay is rolled back"
        );
    }
}
