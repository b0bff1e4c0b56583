//! Label tests through the partitions' label bits (ADR 0183): the bits
//! only rule nodes out, so every snapshot still sees exactly the labels its
//! stamps give it, whatever was added, removed, rolled back, collected or
//! bulk loaded around it.

mod common;

use common::{commit, labels, props, store};
use nereid_storage::{BulkNode, Txn};
use nereid_values::{NodeId, Value};

/// The label column of `nodes` and, row by row, the point test: they must
/// agree, and the column is what the caller expects.
fn column(t: &Txn, nodes: &[NodeId], label: &str) -> Vec<bool> {
    let column = t.node_has_label_column(nodes, label);
    let points: Vec<bool> = nodes.iter().map(|&n| t.node_has_label(n, label)).collect();
    assert_eq!(column, points, "column against point tests, label {label}");
    column
}

#[test]
fn each_snapshot_sees_the_labels_of_its_own_stamps() {
    let s = store();
    let setup = s.begin();
    let post = setup.create_node(&labels(&["Post"]), &props(&[])).unwrap();
    let comment = setup
        .create_node(&labels(&["Comment"]), &props(&[]))
        .unwrap();
    let bare = setup.create_node(&[], &props(&[])).unwrap();
    commit(&setup).unwrap();
    let nodes = [post, comment, bare];
    let old = s.begin();

    // A writer moves Post from one node to another and gives a label no
    // node had before ("Fresh": absent from the bits until now).
    let w = s.begin();
    w.remove_label(post, "Post").unwrap();
    w.add_label(comment, "Post").unwrap();
    w.add_label(bare, "Fresh").unwrap();
    // Its own writes are visible to it at once...
    assert_eq!(column(&w, &nodes, "Post"), [false, true, false]);
    assert_eq!(column(&w, &nodes, "Fresh"), [false, false, true]);
    // ...and to no one else before it commits.
    let during = s.begin();
    for t in [&old, &during] {
        assert_eq!(column(t, &nodes, "Post"), [true, false, false]);
        assert_eq!(column(t, &nodes, "Fresh"), [false, false, false]);
    }
    commit(&w).unwrap();
    let new = s.begin();
    assert_eq!(column(&new, &nodes, "Post"), [false, true, false]);
    assert_eq!(column(&new, &nodes, "Fresh"), [false, false, true]);
    // The older snapshots keep what they saw: the removed label (its bit
    // still set) and not the added ones.
    for t in [&old, &during] {
        assert_eq!(column(t, &nodes, "Post"), [true, false, false]);
        assert_eq!(column(t, &nodes, "Fresh"), [false, false, false]);
    }

    // A rolled-back label leaves its bit set and is seen by no one.
    let r = s.begin();
    r.add_label(bare, "Post").unwrap();
    r.add_label(post, "Rolled").unwrap();
    assert_eq!(column(&r, &nodes, "Post"), [false, true, true]);
    r.rollback();
    let after = s.begin();
    assert_eq!(column(&after, &nodes, "Post"), [false, true, false]);
    assert_eq!(column(&after, &nodes, "Rolled"), [false, false, false]);

    // Collected versions leave the bits as they were; answers stay exact.
    drop((old, during, new, after));
    s.collect_garbage();
    let late = s.begin();
    assert_eq!(column(&late, &nodes, "Post"), [false, true, false]);
    assert_eq!(column(&late, &nodes, "Comment"), [false, true, false]);
    assert_eq!(column(&late, &nodes, "Rolled"), [false, false, false]);
    // Adding back a label removed before: the bit was never cleared.
    let back = s.begin();
    back.add_label(post, "Post").unwrap();
    commit(&back).unwrap();
    assert_eq!(column(&s.begin(), &nodes, "Post"), [true, true, false]);
    assert_eq!(column(&late, &nodes, "Post"), [false, true, false]);
}

