//! Readers run without the partition lock, relation scans (ADR 0078) and
//! index reads (ADR 0080) alike, beside a writer that inserts, deletes,
//! bulk loads and collects garbage (which freezes zones, frees slots and
//! reuses them, makes zones change shape by being replaced, rewrites
//! index lists, compacts arenas and switches the edge properties' S index
//! from its sorted form). Every reader must still see exactly its
//! snapshot: the edge count and the count of edges passing a property
//! test that the writer recorded for the last commit at or before its
//! read timestamp, whether it scans the relation, expands the S or the O
//! index from every node, or reads each edge's property through the
//! I and S indexes of edge properties. Counted, not timed.

mod common;

use common::{commit, store};
use nereid_storage::apl::{AccessMode, Comparison, EdgePattern, Endpoint, ModeChoice, ValueTest};
use nereid_storage::{BulkRel, Store};
use nereid_values::{NodeId, RelId, Value};
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// Edges whose `w` exceeds this pass the scans' property test.
const THRESHOLD: i64 = 1_000;

/// `(edges, edges with w > THRESHOLD)` as of each commit.
type Expected = Mutex<BTreeMap<u64, (u64, u64)>>;

/// A `w` that varies the columns' forms: small and large integers, a
/// float and a string (wide O payloads, several type flags, hints).
fn weight(i: u64) -> Value {
    match i % 5 {
        0 => Value::Int(i as i64 % 2_000),
        1 => Value::Int(-(1 << 40) - i as i64),
        2 => Value::Float(i as f64),
        3 => Value::String(format!("w{i}")),
        _ => Value::Int(THRESHOLD + 1 + i as i64),
    }
}

fn passes(w: &Value) -> bool {
    matches!(w, Value::Int(v) if *v > THRESHOLD)
}

fn writer(s: &Arc<Store>, expected: &Expected, shared: &OnceLock<Vec<NodeId>>, rounds: u64) {
    let t = s.begin();
    let nodes: Vec<_> = (0..64)
        .map(|_| t.create_node(&[], &BTreeMap::new()).unwrap())
        .collect();
    let (ts, _) = commit(&t).unwrap();
    drop(t);
    shared.set(nodes.clone()).unwrap();
    expected.lock().insert(ts, (0, 0));
    let mut live: Vec<(RelId, bool)> = Vec::new();
    let mut next = 0u64;
    for round in 0..rounds {
        let ts = if round % 25 == 24 {
            let weights: Vec<Value> = (0..300).map(|k| weight(next + k)).collect();
            let props: Vec<[(&str, Value); 1]> =
                weights.iter().map(|w| [("w", w.clone())]).collect();
            let rels: Vec<BulkRel<'_>> = (0..300usize)
                .map(|k| BulkRel {
                    src: nodes[(next as usize + k) % 64],
                    dst: nodes[(next as usize * 7 + k) % 64],
                    rel_type: if k % 2 == 0 { "R" } else { "S" },
                    properties: &props[k],
                })
                .collect();
            next += 300;
            let created = s.bulk_load_rels(&rels).unwrap();
            live.extend(created.into_iter().zip(weights.iter().map(passes)));
            // The only writer: the last commit is the load's.
            s.visible_ts()
        } else {
            let t = s.begin();
            for k in 0..40u64 {
                let w = weight(next);
                let src = nodes[(next % 64) as usize];
                let dst = nodes[((next * 13 + k) % 64) as usize];
                let ty = if next.is_multiple_of(3) { "S" } else { "R" };
                let props = BTreeMap::from([("w".to_string(), w.clone())]);
                let rel = t.create_rel(src, dst, ty, &props).unwrap();
                live.push((rel, passes(&w)));
                next += 1;
            }
            // Delete about as many as were created, from everywhere.
            for k in 0..38usize {
                let at = (round as usize * 31 + k * 17) % live.len();
                let (rel, _) = live.swap_remove(at);
                t.delete_rel(rel).unwrap();
            }
            commit(&t).unwrap().0
        };
        let passing = live.iter().filter(|(_, p)| *p).count() as u64;
        expected.lock().insert(ts, (live.len() as u64, passing));
        if round % 7 == 6 {
            s.collect_garbage();
        }
    }
}

fn scan(
    s: &Arc<Store>,
    expected: &Expected,
    nodes: &OnceLock<Vec<NodeId>>,
    done: &AtomicBool,
) -> u64 {
    let mut checked = 0;
    let types = ["R".to_string(), "S".to_string()];
    while !done.load(Ordering::Acquire) {
        let t = s.begin();
        let read_ts = t.read_ts();
        let apl = t.apl();
        let pattern = EdgePattern {
            src: Endpoint::Any,
            types: &types,
            dst: Endpoint::Any,
        };
        let mut edges = 0;
        apl.edges(
            &pattern,
            None,
            ModeChoice::Force(AccessMode::RelationScan),
            |_| edges += 1,
        );
        let mut passing = 0;
        let fast = ValueTest::Int(Comparison::Greater, THRESHOLD);
        apl.edges_with_property(&types, "w", Some(fast), passes_ref, |_| passing += 1);
        // The same through the indexes: from every node by S, into every
        // node by O, and each edge's property by its statement id.
        let indexed = nodes.get().map(|nodes| {
            let all = apl.vertex_set_of(nodes.iter().copied());
            let mut rels = Vec::new();
            let from = EdgePattern {
                src: Endpoint::In(&all),
                types: &types,
                dst: Endpoint::Any,
            };
            let index = ModeChoice::Force(AccessMode::IndexScan);
            apl.edges(&from, None, index, |e| rels.push(e.rel));
            let mut into = 0;
            let to = EdgePattern {
                src: Endpoint::Any,
                types: &types,
                dst: Endpoint::In(&all),
            };
            apl.edges(&to, None, index, |_| into += 1);
            let passing = rels
                .iter()
                .filter(|&&rel| t.rel_property(rel, "w").is_some_and(|w| passes(&w)))
                .count() as u64;
            (rels.len() as u64, into, passing)
        });
        // The writer records a commit just after making it.
        let want = loop {
            let map = expected.lock();
            if map.keys().next_back().is_some_and(|&last| last >= read_ts)
                || done.load(Ordering::Acquire)
            {
                break map.range(..=read_ts).next_back().map(|(_, &v)| v);
            }
            drop(map);
            std::thread::yield_now();
        };
        if let Some(want) = want {
            assert_eq!((edges, passing), want, "snapshot {read_ts}");
            if let Some((from, into, passing)) = indexed {
                assert_eq!((from, passing), want, "by S, snapshot {read_ts}");
                assert_eq!(into, want.0, "by O, snapshot {read_ts}");
            }
            checked += 1;
        }
    }
    checked
}

fn passes_ref(w: &Value) -> bool {
    passes(w)
}

#[test]
fn scans_beside_a_writer_see_exactly_their_snapshot() {
    let s = store();
    let expected: Expected = Mutex::new(BTreeMap::new());
    let done = AtomicBool::new(false);
    let nodes = OnceLock::new();
    let checked = std::thread::scope(|scope| {
        let readers: Vec<_> = (0..2)
            .map(|_| scope.spawn(|| scan(&s, &expected, &nodes, &done)))
            .collect();
        writer(&s, &expected, &nodes, 400);
        done.store(true, Ordering::Release);
        readers.into_iter().map(|r| r.join().unwrap()).sum::<u64>()
    });
    assert!(checked > 0, "no scan was checked");
    let (frozen, _) = s.zone_states();
    assert!(frozen > 0, "collection froze zones while scans ran");
}
