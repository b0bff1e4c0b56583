//! An index seek returns exactly what a label scan filtered by the same
//! predicate returns, in every snapshot: through random histories of
//! creates, sets (values of every kind, nulls), label changes, deletes,
//! commits, rollbacks, own uncommitted writes, garbage collection, and
//! snapshots held open across later commits; and in key order.

mod common;

use common::{commit, labels, props, store};
use nereid_storage::{EntityKind, IndexDef, IndexKind, IndexSeek, KeyPredicate, Store, Txn};
use nereid_values::{compare_for_order, Comparison, NodeId, Value};
use proptest::prelude::*;
use std::cmp::Ordering;
use std::collections::BTreeSet;
use std::ops::Bound;
use std::sync::Arc;
use std::time::Duration;

fn values() -> Vec<Value> {
    vec![
        Value::Int(1),
        Value::Int(2),
        Value::Float(1.0),
        Value::Float(1.5),
        Value::Float(f64::NAN),
        Value::Int(-3),
        Value::from("a"),
        Value::from("ab"),
        Value::from("b"),
        Value::Bool(true),
        Value::List(vec![Value::Int(1)].into()),
        Value::List(vec![Value::Float(1.0)].into()),
        Value::Null,
        // Beyond 2^53: Cypher-equal to the float, a key of its own (a
        // group with several keys, which equality seeks read in the tree).
        Value::Int((1 << 53) + 1),
        Value::Float((1u64 << 53) as f64),
    ]
}

#[derive(Clone, Debug)]
enum Step {
    Create { person: bool, v: usize, w: usize },
    Set { node: usize, key: bool, v: usize },
    AddLabel { node: usize },
    RemoveLabel { node: usize },
    Delete { node: usize },
    Commit,
    Rollback,
    Collect,
    Hold,
}

fn step() -> impl Strategy<Value = Step> {
    let n = values().len();
    prop_oneof![
        4 => (any::<bool>(), 0..n, 0..n).prop_map(|(person, v, w)| Step::Create { person, v, w }),
        4 => (0usize..10, any::<bool>(), 0..n).prop_map(|(node, key, v)| Step::Set { node, key, v }),
        1 => (0usize..10).prop_map(|node| Step::AddLabel { node }),
        1 => (0usize..10).prop_map(|node| Step::RemoveLabel { node }),
        1 => (0usize..10).prop_map(|node| Step::Delete { node }),
        2 => Just(Step::Commit),
        1 => Just(Step::Rollback),
        1 => Just(Step::Collect),
        1 => Just(Step::Hold),
    ]
}

fn seeks() -> Vec<IndexSeek> {
    let mut out = Vec::new();
    for v in values() {
        out.push(IndexSeek::equal(vec![v.clone()]));
        for (lower, upper) in [
            (Bound::Included(v.clone()), Bound::Unbounded),
            (Bound::Excluded(v.clone()), Bound::Unbounded),
            (Bound::Unbounded, Bound::Included(v.clone())),
            (Bound::Unbounded, Bound::Excluded(v.clone())),
            (Bound::Included(v.clone()), Bound::Included(Value::Int(2))),
        ] {
            out.push(IndexSeek {
                equal: vec![],
                next: KeyPredicate::Range { lower, upper },
                descending: false,
                limit: None,
            });
        }
    }
    for s in ["", "a", "b"] {
        out.push(IndexSeek {
            equal: vec![],
            next: KeyPredicate::StartsWith(s.into()),
            descending: false,
            limit: None,
        });
        out.push(IndexSeek {
            equal: vec![],
            next: KeyPredicate::Contains(s.into()),
            descending: false,
            limit: None,
        });
    }
    out.push(IndexSeek::equal(vec![]));
    // Equality on both keys of the composite index (its point lookups).
    let some = |at: &[usize]| at.iter().map(|&i| values()[i].clone()).collect::<Vec<_>>();
    for v in some(&[0, 2, 6, 12, 13, 14]) {
        for w in some(&[0, 6, 12, 14]) {
            out.push(IndexSeek::equal(vec![v.clone(), w]));
        }
    }
    out.push(IndexSeek {
        equal: vec![Value::Int(1)],
        next: KeyPredicate::Range {
            lower: Bound::Included(Value::from("a")),
            upper: Bound::Unbounded,
        },
        descending: false,
        limit: None,
    });
    out
}

/// What the seek means, decided on a node's values (one per key).
fn satisfies(seek: &IndexSeek, values: &[Option<Value>]) -> bool {
    let Some(values) = values.iter().cloned().collect::<Option<Vec<Value>>>() else {
        return false;
    };
    for (want, have) in seek.equal.iter().zip(&values) {
        if have.cypher_eq(want) != Some(true) {
            return false;
        }
    }
    let Some(value) = values.get(seek.equal.len()) else {
        return true;
    };
    let text = |f: &dyn Fn(&str) -> bool| matches!(value, Value::String(s) if f(s));
    match &seek.next {
        KeyPredicate::All => true,
        KeyPredicate::StartsWith(p) => text(&|s| s.starts_with(p.as_str())),
        KeyPredicate::EndsWith(p) => text(&|s| s.ends_with(p.as_str())),
        KeyPredicate::Contains(p) => text(&|s| s.contains(p.as_str())),
        KeyPredicate::Range { lower, upper } => {
            let side = |b: &Bound<Value>, want: Ordering| match b {
                Bound::Unbounded => true,
                Bound::Included(b) => {
                    matches!(value.cypher_cmp(b), Comparison::Ordered(o) if o == want || o == Ordering::Equal)
                }
                Bound::Excluded(b) => {
                    matches!(value.cypher_cmp(b), Comparison::Ordered(o) if o == want)
                }
            };
            side(lower, Ordering::Greater) && side(upper, Ordering::Less)
        }
    }
}