/// More labels than a partition tracks (64): the later ones are never
/// ruled out, so they are probed as before; every label, tracked or not,
/// reads what was written.
#[test]
fn labels_past_what_the_bits_track_still_read_exactly() {
    let s = store();
    let names: Vec<String> = (0..100).map(|i| format!("L{i}")).collect();
    let t = s.begin();
    let nodes: Vec<NodeId> = (0..400)
        .map(|i| {
            t.create_node(
                &[names[i % 100].clone()],
                &props(&[("i", Value::Int(i as i64))]),
            )
            .unwrap()
        })
        .collect();
    commit(&t).unwrap();
    let r = s.begin();
    for (l, name) in names.iter().enumerate() {
        let expected: Vec<bool> = (0..400).map(|i| i % 100 == l).collect();
        assert_eq!(column(&r, &nodes, name), expected, "{name}");
    }
    assert_eq!(column(&r, &nodes, "Missing"), vec![false; 400]);
}

/// A bulk load enters its labels into the bits as a transaction does, and
/// a snapshot from before the load sees none of them.
#[test]
fn bulk_loaded_labels_are_in_the_bits_and_invisible_before_the_load() {
    let s = store();
    let before = s.begin();
    let nodes: Vec<BulkNode<'_>> = (0..3000)
        .map(|i| BulkNode {
            labels: if i % 3 == 0 {
                &["Post", "Message"]
            } else {
                &["Comment"]
            },
            properties: &[],
        })
        .collect();
    let ids = s.bulk_load_nodes(&nodes).unwrap();
    let after = s.begin();
    let posts: Vec<bool> = (0..3000).map(|i| i % 3 == 0).collect();
    let comments: Vec<bool> = posts.iter().map(|p| !p).collect();
    assert_eq!(column(&after, &ids, "Post"), posts);
    assert_eq!(column(&after, &ids, "Message"), posts);
    assert_eq!(column(&after, &ids, "Comment"), comments);
    assert_eq!(column(&before, &ids, "Post"), vec![false; 3000]);
    assert_eq!(column(&before, &ids, "Comment"), vec![false; 3000]);
}

/// Readers beside a writer that keeps adding, moving and removing labels:
/// in every snapshot the label column equals what the node's own tuples
/// say (`node_labels`, which reads them all and never the bits), and a
/// snapshot's answers do not change while the writer goes on.
#[test]
fn readers_beside_a_writer_see_exactly_their_snapshot() {
    use std::sync::{Arc, Mutex};
    let s = store();
    let nodes: Arc<Mutex<Vec<NodeId>>> = Arc::default();
    let writer = {
        let (s, nodes) = (Arc::clone(&s), Arc::clone(&nodes));
        std::thread::spawn(move || {
            for round in 0..150usize {
                let t = s.begin();
                let made: Vec<NodeId> = (0..10)
                    .map(|i| {
                        let name = ["A", "B", "C"][(round + i) % 3];
                        t.create_node(&labels(&[name]), &props(&[])).unwrap()
                    })
                    .collect();
                let known = nodes.lock().unwrap().clone();
                for (k, &n) in known.iter().enumerate().skip(round % 7).step_by(13) {
                    if k % 2 == 0 {
                        t.add_label(n, "A").unwrap();
                        t.remove_label(n, "B").unwrap();
                    } else {
                        t.remove_label(n, "A").unwrap();
                        t.add_label(n, "D").unwrap();
                    }
                }
                commit(&t).unwrap();
                nodes.lock().unwrap().extend(made);
            }
        })
    };
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let (s, nodes) = (Arc::clone(&s), Arc::clone(&nodes));
            std::thread::spawn(move || {
                for _ in 0..60 {
                    let r = s.begin();
                    let known = nodes.lock().unwrap().clone();
                    let first: Vec<Vec<bool>> = ["A", "B", "C", "D"]
                        .iter()
                        .map(|label| {
                            let col = column(&r, &known, label);
                            let own: Vec<bool> = known
                                .iter()
                                .map(|&n| r.node_labels(n).iter().any(|l| l == label))
                                .collect();
                            assert_eq!(col, own, "label {label}");
                            col
                        })
                        .collect();
                    std::thread::yield_now();
                    for (label, before) in ["A", "B", "C", "D"].iter().zip(&first) {
                        assert_eq!(&r.node_has_label_column(&known, label), before);
                    }
                }
            })
        })
        .collect();
    writer.join().unwrap();
    for reader in readers {
        reader.join().unwrap();
    }
}
