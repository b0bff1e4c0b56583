//! Property test: random operation sequences, in random transactions that
//! commit or roll back, behave like a simple in-memory model; replaying the
//! commit log into a fresh store reproduces the final state. Read-only
//! snapshots opened at random points must keep seeing exactly the state
//! committed when they began, while collections (which free dead versions
//! and freeze zones) run at random points: GC never frees what a live
//! snapshot can read.

mod common;

use common::store;
use nereid_storage::{Change, StorageError, Txn};
use nereid_values::{Direction, EntityResolver, NodeId, RelId, Value};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::convert::Infallible;

#[derive(Clone, Debug)]
enum Op {
    CreateNode {
        label: Option<u8>,
        prop: Option<(u8, i64)>,
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
    SetRelProp {
        rel: usize,
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
    /// Garbage collection mid-transaction: frees dead versions and freezes
    /// zones while the transaction (and its uncommitted writes) is live.
    Collect,
    /// Opens a read-only snapshot that stays open across later commits.
    Snapshot,
    /// Closes the oldest open snapshot.
    CloseSnapshot,
}

fn op() -> impl Strategy<Value = Op> {
    let idx = 0usize..8;
    prop_oneof![
        3 => (proptest::option::of(0u8..3), proptest::option::of((0u8..3, -5i64..5)))
            .prop_map(|(label, prop)| Op::CreateNode { label, prop }),
        3 => (idx.clone(), idx.clone(), 0u8..2).prop_map(|(src, dst, ty)| Op::CreateRel { src, dst, ty }),
        2 => (idx.clone(), 0u8..3, proptest::option::of(-5i64..5))
            .prop_map(|(node, key, value)| Op::SetNodeProp { node, key, value }),
        1 => (idx.clone(), 0u8..3, proptest::option::of(-5i64..5))
            .prop_map(|(rel, key, value)| Op::SetRelProp { rel, key, value }),
        1 => (idx.clone(), 0u8..3).prop_map(|(node, label)| Op::AddLabel { node, label }),
        1 => (idx.clone(), 0u8..3).prop_map(|(node, label)| Op::RemoveLabel { node, label }),
        1 => idx.clone().prop_map(|rel| Op::DeleteRel { rel }),
        1 => (idx, any::<bool>()).prop_map(|(node, detach)| Op::DeleteNode { node, detach }),
        1 => Just(Op::Commit),
        1 => Just(Op::Rollback),
        1 => Just(Op::Collect),
        1 => Just(Op::Snapshot),
        1 => Just(Op::CloseSnapshot),
    ]
}

#[derive(Clone, Debug, Default, PartialEq)]
struct Model {
    nodes: BTreeMap<NodeId, (Vec<String>, BTreeMap<String, Value>)>,
    rels: BTreeMap<RelId, (NodeId, NodeId, String, BTreeMap<String, Value>)>,
}

impl Model {
    fn degree(&self, n: NodeId) -> usize {
        self.rels.values().filter(|r| r.0 == n || r.1 == n).count()
    }
}

fn name(prefix: &str, i: u8) -> String {
    format!("{prefix}{i}")
}

fn set(map: &mut BTreeMap<String, Value>, key: String, value: Option<i64>) {
    match value {
        Some(v) => {
            map.insert(key, Value::Int(v));
        }
        None => {
            map.remove(&key);
        }
    }
}

/// Applies `op` to the transaction and the model; both must agree on success.
fn apply(txn: &Txn, model: &mut Model, nodes: &mut Vec<NodeId>, rels: &mut Vec<RelId>, op: &Op) {
    let node_at = |i: usize| nodes.get(i % nodes.len().max(1)).copied();
    let rel_at = |i: usize| rels.get(i % rels.len().max(1)).copied();
    match op {
        Op::CreateNode { label, prop } => {
            let labels: Vec<String> = label.iter().map(|l| name("L", *l)).collect();
            let props: BTreeMap<String, Value> = prop
                .iter()
                .map(|(k, v)| (name("k", *k), Value::Int(*v)))
                .collect();
            let id = txn.create_node(&labels, &props).unwrap();
            model.nodes.insert(id, (labels, props));
            nodes.push(id);
        }
        Op::CreateRel { src, dst, ty } => {
            let (Some(s), Some(d)) = (node_at(*src), node_at(*dst)) else {
                return;
            };
            let result = txn.create_rel(s, d, &name("T", *ty), &BTreeMap::new());
            if model.nodes.contains_key(&s) && model.nodes.contains_key(&d) {
                let id = result.unwrap();
                model
                    .rels
                    .insert(id, (s, d, name("T", *ty), BTreeMap::new()));
                rels.push(id);
            } else {
                assert!(matches!(result, Err(StorageError::EntityNotFound(_))));
            }
        }
        Op::SetNodeProp { node, key, value } => {
            let Some(n) = node_at(*node) else { return };
            let v = value.map(Value::Int).unwrap_or(Value::Null);
            let result = txn.set_node_property(n, &name("k", *key), v);
            match model.nodes.get_mut(&n) {
                Some((_, props)) => {
                    result.unwrap();
                    set(props, name("k", *key), *value);
                }
                None => assert!(result.is_err()),
            }
        }
        Op::SetRelProp { rel, key, value } => {
            let Some(r) = rel_at(*rel) else { return };
            let v = value.map(Value::Int).unwrap_or(Value::Null);
            let result = txn.set_rel_property(r, &name("k", *key), v);
            match model.rels.get_mut(&r) {
                Some(rel) => {
                    result.unwrap();
                    set(&mut rel.3, name("k", *key), *value);
                }
                None => assert!(result.is_err()),
            }
        }
        Op::AddLabel { node, label } | Op::RemoveLabel { node, label } => {
            let Some(n) = node_at(*node) else { return };
            let add = matches!(op, Op::AddLabel { .. });
            let l = name("L", *label);
            let result = if add {
                txn.add_label(n, &l)
            } else {
                txn.remove_label(n, &l)
            };
            match model.nodes.get_mut(&n) {
                Some((labels, _)) => {
                    result.unwrap();
                    if !add {
                        labels.retain(|x| *x != l);
                    } else if !labels.contains(&l) {
                        labels.push(l);
                    }
                }
                None => assert!(result.is_err()),
            }
        }
        Op::DeleteRel { rel } => {
            let Some(r) = rel_at(*rel) else { return };
            let result = txn.delete_rel(r);
            if model.rels.remove(&r).is_some() {
                result.unwrap();
            }
        }
        Op::DeleteNode { node, detach } => {
            let Some(n) = node_at(*node) else { return };
            let result = txn.delete_node(n, *detach);
            if !model.nodes.contains_key(&n) {
                return;
            }
            if model.degree(n) > 0 && !detach {
                assert_eq!(result, Err(StorageError::DeleteConnectedNode(n.external())));
            } else {
                result.unwrap();
                model.nodes.remove(&n);
                model.rels.retain(|_, r| r.0 != n && r.1 != n);
            }
        }
        Op::Commit | Op::Rollback | Op::Collect | Op::Snapshot | Op::CloseSnapshot => {
            unreachable!()
        }
    }
}

/// Reads the whole visible graph through the public API.
fn observe(txn: &Txn) -> Model {
    let mut m = Model::default();
    for n in txn.scan_nodes(None) {
        let data = txn.node(n).expect("scanned nodes resolve");
        // Labels are kept in insertion order, but a removed and re-added
        // label moves to the end in both model and store.
        m.nodes.insert(n, (data.labels, data.properties));
        for (r, other) in txn.expand(n, Direction::Outgoing, &[]) {
            let rel = txn.relationship(r).expect("expanded rels resolve");
            assert_eq!(rel.end, other);
            m.rels
                .insert(r, (rel.start, rel.end, rel.rel_type, rel.properties));
        }
    }
    assert_degrees(txn, &m);
    m
}

/// `Txn::degree` against the graph `observe` read back (so with the
/// transaction's own writes, or a snapshot's older view): by direction and
/// types, a self-loop once in `Both`, as the expand lists them; and
/// `Txn::degree_bound` at least as large.
fn assert_degrees(txn: &Txn, m: &Model) {
    let type_sets: [&[&str]; 4] = [&[], &["T0"], &["T0", "T1"], &["T9"]];
    for &n in m.nodes.keys() {
        for dir in [Direction::Outgoing, Direction::Incoming, Direction::Both] {
            for set in type_sets {
                let types: Vec<String> = set.iter().map(|t| t.to_string()).collect();
                let expected = m
                    .rels
                    .values()
                    .filter(|(start, end, ty, _)| {
                        let touches = match dir {
                            Direction::Outgoing => *start == n,
                            Direction::Incoming => *end == n,
                            Direction::Both => *start == n || *end == n,
                        };
                        touches && (types.is_empty() || types.contains(ty))
                    })
                    .count();
                assert_eq!(
                    txn.degree(n, dir, &types),
                    expected as u64,
                    "{n:?} {dir:?} {types:?}"
                );
                // The bound read from list lengths never falls short.
                assert!(
                    txn.degree_bound(n, dir) >= expected as u64,
                    "{n:?} {dir:?}: bound {} below {expected}",
                    txn.degree_bound(n, dir)
                );
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, .. ProptestConfig::default() })]
    #[test]
    fn random_operations_match_the_model(ops in proptest::collection::vec(op(), 1..60)) {
        let s = store();
        let mut committed = Model::default();
        let mut log: Vec<(u64, Vec<Change>)> = Vec::new();
        let mut nodes = Vec::new();
        let mut rels = Vec::new();
        let mut txn = s.begin();
        let mut working = committed.clone();
        let mut snapshots: Vec<(Txn, Model)> = Vec::new();
        for op in &ops {
            match op {
                Op::Commit => {
                    let ticket = txn.commit(|ts, ch| {
                        log.push((ts, ch.to_vec()));
                        Ok::<(), Infallible>(())
                    }).unwrap();
                    if let Some(t) = ticket { t.publish(); }
                    committed = working.clone();
                    txn = s.begin();
                }
                Op::Rollback => {
                    txn.rollback();
                    working = committed.clone();
                    txn = s.begin();
                }
                Op::Collect => {
                    s.collect_garbage();
                }
                Op::Snapshot => {
                    if snapshots.len() < 3 {
                        snapshots.push((s.begin(), committed.clone()));
                    }
                }
                Op::CloseSnapshot => {
                    if !snapshots.is_empty() {
                        snapshots.remove(0);
                    }
                }
                other => apply(&txn, &mut working, &mut nodes, &mut rels, other),
            }
            prop_assert_eq!(observe(&txn), working.clone());
            // Every open snapshot still sees exactly the state committed
            // when it began, whatever was committed or collected since.
            for (snapshot, expected) in &snapshots {
                prop_assert_eq!(&observe(snapshot), expected);
            }
        }
        drop(txn);
        drop(snapshots);
        s.collect_garbage();
        let fresh = s.begin();
        prop_assert_eq!(observe(&fresh), committed.clone());
        prop_assert_eq!(s.estimate_nodes(None), committed.nodes.len() as u64);

        let replayed = store();
        for (ts, changes) in &log {
            replayed.replay(*ts, changes).unwrap();
        }
        prop_assert_eq!(observe(&replayed.begin()), committed);
    }
}
