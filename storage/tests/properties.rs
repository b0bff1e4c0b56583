//! Many-key property writes (`Txn::set_node_properties` /
//! `set_rel_properties`, behind `SET n += $map`) behave exactly like the same
//! keys set one at a time: same properties, same counters, same logged
//! changes, same conflicts, and their commits replay to the same state.

mod common;

use common::{commit, props, store};
use nereid_storage::{Change, CommitError, StorageError, Txn};
use nereid_values::{EntityResolver, Value};
use proptest::prelude::*;

/// A key from a small alphabet (so that repeats and removals happen) and an
/// optional value (`None`: null, which removes the key).
fn pairs() -> impl Strategy<Value = Vec<(String, Option<i64>)>> {
    proptest::collection::vec(("[a-e]", proptest::option::weighted(0.7, -3i64..3)), 0..24)
}

fn values(pairs: &[(String, Option<i64>)]) -> Vec<(String, Value)> {
    pairs
        .iter()
        .map(|(k, v)| (k.clone(), v.map_or(Value::Null, Value::Int)))
        .collect()
}

/// The changes `txn` would log; the commit is then refused (rolled back).
fn logged_changes(txn: &Txn) -> Vec<Change> {
    let mut logged = Vec::new();
    let refused = txn.commit(|_, changes| {
        logged = changes.to_vec();
        Err("only looking")
    });
    // Nothing to log (a read-only transaction) also ends it.
    assert!(matches!(refused, Err(CommitError::Log(_)) | Ok(None)));
    logged
}

proptest! {
    #[test]
    fn a_batch_equals_the_same_keys_one_by_one(
        before in pairs(),
        batch in pairs(),
        on_rel in any::<bool>(),
    ) {
        let s = store();
        let setup = s.begin();
        let n = setup
            .create_node(&[], &props(&[("a", Value::Int(7)), ("c", Value::from("x"))]))
            .unwrap();
        let r = setup.create_rel(n, n, "R", &props(&[("b", Value::Int(1))])).unwrap();
        commit(&setup).unwrap();
        // A committed history of single sets first, then both ways from it.
        let history = s.begin();
        for (key, value) in values(&before) {
            if on_rel {
                history.set_rel_property(r, &key, value).unwrap();
            } else {
                history.set_node_property(n, &key, value).unwrap();
            }
        }
        commit(&history).unwrap();

        // One after the other: both delete the same tuples, which two open
        // transactions could not (a write conflict).
        let single = s.begin();
        for (key, value) in values(&batch) {
            if on_rel {
                single.set_rel_property(r, &key, value).unwrap();
            } else {
                single.set_node_property(n, &key, value).unwrap();
            }
        }
        let expected = (single.stats(), single.node(n), single.relationship(r));
        let expected_changes = logged_changes(&single);
        let batched = s.begin();
        if on_rel {
            batched.set_rel_properties(r, values(&batch)).unwrap();
        } else {
            batched.set_node_properties(n, values(&batch)).unwrap();
        }
        prop_assert_eq!(
            expected,
            (batched.stats(), batched.node(n), batched.relationship(r))
        );
        prop_assert_eq!(expected_changes, logged_changes(&batched));
    }
}

#[test]
fn a_new_key_added_by_two_batches_is_a_lost_update_refused() {
    let s = store();
    let t = s.begin();
    let n = t.create_node(&[], &Default::default()).unwrap();
    commit(&t).unwrap();

    let t1 = s.begin();
    let t2 = s.begin();
    let keys = |v: i64| (0..100).map(move |i| (format!("k{i}"), Value::Int(v)));
    t1.set_node_properties(n, keys(1)).unwrap();
    commit(&t1).unwrap();
    // t2's snapshot lacks k99, which t1 committed since: refused at once.
    assert!(matches!(
        t2.set_node_properties(n, keys(2).skip(99)),
        Err(StorageError::WriteConflict(_))
    ));
    assert!(matches!(
        commit(&t2),
        Err(CommitError::Storage(StorageError::WriteConflict(_)))
    ));
    assert_eq!(s.begin().node_property(n, "k99"), Some(Value::Int(1)));
}

#[test]
fn a_large_batch_and_its_replay_hold_every_key() {
    const KEYS: i64 = 20_000;
    let original = store();
    let t = original.begin();
    let n = t
        .create_node(&[], &props(&[("k0", Value::Int(-1))]))
        .unwrap();
    let mut log = vec![commit(&t).unwrap()];
    let t = original.begin();
    let mut pairs: Vec<(String, Value)> = (0..KEYS)
        .map(|i| (format!("k{i}"), Value::Int(i)))
        .collect();
    // Removed again and re-added inside the same batch; the last pair wins.
    pairs.push(("k5".into(), Value::Null));
    pairs.push(("k6".into(), Value::Null));
    pairs.push(("k6".into(), Value::Int(66)));
    t.set_node_properties(n, pairs).unwrap();
    log.push(commit(&t).unwrap());

    let replayed = store();
    for (ts, changes) in &log {
        replayed.replay(*ts, changes).unwrap();
    }
    for s in [&original, &replayed] {
        let node = s.begin().node(n).unwrap();
        assert_eq!(node.properties.len(), KEYS as usize - 1);
        assert_eq!(node.properties.get("k0"), Some(&Value::Int(0)));
        assert_eq!(node.properties.get("k5"), None);
        assert_eq!(node.properties.get("k6"), Some(&Value::Int(66)));
        assert_eq!(
            node.properties.get(&format!("k{}", KEYS - 1)),
            Some(&Value::Int(KEYS - 1))
        );
    }
}
