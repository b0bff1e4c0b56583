//! Full-text indexes in the store: answers equal to analyzing every
//! entity of the labels in the reader's view (a differential test over
//! random writes), own writes seen, snapshots kept, rollbacks leaving
//! nothing, and the same answers after the log is replayed into a new
//! store.

mod common;

use common::{commit, labels, props, store};
use nereid_fulltext::{Analyzer, Doc, Query, Stats};
use nereid_storage::{
    Change, EntityKind, FulltextOptions, IndexDef, IndexKind, StorageError, Store, Txn,
};
use nereid_values::{NodeId, Value};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

const WORDS: [&str; 8] = [
    "graph", "Graphs", "node", "edge", "the", "running", "runs", "cypher",
];

fn index(s: &Arc<Store>, analyzer: Analyzer) {
    let t = s.begin();
    let def = IndexDef {
        name: "ft".into(),
        kind: IndexKind::Fulltext {
            analyzer,
            eventually_consistent: false,
        },
        entity: EntityKind::Node,
        label: "A".into(),
        more_labels: vec!["B".into()],
        keys: vec!["title".into(), "body".into()],
    };
    assert!(t.create_index(def, false).unwrap().is_new());
    commit(&t).unwrap();
    assert!(s.await_indexes(Duration::from_secs(30)));
}

fn hits(t: &Txn, q: &str) -> Vec<u64> {
    t.fulltext_query("ft", EntityKind::Node, q, &FulltextOptions::default())
        .unwrap()
        .into_iter()
        .map(|(id, _)| id)
        .collect()
}

fn set(ids: Vec<u64>) -> BTreeSet<u64> {
    ids.into_iter().collect()
}

/// Statistics no scoring below depends on: only matches are compared.
struct Flat;

impl Stats for Flat {
    fn doc_count(&self, _: &str) -> u64 {
        1
    }
    fn average_length(&self, _: &str) -> f64 {
        1.0
    }
    fn doc_freq(&self, _: &str, _: &str) -> u64 {
        1
    }
}

/// What the index must answer: every node with label A or B whose
/// string values match, found by analyzing them all.
fn brute_force(t: &Txn, analyzer: Analyzer, q: &str) -> BTreeSet<u64> {
    let query = Query::parse(q, analyzer).unwrap();
    let mut nodes: Vec<NodeId> = t.scan_nodes(Some("A"));
    nodes.extend(t.scan_nodes(Some("B")));
    nodes
        .into_iter()
        .filter(|&n| {
            let fields: Vec<_> = ["title", "body"]
                .iter()
                .filter_map(|k| {
                    let text = t.node_property(n, k)?.into_string().ok()?;
                    Some((k.to_string(), analyzer.analyze(&text)))
                })
                .collect();
            query.score(&Doc { fields }, &Flat).is_some()
        })
        .map(|n| n.0)
        .collect()
}

/// A small deterministic generator (xorshift), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }

    fn text(&mut self) -> Value {
        let n = 1 + self.next(4);
        let words: Vec<&str> = (0..n).map(|_| WORDS[self.next(WORDS.len())]).collect();
        Value::from(words.join(" ").as_str())
    }
}

#[test]
fn answers_equal_a_scan_of_the_view_through_random_writes() {
    for analyzer in [Analyzer::StandardNoStopWords, Analyzer::English] {
        let s = store();
        index(&s, analyzer);
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let mut nodes: Vec<NodeId> = Vec::new();
        let queries = [
            "graph",
            "graphs",
            "run*",
            "node AND edge",
            "\"graph node\"",
            "cypher -the",
            "grph~1",
            "title:edge",
            "body:(runs OR running)",
            "*:*",
        ];
        for round in 0..40 {
            let t = s.begin();
            for _ in 0..6 {
                match rng.next(6) {
                    0 | 1 => {
                        let label = ["A", "B", "C"][rng.next(3)];
                        let p = props(&[("title", rng.text()), ("body", rng.text())]);
                        nodes.push(t.create_node(&labels(&[label]), &p).unwrap());
                    }
                    2 if !nodes.is_empty() => {
                        let n = nodes[rng.next(nodes.len())];
                        let key = ["title", "body"][rng.next(2)];
                        let value = if rng.next(4) == 0 {
                            Value::Int(7)
                        } else {
                            rng.text()
                        };
                        let _ = t.set_node_property(n, key, value);
                    }
                    3 if !nodes.is_empty() => {
                        let n = nodes[rng.next(nodes.len())];
                        let _ = t.add_label(n, ["A", "B"][rng.next(2)]);
                    }
                    4 if !nodes.is_empty() => {
                        let n = nodes[rng.next(nodes.len())];
                        let _ = t.remove_label(n, ["A", "B"][rng.next(2)]);
                    }
                    5 if !nodes.is_empty() => {
                        let n = nodes.swap_remove(rng.next(nodes.len()));
                        let _ = t.delete_node(n, true);
                    }
                    _ => {}
                }
            }
            // The writer's own view, then everybody's after commit (or
            // rollback, one round in five).
            for q in queries {
                assert_eq!(
                    set(hits(&t, q)),
                    brute_force(&t, analyzer, q),
                    "{analyzer:?} {q} (own writes)"
                );
            }
            if round % 5 == 4 {
                t.rollback();
            } else {
                commit(&t).unwrap();
            }
            let r = s.begin();
            for q in queries {
                assert_eq!(
                    set(hits(&r, q)),
                    brute_force(&r, analyzer, q),
                    "{analyzer:?} {q}"
                );
            }
        }
    }
}

