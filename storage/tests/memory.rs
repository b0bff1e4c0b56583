//! `Store::memory_usage`: each part grows with what is stored in it, and
//! the index part is the indexes' own figures.

mod common;

use common::{commit, labels, person_index, props, store};
use nereid_storage::{IndexKind, MemoryUsage, Store};
use nereid_values::Value;
use std::sync::Arc;

/// `count` people from number `from` on, each with an id, a name and a
/// KNOWS relationship to the previous one of the batch, in one commit.
fn people(s: &Arc<Store>, from: i64, count: i64) {
    let t = s.begin();
    let mut previous = None;
    for i in from..from + count {
        let node = t
            .create_node(
                &labels(&["Person"]),
                &props(&[
                    ("id", Value::Int(i)),
                    ("name", Value::from(format!("person number {i}"))),
                ]),
            )
            .unwrap();
        if let Some(previous) = previous {
            t.create_rel(previous, node, "KNOWS", &props(&[("since", Value::Int(i))]))
                .unwrap();
        }
        previous = Some(node);
    }
    commit(&t).unwrap();
}

/// The parts that hold a graph's data (no index is defined at first).
const DATA_PARTS: &[&str] = &["relations", "adjacency", "dictionaries", "statistics"];

fn grew(before: MemoryUsage, after: MemoryUsage, parts: &[&str]) {
    for ((name, old), (_, new)) in before.parts().into_iter().zip(after.parts()) {
        if parts.contains(&name) {
            assert!(new > old, "{name}: {old} -> {new}");
        }
    }
}

#[test]
fn every_part_grows_with_what_it_holds() {
    let s = store();
    let empty = s.memory_usage();
    assert_eq!(empty.indexes, 0);
    assert_eq!(empty.statistics, 0);
    assert_eq!(
        empty.total(),
        empty.parts().iter().map(|(_, b)| b).sum::<u64>()
    );

    people(&s, 0, 3000);
    let loaded = s.memory_usage();
    grew(empty, loaded, DATA_PARTS);
    // 3000 nodes and 2999 relationships are some 15,000 tuples of at
    // least a dozen bytes each.
    assert!(loaded.relations >= 15_000 * 12, "{loaded:?}");

    people(&s, 3000, 3000);
    let more = s.memory_usage();
    grew(loaded, more, DATA_PARTS);
    assert_eq!(more.indexes, 0);

    person_index(&s, "by_id", &["id"], IndexKind::Range);
    person_index(&s, "by_name", &["name"], IndexKind::Text);
    let indexed = s.memory_usage();
    grew(more, indexed, &["indexes"]);
    let own: usize = ["by_id", "by_name"]
        .iter()
        .map(|name| s.index_memory(name).unwrap().1)
        .sum();
    assert_eq!(indexed.indexes, own as u64);

    people(&s, 6000, 1000);
    grew(indexed, s.memory_usage(), &["indexes", "relations"]);
}

#[test]
fn a_vector_index_counts_its_graph() {
    let s = store();
    person_index(
        &s,
        "embedding",
        &["v"],
        IndexKind::Vector {
            dimensions: Some(4),
            similarity: nereid_vector::Similarity::Euclidean,
        },
    );
    let before = s.memory_usage().indexes;
    let t = s.begin();
    for i in 0..200 {
        let v = [i as f64, 1.0, 0.5, 2.0].map(Value::Float);
        let v = Value::List(v.to_vec().into());
        t.create_node(&labels(&["Person"]), &props(&[("v", v)]))
            .unwrap();
    }
    commit(&t).unwrap();
    let after = s.memory_usage().indexes;
    // Each point keeps at least its four floats.
    assert!(after >= before + 200 * 16, "{before} -> {after}");
}

#[test]
fn rebuilt_statistics_are_counted_again() {
    let s = store();
    people(&s, 0, 500);
    let kept = s.memory_usage().statistics;
    assert!(kept > 0);
    s.rebuild_statistics();
    let rebuilt = s.memory_usage().statistics;
    assert!(rebuilt > 0);
}
