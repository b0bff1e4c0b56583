//! A keyed graph load (`Store::bulk_load_graph`): one commit for vertices
//! and edges, ends among the load's own vertices and committed ones, keys
//! interned as element ids, and every refusal leaving nothing behind.

mod common;

use common::{commit, labels, store};
use nereid_storage::{BulkEnd, BulkNode, GraphRel, KeyedNode, StorageError};
use nereid_values::{Direction, Value};
use std::collections::BTreeMap;

const NO_PROPERTIES: &[(&str, Value)] = &[];

type Rel = GraphRel<&'static str, &'static [(&'static str, Value)]>;

fn no_rels() -> Vec<&'static [Rel]> {
    Vec::new()
}

fn keyed<'a>(key: &'a str, props: &'a [(&'a str, Value)]) -> KeyedNode<'a, &'a str> {
    KeyedNode {
        key,
        node: BulkNode {
            labels: &["P"],
            properties: props,
        },
    }
}

#[test]
fn a_graph_load_is_one_commit_with_keyed_vertices() {
    let s = store();
    let old = s.begin();
    let before = old.create_node(&labels(&["P"]), &BTreeMap::new()).unwrap();
    commit(&old).unwrap();
    let reader = s.begin();
    let props = [("name", Value::from("a"))];
    let nodes = [keyed("(P)1", &props), keyed("(P)2", &[])];
    let rels = [
        GraphRel {
            src: BulkEnd::Loaded(0),
            dst: BulkEnd::Loaded(1),
            rel_type: "KNOWS",
            properties: &[("since", Value::Int(2020))][..],
        },
        GraphRel {
            src: BulkEnd::Loaded(1),
            dst: BulkEnd::Existing(before),
            rel_type: "KNOWS",
            properties: NO_PROPERTIES,
        },
    ];
    let mut published_at_hook = 0;
    let loaded = s
        // Two batches with an empty one between them: positions run on
        // (for the vertices as for the edges).
        .bulk_load_graph(
            vec![&nodes[..1], &nodes[..0], &nodes[1..]],
            vec![&rels[..1], &rels[..0], &rels[1..]],
            |ts| {
                published_at_hook = s.visible_ts();
                assert_eq!(published_at_hook, ts);
                Ok::<(), ()>(())
            },
        )
        .unwrap()
        .unwrap();
    assert_eq!(published_at_hook, loaded.commit_ts);
    // A reader from before the load sees none of it.
    assert_eq!(reader.scan_nodes(Some("P")).len(), 1);
    let t = s.begin();
    assert_eq!(t.scan_nodes(Some("P")).len(), 3);
    let first = t.node_by_element_id("(P)1").unwrap();
    assert_eq!(first, loaded.nodes[0]);
    assert_eq!(t.node_property(first, "name"), Some(Value::from("a")));
    assert_eq!(
        t.expand(loaded.nodes[1], Direction::Outgoing, &[]),
        vec![(loaded.rels[1], before)]
    );
    assert_eq!(
        t.rel_property(loaded.rels[0], "since"),
        Some(Value::Int(2020))
    );
}

