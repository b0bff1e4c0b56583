//! Garbage collection: update churn keeps the version count flat, and a
//! live snapshot keeps every version it can read (counted, not timed).

mod common;

use common::{commit, labels, props, store};
use nereid_storage::Change;
use nereid_values::{Direction, EntityResolver, Value};
use std::collections::BTreeMap;

#[test]
fn update_churn_keeps_the_version_count_flat() {
    let s = store();
    let t = s.begin();
    let a = t
        .create_node(&labels(&["A"]), &props(&[("v", Value::Int(0))]))
        .unwrap();
    let b = t.create_node(&[], &BTreeMap::new()).unwrap();
    commit(&t).unwrap();
    drop(t);
    let mut peak_after_warmup = 0;
    for round in 1..=20_000i64 {
        let t = s.begin();
        t.set_node_property(a, "v", Value::Int(round)).unwrap();
        let rel = t.create_rel(a, b, "R", &BTreeMap::new()).unwrap();
        commit(&t).unwrap();
        drop(t);
        let t = s.begin();
        t.delete_rel(rel).unwrap();
        commit(&t).unwrap();
        drop(t);
        if round > 10_000 {
            peak_after_warmup = peak_after_warmup.max(s.version_count());
        }
    }
    // 40,000 commits wrote 60,000 versions; without collection they would
    // all still be there.
    assert!(
        peak_after_warmup < 3 * gc_threshold(),
        "{peak_after_warmup} versions"
    );
    let t = s.begin();
    assert_eq!(t.node_property(a, "v"), Some(Value::Int(20_000)));
    assert!(t.expand(a, Direction::Both, &[]).is_empty());
    drop(t);
    s.collect_garbage();
    // a: existence, label, v; b: existence
    assert_eq!(s.version_count(), 4);
}

/// The number of dead versions that triggers a collection (mirrors
/// `gc::MIN_GARBAGE`, which the test must not depend on exactly).
fn gc_threshold() -> u64 {
    4096
}

#[test]
fn a_live_snapshot_keeps_what_it_can_read() {
    let s = store();
    let t = s.begin();
    let a = t.create_node(&[], &props(&[("v", Value::Int(0))])).unwrap();
    commit(&t).unwrap();
    drop(t);
    let old = s.begin();
    let pinned = s.pin_snapshot();
    for round in 1..=5_000i64 {
        let t = s.begin();
        t.set_node_property(a, "v", Value::Int(round)).unwrap();
        commit(&t).unwrap();
    }
    s.collect_garbage();
    assert_eq!(old.node_property(a, "v"), Some(Value::Int(0)));
    assert!(s.version_count() > 5_000);
    drop(old);
    s.collect_garbage();
    // The pin (taken after `old`, at the same timestamp) still holds v = 0:
    // a checkpoint export at it finds the old value.
    assert!(s.version_count() > 5_000);
    let exported: Vec<Change> = (0..s.node_partitions())
        .flat_map(|part| s.export_nodes(pinned.ts(), part))
        .collect();
    match exported.as_slice() {
        [Change::CreateNode { properties, .. }] => {
            assert_eq!(properties.get("v"), Some(&Value::Int(0)))
        }
        other => panic!("{other:?}"),
    }
    drop(pinned);
    s.collect_garbage();
    assert_eq!(s.version_count(), 2);
    assert_eq!(s.begin().node_property(a, "v"), Some(Value::Int(5_000)));
}

#[test]
fn rolled_back_inserts_are_collected_and_slots_reused() {
    let s = store();
    for _ in 0..100 {
        let t = s.begin();
        t.create_node(&labels(&["X"]), &props(&[("k", Value::from("v"))]))
            .unwrap();
        t.rollback();
    }
    s.collect_garbage();
    assert_eq!(s.version_count(), 0);
    let t = s.begin();
    let n = t.create_node(&labels(&["Y"]), &BTreeMap::new()).unwrap();
    commit(&t).unwrap();
    assert_eq!(s.version_count(), 2);
    assert_eq!(s.begin().scan_nodes(None), vec![n]);
    assert_eq!(s.begin().scan_nodes(Some("X")), vec![]);
}

/// Zones freeze once every snapshot can read all their tuples, stay
/// correct when a frozen tuple is deleted under an older snapshot, and
/// freeze again once the deletion is collected.
#[test]
fn zones_freeze_and_thaw_without_changing_what_snapshots_see() {
    let s = store();
    let t = s.begin();
    let nodes: Vec<_> = (0..3000i64)
        .map(|i| {
            t.create_node(&labels(&["N"]), &props(&[("i", Value::Int(i))]))
                .unwrap()
        })
        .collect();
    commit(&t).unwrap();
    drop(t);
    let (_, versioned) = s.zone_states();
    assert!(versioned > 0, "fresh commits keep their version vectors");
    s.collect_garbage();
    let (frozen, versioned) = s.zone_states();
    assert!(frozen > 0);
    assert_eq!(versioned, 0, "every zone holds only old, undeleted tuples");

    let old = s.begin();
    let t = s.begin();
    t.delete_node(nodes[7], false).unwrap();
    t.set_node_property(nodes[8], "i", Value::Int(-1)).unwrap();
    commit(&t).unwrap();
    drop(t);
    s.collect_garbage();
    assert!(s.zone_states().1 > 0, "deletes seen by `old` keep versions");
    assert!(old.node(nodes[7]).is_some());
    assert_eq!(old.node_property(nodes[8], "i"), Some(Value::Int(8)));
    assert_eq!(old.scan_nodes(Some("N")).len(), 3000);
    let new = s.begin();
    assert!(new.node(nodes[7]).is_none());
    assert_eq!(new.node_property(nodes[8], "i"), Some(Value::Int(-1)));
    assert_eq!(new.scan_nodes(Some("N")).len(), 2999);
    drop((old, new));

    s.collect_garbage();
    assert_eq!(s.zone_states().1, 0, "collected deletions refreeze");
    let t = s.begin();
    assert!(t.node(nodes[7]).is_none());
    assert_eq!(t.node_property(nodes[8], "i"), Some(Value::Int(-1)));
    assert_eq!(t.scan_nodes(Some("N")).len(), 2999);
}
