//! `Txn::nodes_with_string_property` (the O-index probe the planner's
//! property seek uses) finds exactly what a scan filtered on the property
//! finds: through creates, updates to strings and to other types, removals,
//! label changes, deletes, rollbacks, own uncommitted writes and garbage
//! collection.

mod common;

use common::{commit, labels, store};
use nereid_values::{NodeId, Value};
use proptest::prelude::*;
use std::collections::BTreeSet;

const NAMES: [&str; 3] = ["ann", "bob", "Person"];

#[derive(Clone, Debug)]
enum Step {
    Create { label: Option<bool>, name: u8 },
    Set { node: usize, name: u8 },
    AddLabel { node: usize },
    Delete { node: usize },
    Commit,
    Rollback,
    Collect,
}

/// A name value: one of the strings (one of them also a label's name), an
/// integer, or null (removal).
fn value(name: u8) -> Value {
    match name {
        0..=2 => Value::from(NAMES[name as usize]),
        3 => Value::Int(7),
        _ => Value::Null,
    }
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (proptest::option::of(any::<bool>()), 0u8..5).prop_map(|(label, name)| Step::Create { label, name }),
        3 => (0usize..12, 0u8..5).prop_map(|(node, name)| Step::Set { node, name }),
        1 => (0usize..12).prop_map(|node| Step::AddLabel { node }),
        1 => (0usize..12).prop_map(|node| Step::Delete { node }),
        1 => Just(Step::Commit),
        1 => Just(Step::Rollback),
        1 => Just(Step::Collect),
    ]
}

fn label_name(which: bool) -> &'static str {
    if which {
        "Person"
    } else {
        "Other"
    }
}

proptest! {
    #[test]
    fn the_string_seek_finds_what_the_filtered_scan_finds(steps in proptest::collection::vec(step(), 1..60)) {
        let s = store();
        let mut t = s.begin();
        let mut nodes: Vec<NodeId> = Vec::new();
        for step in steps {
            match step {
                Step::Create { label, name } => {
                    let names = label.map(|l| labels(&[label_name(l)])).unwrap_or_default();
                    let props = match value(name) {
                        Value::Null => common::props(&[]),
                        v => common::props(&[("name", v)]),
                    };
                    nodes.push(t.create_node(&names, &props).unwrap());
                }
                Step::Set { node, name } => {
                    if let Some(&n) = nodes.get(node) {
                        let _ = t.set_node_property(n, "name", value(name));
                    }
                }
                Step::AddLabel { node } => {
                    if let Some(&n) = nodes.get(node) {
                        let _ = t.add_label(n, "Person");
                    }
                }
                Step::Delete { node } => {
                    if let Some(&n) = nodes.get(node) {
                        let _ = t.delete_node(n, true);
                    }
                }
                Step::Commit => {
                    commit(&t).unwrap();
                    t = s.begin();
                }
                Step::Rollback => {
                    t.rollback();
                    t = s.begin();
                }
                Step::Collect => {
                    s.collect_garbage();
                }
            }
            for label in [None, Some("Person"), Some("Other")] {
                for name in NAMES {
                    let found: BTreeSet<NodeId> =
                        t.nodes_with_string_property(label, "name", name).into_iter().collect();
                    let expected: BTreeSet<NodeId> = t
                        .scan_nodes(label)
                        .into_iter()
                        .filter(|&n| t.node_property(n, "name") == Some(Value::from(name)))
                        .collect();
                    prop_assert_eq!(found, expected, "{:?} {}", label, name);
                }
            }
            prop_assert!(t.nodes_with_string_property(None, "nope", "ann").is_empty());
            prop_assert!(t.nodes_with_string_property(None, "name", "never").is_empty());
        }
    }
}