#[test]
fn taken_or_repeated_keys_and_missing_ends_load_nothing() {
    let s = store();
    let hook = |_| Ok::<(), ()>(());
    s.bulk_load_graph(vec![[keyed("k1", &[])]], no_rels(), hook)
        .unwrap()
        .unwrap();
    let count = |s: &std::sync::Arc<nereid_storage::Store>| s.begin().scan_nodes(None).len();
    let taken = s.bulk_load_graph(vec![[keyed("k2", &[]), keyed("k1", &[])]], no_rels(), hook);
    assert!(matches!(taken, Err(StorageError::ConstraintViolation(_))));
    let repeated = s.bulk_load_graph(
        vec![[keyed("k3", &[])], [keyed("k3", &[])]],
        no_rels(),
        hook,
    );
    assert!(matches!(
        repeated,
        Err(StorageError::ConstraintViolation(_))
    ));
    let dangling = [GraphRel {
        src: BulkEnd::Loaded(0),
        dst: BulkEnd::Loaded(7),
        rel_type: "R",
        properties: NO_PROPERTIES,
    }];
    let missing = s.bulk_load_graph(vec![[keyed("k4", &[])]], vec![&dangling[..]], hook);
    assert!(matches!(missing, Err(StorageError::EntityNotFound(_))));
    assert_eq!(count(&s), 1);
    // A committed end is checked under the commit lock: one deleted since
    // the loader found it fails the load.
    let gone = s.begin();
    let doomed = gone.create_node(&labels(&["P"]), &BTreeMap::new()).unwrap();
    commit(&gone).unwrap();
    let delete = s.begin();
    delete.delete_node(doomed, false).unwrap();
    commit(&delete).unwrap();
    let to_deleted = [GraphRel {
        src: BulkEnd::Loaded(0),
        dst: BulkEnd::Existing(doomed),
        rel_type: "R",
        properties: NO_PROPERTIES,
    }];
    let deleted = s.bulk_load_graph(vec![[keyed("k5", &[])]], vec![&to_deleted[..]], hook);
    assert!(matches!(deleted, Err(StorageError::EntityNotFound(_))));
    assert_eq!(count(&s), 1);
    // Repeats are found whether the repeated key is new to the
    // dictionary or left there by a failed load ("k3"), and whether the
    // first sighting came before or after a reused key ("k6", "k3").
    for keys in [
        &["k3", "k3"][..],
        &["k6", "k3", "k6"],
        &["k7", "k8", "k7", "k3"],
    ] {
        let batch: Vec<_> = keys.iter().map(|k| keyed(k, &[])).collect();
        let repeated = s.bulk_load_graph(vec![batch], no_rels(), hook);
        assert!(
            matches!(repeated, Err(StorageError::ConstraintViolation(_))),
            "{keys:?}"
        );
    }
    assert_eq!(count(&s), 1);
    // A key a failed load interned is free for the next one.
    s.bulk_load_graph(vec![[keyed("k2", &[])]], no_rels(), hook)
        .unwrap()
        .unwrap();
    assert_eq!(count(&s), 2);
    assert!(s.begin().node_by_element_id("k2").is_some());
}

/// The edges of a graph load are reordered per cell (by type, source and
/// target) before they are appended: every edge must still get the id
/// that names its own ends, type and properties, in input order, across
/// cells, chunks and batches, and expand to exactly its own edges.
#[test]
fn reordered_edges_keep_their_input_ids_ends_types_and_properties() {
    let s = store();
    let keys: Vec<String> = (0..300).map(|i| format!("(P){i}")).collect();
    let nodes: Vec<KeyedNode<'_, &str>> = keys.iter().map(|k| keyed(k, &[])).collect();
    let types = ["A", "B", "C"];
    let mut seed = 7u64;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize % n
    };
    let props: Vec<[(&str, Value); 1]> = (0..5000).map(|i| [("i", Value::Int(i))]).collect();
    let rels: Vec<GraphRel<&str, &[(&str, Value)]>> = props
        .iter()
        .map(|p| GraphRel {
            src: BulkEnd::Loaded(next(300)),
            dst: BulkEnd::Loaded(next(300)),
            rel_type: types[next(3)],
            properties: &p[..],
        })
        .collect();
    let loaded = s
        .bulk_load_graph(
            vec![&nodes[..100], &nodes[100..]],
            vec![&rels[..1234], &rels[1234..]],
            |_| Ok::<(), ()>(()),
        )
        .unwrap()
        .unwrap();
    let t = s.begin();
    let position = |end: BulkEnd| match end {
        BulkEnd::Loaded(i) => loaded.nodes[i],
        BulkEnd::Existing(id) => id,
    };
    for (i, rel) in rels.iter().enumerate() {
        let id = loaded.rels[i];
        let (src, dst, rel_type) = t.rel_endpoints(id).unwrap();
        assert_eq!(
            (src, dst, rel_type.as_str()),
            (position(rel.src), position(rel.dst), rel.rel_type)
        );
        assert_eq!(t.rel_property(id, "i"), Some(Value::Int(i as i64)));
    }
    for &node in &loaded.nodes {
        for rel_type in types {
            let out = t.expand(node, Direction::Outgoing, &[rel_type.to_string()]);
            let mut expected: Vec<_> = rels
                .iter()
                .enumerate()
                .filter(|(_, r)| position(r.src) == node && r.rel_type == rel_type)
                .map(|(i, r)| (loaded.rels[i], position(r.dst)))
                .collect();
            let mut got = out;
            got.sort();
            expected.sort();
            assert_eq!(got, expected);
        }
    }
}