#[test]
fn snapshots_and_rollbacks() {
    let s = store();
    index(&s, Analyzer::StandardNoStopWords);
    let t = s.begin();
    let a = t
        .create_node(
            &labels(&["A"]),
            &props(&[("title", Value::from("brown fox"))]),
        )
        .unwrap();
    commit(&t).unwrap();
    let reader = s.begin();
    assert_eq!(hits(&reader, "brown"), [a.0]);
    let writer = s.begin();
    writer
        .set_node_property(a, "title", Value::from("red fox"))
        .unwrap();
    let b = writer
        .create_node(
            &labels(&["B"]),
            &props(&[("body", Value::from("brown bear"))]),
        )
        .unwrap();
    assert_eq!(hits(&writer, "brown"), [b.0]);
    assert_eq!(hits(&reader, "brown"), [a.0]);
    commit(&writer).unwrap();
    assert_eq!(hits(&reader, "brown"), [a.0]);
    assert_eq!(hits(&s.begin(), "brown"), [b.0]);
    let undone = s.begin();
    undone
        .set_node_property(b, "body", Value::from("grizzly"))
        .unwrap();
    assert!(hits(&undone, "brown").is_empty());
    undone.rollback();
    assert_eq!(hits(&s.begin(), "brown"), [b.0]);
}

#[test]
fn ranked_by_bm25_and_cut_by_skip_and_limit() {
    let s = store();
    index(&s, Analyzer::StandardNoStopWords);
    let t = s.begin();
    let texts = [
        "graph",
        "graph graph",
        "a graph among many other words here",
        "none",
    ];
    let ids: Vec<u64> = texts
        .iter()
        .map(|x| {
            t.create_node(&labels(&["A"]), &props(&[("title", Value::from(*x))]))
                .unwrap()
                .0
        })
        .collect();
    commit(&t).unwrap();
    let r = s.begin();
    let ranked = r
        .fulltext_query("ft", EntityKind::Node, "graph", &FulltextOptions::default())
        .unwrap();
    assert_eq!(
        ranked.iter().map(|h| h.0).collect::<Vec<_>>(),
        [ids[1], ids[0], ids[2]]
    );
    assert!(ranked.windows(2).all(|w| w[0].1 > w[1].1));
    let cut = FulltextOptions {
        skip: 1,
        limit: Some(1),
        analyzer: None,
    };
    let page = r
        .fulltext_query("ft", EntityKind::Node, "graph", &cut)
        .unwrap();
    assert_eq!(page, ranked[1..2]);
}

#[test]
fn refusals() {
    let s = store();
    index(&s, Analyzer::Standard);
    let t = s.begin();
    let refused = |name: &str, entity, q: &str, analyzer: Option<&str>| {
        let options = FulltextOptions {
            analyzer: analyzer.map(str::to_string),
            ..FulltextOptions::default()
        };
        match t.fulltext_query(name, entity, q, &options) {
            Err(StorageError::FulltextQueryRefused(m)) => m,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(
        refused("nope", EntityKind::Node, "x", None),
        "There is no such fulltext schema index: nope"
    );
    assert!(refused("ft", EntityKind::Relationship, "x", None)
        .contains("is an index on NODE, so it cannot be queried for relationships"));
    assert!(refused("ft", EntityKind::Node, "a AND", None).starts_with("Cannot parse 'a AND': "));
    assert!(refused("ft", EntityKind::Node, "x", Some("klingon")).contains("klingon"));
}

#[test]
fn the_logged_changes_rebuild_the_same_index() {
    let s = store();
    let mut log: Vec<(u64, Vec<Change>)> = Vec::new();
    let t = s.begin();
    let def = IndexDef {
        name: "ft".into(),
        kind: IndexKind::Fulltext {
            analyzer: Analyzer::English,
            eventually_consistent: true,
        },
        entity: EntityKind::Node,
        label: "A".into(),
        more_labels: vec!["B".into()],
        keys: vec!["title".into(), "body".into()],
    };
    t.create_index(def, false).unwrap();
    log.push(commit(&t).unwrap());
    let t = s.begin();
    for (label, text) in [("A", "running graphs"), ("B", "the runner"), ("C", "runs")] {
        t.create_node(&labels(&[label]), &props(&[("body", Value::from(text))]))
            .unwrap();
    }
    log.push(commit(&t).unwrap());
    assert!(s.await_indexes(Duration::from_secs(30)));
    let replayed = store();
    for (ts, changes) in &log {
        replayed.replay(*ts, changes).unwrap();
    }
    replayed.rebuild_indexes();
    assert!(replayed.await_indexes(Duration::from_secs(30)));
    for q in ["run", "graph", "runner", "*:*"] {
        assert_eq!(hits(&s.begin(), q), hits(&replayed.begin(), q), "{q}");
    }
    assert_eq!(hits(&replayed.begin(), "run").len(), 1);
    assert_eq!(replayed.begin().schema().indexes[0].def.more_labels, ["B"]);
}
