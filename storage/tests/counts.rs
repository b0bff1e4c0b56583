//! Property test of the count store: with several transactions open at
//! once (each at its own snapshot, each with its own uncommitted writes),
//! interleaved commits, rollbacks and garbage collections, every
//! transaction's `count_nodes` / `count_rels` equals what a scan of its own
//! view counts.

mod common;

use common::{commit, labels, store};
use nereid_storage::apl::{AccessMode, EdgePattern, Endpoint, ModeChoice};
use nereid_storage::{Store, Txn, WaitLimits};
use nereid_values::{Direction, NodeId};
use proptest::prelude::*;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

const LABELS: [&str; 3] = ["A", "B", "C"];
const TYPES: [&str; 2] = ["T", "U"];

#[derive(Clone, Debug)]
enum Step {
    Begin,
    CreateNode {
        txn: usize,
        label: Option<usize>,
    },
    AddLabel {
        txn: usize,
        node: usize,
        label: usize,
    },
    RemoveLabel {
        txn: usize,
        node: usize,
        label: usize,
    },
    DeleteNode {
        txn: usize,
        node: usize,
    },
    CreateRel {
        txn: usize,
        src: usize,
        dst: usize,
        ty: usize,
    },
    DeleteRel {
        txn: usize,
        node: usize,
    },
    Commit {
        txn: usize,
    },
    Rollback {
        txn: usize,
    },
    CollectGarbage,
}

fn step() -> impl Strategy<Value = Step> {
    let txn = 0usize..4;
    let node = 0usize..6;
    prop_oneof![
        2 => Just(Step::Begin),
        4 => (txn.clone(), proptest::option::of(0usize..3))
            .prop_map(|(txn, label)| Step::CreateNode { txn, label }),
        2 => (txn.clone(), node.clone(), 0usize..3)
            .prop_map(|(txn, node, label)| Step::AddLabel { txn, node, label }),
        1 => (txn.clone(), node.clone(), 0usize..3)
            .prop_map(|(txn, node, label)| Step::RemoveLabel { txn, node, label }),
        1 => (txn.clone(), node.clone()).prop_map(|(txn, node)| Step::DeleteNode { txn, node }),
        3 => (txn.clone(), node.clone(), node.clone(), 0usize..2)
            .prop_map(|(txn, src, dst, ty)| Step::CreateRel { txn, src, dst, ty }),
        1 => (txn.clone(), node).prop_map(|(txn, node)| Step::DeleteRel { txn, node }),
        2 => txn.clone().prop_map(|txn| Step::Commit { txn }),
        1 => txn.prop_map(|txn| Step::Rollback { txn }),
        1 => Just(Step::CollectGarbage),
    ]
}

/// The `i`-th node `txn` sees (modulo their number), if it sees any.
fn pick(txn: &Txn, i: usize) -> Option<NodeId> {
    let mut nodes = txn.scan_nodes(None);
    nodes.sort();
    (!nodes.is_empty()).then(|| nodes[i % nodes.len()])
}