/// A load of several chunks of keys and edges is staged on more than one
/// thread (keys interned beside the properties' encoding, edges in
/// ranges): a refusal found late, by any of them, still loads nothing,
/// and a load that passes counts every vertex and edge once.
#[test]
fn refusals_found_by_any_staging_thread_load_nothing() {
    let s = store();
    let hook = |_| Ok::<(), ()>(());
    let count = |s: &std::sync::Arc<nereid_storage::Store>| {
        let t = s.begin();
        let nodes = t.scan_nodes(None).len() as u64;
        (nodes, t.count_nodes(None), t.count_rels(None))
    };
    let keys: Vec<String> = (0..3000).map(|i| format!("v{i}")).collect();
    let mut nodes: Vec<KeyedNode<'_, &str>> = keys.iter().map(|k| keyed(k, &[])).collect();
    // A repeat in the third chunk of keys.
    nodes[2500] = keyed("v17", &[]);
    let repeated = s.bulk_load_graph(vec![&nodes[..]], no_rels(), hook);
    assert!(matches!(
        repeated,
        Err(StorageError::ConstraintViolation(_))
    ));
    assert_eq!(count(&s), (0, 0, 0));
    // A value the store cannot hold, in the second chunk of encodings.
    let unstorable = [("m", Value::Map(Default::default()))];
    nodes[2500] = keyed(&keys[2500], &[]);
    nodes[1500] = keyed(&keys[1500], &unstorable);
    let refused = s.bulk_load_graph(vec![&nodes[..]], no_rels(), hook);
    assert!(matches!(refused, Err(StorageError::UnstorableValue(_))));
    assert_eq!(count(&s), (0, 0, 0));
    // Both in one chunk: the keys' error is the load's (a chunk's keys
    // come first, as on one thread).
    nodes[1600] = keyed("v17", &[]);
    let both = s.bulk_load_graph(vec![&nodes[..]], no_rels(), hook);
    assert!(matches!(both, Err(StorageError::ConstraintViolation(_))));
    nodes[1500] = keyed(&keys[1500], &[]);
    nodes[1600] = keyed(&keys[1600], &[]);
    let since = [("since", Value::Int(1))];
    let mut rels: Vec<GraphRel<&str, &[(&str, Value)]>> = (0..5000)
        .map(|i| GraphRel {
            src: BulkEnd::Loaded(i % 3000),
            dst: BulkEnd::Loaded((i * 7) % 3000),
            rel_type: if i % 2 == 0 { "A" } else { "B" },
            properties: &since[..],
        })
        .collect();
    // A missing end in the last range of edges.
    rels[4900].dst = BulkEnd::Loaded(3000);
    let missing = s.bulk_load_graph(vec![&nodes[..]], vec![&rels[..]], hook);
    assert!(matches!(missing, Err(StorageError::EntityNotFound(_))));
    assert_eq!(count(&s), (0, 0, 0));
    rels[4900].dst = BulkEnd::Loaded(0);
    let loaded = s
        .bulk_load_graph(vec![&nodes[..]], vec![&rels[..]], hook)
        .unwrap()
        .unwrap();
    assert_eq!(count(&s), (3000, 3000, 5000));
    let t = s.begin();
    assert_eq!(t.node_by_element_id("v2999"), Some(loaded.nodes[2999]));
    assert_eq!(
        t.rel_property(loaded.rels[4999], "since"),
        Some(Value::Int(1))
    );
    let (src, dst, rel_type) = t.rel_endpoints(loaded.rels[4900]).unwrap();
    assert_eq!((src, dst), (loaded.nodes[1900], loaded.nodes[0]));
    assert_eq!(rel_type, "A");
}