fn create(s: &Arc<Store>, name: &str, keys: &[&str], kind: IndexKind) {
    let t = s.begin();
    let def = IndexDef {
        name: name.into(),
        kind,
        entity: EntityKind::Node,
        label: "Person".into(),
        keys: keys.iter().map(|k| k.to_string()).collect(),
    };
    assert!(t.create_index(def, false).unwrap().is_new());
    commit(&t).unwrap();
    assert!(s.await_indexes(Duration::from_secs(30)));
}

fn check(t: &Txn) -> Result<(), TestCaseError> {
    for (index, keys) in [("one", vec!["v"]), ("two", vec!["v", "w"])] {
        for seek in seeks() {
            let Some(found) = t.seek_nodes(index, &seek) else {
                continue;
            };
            let expected: BTreeSet<NodeId> = t
                .scan_nodes(Some("Person"))
                .into_iter()
                .filter(|&n| {
                    let values: Vec<Option<Value>> =
                        keys.iter().map(|k| t.node_property(n, k)).collect();
                    satisfies(&seek, &values)
                })
                .collect();
            let as_set: BTreeSet<NodeId> = found.iter().copied().collect();
            prop_assert_eq!(
                as_set.len(),
                found.len(),
                "duplicates from {} {:?}",
                index,
                seek
            );
            prop_assert_eq!(as_set, expected, "{} {:?}", index, seek);
            // Key order: ORDER BY order of the first non-equality key; not
            // after an equality on a number beyond 2^53, whose equal values
            // have keys of their own (module docs of the storage's `key`).
            let huge = |v: &Value| match v {
                Value::Int(i) => i.unsigned_abs() >= 1 << 53,
                Value::Float(f) => f.abs() >= (1u64 << 53) as f64,
                _ => false,
            };
            if seek.equal.iter().any(huge) {
                continue;
            }
            let at = seek.equal.len().min(keys.len() - 1);
            let order: Vec<Value> = found
                .iter()
                .map(|&n| t.node_property(n, keys[at]).unwrap())
                .collect();
            for pair in order.windows(2) {
                prop_assert_ne!(compare_for_order(&pair[0], &pair[1]), Ordering::Greater);
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn seeks_equal_filtered_scans(before in proptest::collection::vec(step(), 0..12), steps in proptest::collection::vec(step(), 1..40)) {
        let s = store();
        let vals = values();
        let mut t = s.begin();
        let mut nodes: Vec<NodeId> = Vec::new();
        let mut held: Vec<Txn> = Vec::new();
        // Some history before the indexes exist (population), the rest after.
        for step in before.into_iter().chain([Step::Commit]).chain(steps) {
            match step {
                Step::Create { person, v, w } => {
                    let names = if person { labels(&["Person"]) } else { labels(&["Other"]) };
                    let p = props(&[("v", vals[v].clone()), ("w", vals[w].clone())]);
                    nodes.push(t.create_node(&names, &p).unwrap());
                }
                Step::Set { node, key, v } => {
                    if let Some(&id) = nodes.get(node) {
                        let _ = t.set_node_property(id, if key { "v" } else { "w" }, vals[v].clone());
                    }
                }
                Step::AddLabel { node } => {
                    if let Some(&id) = nodes.get(node) {
                        let _ = t.add_label(id, "Person");
                    }
                }
                Step::RemoveLabel { node } => {
                    if let Some(&id) = nodes.get(node) {
                        let _ = t.remove_label(id, "Person");
                    }
                }
                Step::Delete { node } => {
                    if let Some(&id) = nodes.get(node) {
                        let _ = t.delete_node(id, true);
                    }
                }
                Step::Commit => {
                    let _ = commit(&t);
                    t = s.begin();
                }
                Step::Rollback => {
                    t.rollback();
                    t = s.begin();
                }
                Step::Collect => {
                    s.collect_garbage();
                }
                Step::Hold => held.push(s.begin()),
            }
            // The indexes appear at the first moment the transaction has
            // nothing uncommitted (a schema change may not share it).
            if s.schema().indexes.is_empty() && !t.is_read_only() {
                continue;
            }
            if s.schema().indexes.is_empty() {
                drop(t);
                create(&s, "one", &["v"], IndexKind::Range);
                create(&s, "two", &["v", "w"], IndexKind::Range);
                t = s.begin();
            }
            check(&t)?;
            for h in &held {
                check(h)?;
            }
        }
        // Once nothing can read old versions, stale entries are collected:
        // one entry per node holding the key(s).
        let _ = commit(&t);
        drop(t);
        held.clear();
        s.collect_garbage();
        let t = s.begin();
        for (index, keys) in [("one", vec!["v"]), ("two", vec!["v", "w"])] {
            let holders = t
                .scan_nodes(Some("Person"))
                .into_iter()
                .filter(|&n| keys.iter().all(|k| t.node_property(n, k).is_some()))
                .count();
            let entries = s.schema().indexes.iter().find(|i| i.def.name == index).map(|i| i.entries);
            prop_assert_eq!(entries, Some(holders), "{}", index);
        }
    }
}