fn apply(store: &Arc<Store>, open: &mut Vec<Txn>, step: &Step) {
    let at = |i: usize, open: &Vec<Txn>| (!open.is_empty()).then(|| i % open.len());
    let none = BTreeMap::new();
    // Write errors (conflicts, missing entities) are part of the game: a
    // doomed transaction's counts must still match its view.
    match *step {
        Step::Begin => {
            // One thread interleaves the transactions: a write that would
            // wait for another one fails at once instead.
            let txn = store.begin();
            txn.set_wait_limits(WaitLimits {
                deadline: Some(Instant::now()),
                stop: None,
            });
            open.push(txn);
        }
        Step::CreateNode { txn, label } => {
            if let Some(t) = at(txn, open) {
                let names = label.map(|l| labels(&[LABELS[l]])).unwrap_or_default();
                let _ = open[t].create_node(&names, &none);
            }
        }
        Step::AddLabel { txn, node, label } => {
            if let Some(t) = at(txn, open) {
                if let Some(n) = pick(&open[t], node) {
                    let _ = open[t].add_label(n, LABELS[label]);
                }
            }
        }
        Step::RemoveLabel { txn, node, label } => {
            if let Some(t) = at(txn, open) {
                if let Some(n) = pick(&open[t], node) {
                    let _ = open[t].remove_label(n, LABELS[label]);
                }
            }
        }
        Step::DeleteNode { txn, node } => {
            if let Some(t) = at(txn, open) {
                if let Some(n) = pick(&open[t], node) {
                    let _ = open[t].delete_node(n, true);
                }
            }
        }
        Step::CreateRel { txn, src, dst, ty } => {
            if let Some(t) = at(txn, open) {
                if let (Some(a), Some(b)) = (pick(&open[t], src), pick(&open[t], dst)) {
                    let _ = open[t].create_rel(a, b, TYPES[ty], &none);
                }
            }
        }
        Step::DeleteRel { txn, node } => {
            if let Some(t) = at(txn, open) {
                if let Some(n) = pick(&open[t], node) {
                    let rels = open[t].expand(n, Direction::Both, &[]);
                    if let Some((rel, _)) = rels.first() {
                        let _ = open[t].delete_rel(*rel);
                    }
                }
            }
        }
        Step::Commit { txn } => {
            if let Some(t) = at(txn, open) {
                let _ = commit(&open.remove(t));
            }
        }
        Step::Rollback { txn } => {
            if let Some(t) = at(txn, open) {
                open.remove(t).rollback();
            }
        }
        Step::CollectGarbage => {
            store.collect_garbage();
        }
    }
}

/// Every count `txn` answers against a scan of its view.
fn check(txn: &Txn) -> Result<(), TestCaseError> {
    prop_assert_eq!(txn.count_nodes(None), txn.scan_nodes(None).len() as u64);
    for label in LABELS {
        let scanned = txn.scan_nodes(Some(label)).len() as u64;
        prop_assert_eq!(txn.count_nodes(Some(label)), scanned, "label {}", label);
    }
    prop_assert_eq!(txn.count_nodes(Some("Missing")), 0);
    // Relationships are counted against a relation scan of REL_E in the
    // transaction's view, not by expanding visible nodes: a transaction
    // that deleted a node but not its relationships (it will fail at
    // commit) still sees those relationships, whose endpoint it no longer
    // sees.
    let outgoing = |types: &[String]| -> u64 {
        let pattern = EdgePattern {
            src: Endpoint::Any,
            types,
            dst: Endpoint::Any,
        };
        let scan = ModeChoice::Force(AccessMode::RelationScan);
        let mut n = 0;
        txn.apl().edges(&pattern, None, scan, |_| n += 1);
        n
    };
    prop_assert_eq!(txn.count_rels(None), outgoing(&[]));
    for ty in TYPES {
        prop_assert_eq!(
            txn.count_rels(Some(ty)),
            outgoing(&[ty.to_string()]),
            "type {}",
            ty
        );
    }
    prop_assert_eq!(txn.count_rels(Some("Missing")), 0);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn every_snapshot_counts_what_it_scans(steps in proptest::collection::vec(step(), 1..60)) {
        let store = store();
        let mut open: Vec<Txn> = Vec::new();
        for step in &steps {
            apply(&store, &mut open, step);
            for txn in &open {
                check(txn)?;
            }
            check(&store.begin())?;
        }
    }
}

#[test]
fn a_committed_transaction_keeps_counting_its_own_writes() {
    let store = store();
    let txn = store.begin();
    txn.create_node(&labels(&["A"]), &BTreeMap::new())
        .expect("create");
    let other = store.begin();
    other
        .create_node(&labels(&["A"]), &BTreeMap::new())
        .expect("create");
    commit(&other).expect("commit");
    assert_eq!(txn.count_nodes(Some("A")), 1, "own write, not the other's");
    commit(&txn).expect("commit");
    assert_eq!(
        txn.count_nodes(Some("A")),
        1,
        "after commit, still its view"
    );
    assert_eq!(store.begin().count_nodes(Some("A")), 2);
    assert_eq!(store.estimate_nodes(Some("A")), 2);
}
