//! The access-pattern layer against a simple model: index scans, relation
//! scans and the automatic choice return exactly the visible edges matching
//! random patterns (committed, deleted, and the transaction's own
//! uncommitted writes); LIMIT returns a prefix-sized subset; sampling
//! estimates are exact when the sample covers everything; BFS reaches what
//! a plain BFS over `Txn::expand` reaches; `Txn::expand_into` (the sorted
//! adjacency's binary search) finds what filtering `Txn::expand` finds.

mod common;

use common::{commit, labels, store};
use nereid_storage::apl::{AccessMode, EdgeMatch, EdgePattern, Endpoint, ModeChoice};
use nereid_storage::{BulkRel, Txn};
use nereid_values::{Direction, NodeId, RelId};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet, HashSet, VecDeque};

const TYPES: [&str; 3] = ["A", "B", "C"];

/// Source node indexes (None = unbound), type indexes (3 = a type that
/// does not exist), target node indexes, LIMIT.
type PatternSpec = (
    Option<Vec<usize>>,
    Vec<usize>,
    Option<Vec<usize>>,
    Option<u64>,
);

#[derive(Clone, Debug)]
struct Case {
    nodes: usize,
    committed: Vec<(usize, usize, usize)>,
    deleted: Vec<usize>,
    own: Vec<(usize, usize, usize)>,
    own_deleted: Vec<usize>,
    patterns: Vec<PatternSpec>,
    /// Committed edges through the bulk path (clustered by type, so zones
    /// of one type arise and are passed over) instead of a transaction.
    bulk: bool,
}

fn case() -> impl Strategy<Value = Case> {
    (2usize..30).prop_flat_map(|nodes| {
        let edge = (0..nodes, 0..nodes, 0usize..3);
        let set = proptest::collection::vec(0..nodes, 0..6);
        let pattern = (
            proptest::option::of(set.clone()),
            proptest::collection::vec(0usize..4, 0..3),
            proptest::option::of(set),
            proptest::option::of(0u64..6),
        );
        (
            proptest::collection::vec(edge.clone(), 0..80),
            proptest::collection::vec(0usize..80, 0..20),
            proptest::collection::vec(edge, 0..10),
            proptest::collection::vec(0usize..90, 0..5),
            proptest::collection::vec(pattern, 1..6),
            any::<bool>(),
        )
            .prop_map(
                move |(committed, deleted, own, own_deleted, patterns, bulk)| Case {
                    nodes,
                    committed,
                    deleted,
                    own,
                    own_deleted,
                    patterns,
                    bulk,
                },
            )
    })
}

type ModelEdges = BTreeMap<RelId, (NodeId, NodeId, usize)>;

/// Builds the case; returns the open transaction, its node ids and the
/// edges it should see.
fn build(case: &Case) -> (Txn, Vec<NodeId>, ModelEdges) {
    let s = store();
    let t = s.begin();
    let ids: Vec<NodeId> = (0..case.nodes)
        .map(|_| t.create_node(&labels(&["N"]), &BTreeMap::new()).unwrap())
        .collect();
    let mut model = ModelEdges::new();
    if case.bulk {
        commit(&t).unwrap();
        let rels: Vec<BulkRel<'_>> = case
            .committed
            .iter()
            .map(|&(a, b, ty)| BulkRel {
                src: ids[a],
                dst: ids[b],
                rel_type: TYPES[ty],
                properties: &[],
            })
            .collect();
        let created = s.bulk_load_rels(&rels).unwrap();
        for (&rel, &(a, b, ty)) in created.iter().zip(&case.committed) {
            model.insert(rel, (ids[a], ids[b], ty));
        }
    } else {
        for &(a, b, ty) in &case.committed {
            let rel = t
                .create_rel(ids[a], ids[b], TYPES[ty], &BTreeMap::new())
                .unwrap();
            model.insert(rel, (ids[a], ids[b], ty));
        }
        commit(&t).unwrap();
    }
    drop(t);
    // Freeze the committed zones, so scans take the frozen paths.
    s.collect_garbage();
    assert_eq!(s.zone_states().1, 0, "every committed zone frozen");
    let t = s.begin();
    let rels: Vec<RelId> = model.keys().copied().collect();
    for &d in &case.deleted {
        if let Some(&rel) = rels.get(d) {
            if model.remove(&rel).is_some() {
                t.delete_rel(rel).unwrap();
            }
        }
    }
    commit(&t).unwrap();
    drop(t);
    // Deleted edges become freed slots of refrozen zones.
    s.collect_garbage();
    let t = s.begin();
    for &(a, b, ty) in &case.own {
        let rel = t
            .create_rel(ids[a], ids[b], TYPES[ty], &BTreeMap::new())
            .unwrap();
        model.insert(rel, (ids[a], ids[b], ty));
    }
    let rels: Vec<RelId> = model.keys().copied().collect();
    for &d in &case.own_deleted {
        if let Some(&rel) = rels.get(d) {
            if model.remove(&rel).is_some() {
                t.delete_rel(rel).unwrap();
            }
        }
    }
    (t, ids, model)
}

/// Type names of a pattern: 3 stands for a type that does not exist.
fn type_names(types: &[usize]) -> Vec<String> {
    types
        .iter()
        .map(|&t| TYPES.get(t).copied().unwrap_or("NOPE").to_string())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn apl_modes_agree_with_the_model(case in case()) {
        let (t, ids, model) = build(&case);
        let apl = t.apl();
        for (src, types, dst, limit) in &case.patterns {
            let src_set = src.as_ref().map(|s| apl.vertex_set_of(s.iter().map(|&i| ids[i])));
            let dst_set = dst.as_ref().map(|s| apl.vertex_set_of(s.iter().map(|&i| ids[i])));
            let names = type_names(types);
            let pattern = EdgePattern {
                src: src_set.as_ref().map_or(Endpoint::Any, Endpoint::In),
                types: &names,
                dst: dst_set.as_ref().map_or(Endpoint::Any, Endpoint::In),
            };
            let expected: BTreeSet<EdgeMatch> = model
                .iter()
                .filter(|(_, (a, b, ty))| {
                    src_set.as_ref().is_none_or(|s| s.contains(*a))
                        && dst_set.as_ref().is_none_or(|s| s.contains(*b))
                        && (types.is_empty() || types.contains(ty))
                })
                .map(|(&rel, &(src, dst, _))| EdgeMatch { rel, src, dst })
                .collect();
            for choice in [
                ModeChoice::Auto,
                ModeChoice::Force(AccessMode::IndexScan),
                ModeChoice::Force(AccessMode::RelationScan),
            ] {
                let mut got = Vec::new();
                let report = apl.edges(&pattern, None, choice, |m| got.push(m));
                let got_set: BTreeSet<EdgeMatch> = got.iter().copied().collect();
                prop_assert_eq!(got.len(), got_set.len(), "duplicates under {:?}", choice);
                prop_assert_eq!(&got_set, &expected, "{:?}", choice);
                prop_assert_eq!(report.matches, expected.len() as u64);
                if let Some(k) = limit {
                    let mut limited = Vec::new();
                    apl.edges(&pattern, Some(*k), choice, |m| limited.push(m));
                    prop_assert_eq!(limited.len() as u64, (*k).min(expected.len() as u64));
                    prop_assert!(limited.iter().all(|m| expected.contains(m)));
                }
            }
            // Small enough that the samples cover every tuple: exact.
            let estimate = apl.estimate_edges(&pattern);
            prop_assert!((estimate - expected.len() as f64).abs() < 1e-9,
                "estimate {} vs {}", estimate, expected.len());
        }
    }

    #[test]
    fn expand_into_finds_what_filtering_expand_finds(
        case in case(),
        pairs in proptest::collection::vec((0usize..30, 0usize..30), 1..40),
        types in proptest::collection::vec(proptest::collection::vec(0usize..4, 0..3), 1..4),
    ) {
        let (t, ids, _) = build(&case);
        for &(a, b) in &pairs {
            let (a, b) = (ids[a % ids.len()], ids[b % ids.len()]);
            for types in &types {
                let names = type_names(types);
                for dir in [Direction::Outgoing, Direction::Incoming, Direction::Both] {
                    let mut expected: Vec<(RelId, NodeId)> = t
                        .expand(a, dir, &names)
                        .into_iter()
                        .filter(|&(_, other)| other == b)
                        .collect();
                    let mut got = t.expand_into(a, b, dir, &names);
                    expected.sort();
                    got.sort();
                    prop_assert_eq!(got, expected, "{:?} {:?}", dir, names);
                }
            }
        }
    }

    #[test]
    fn bfs_reaches_what_expand_reaches(case in case(), start in 0usize..30, depth in 1usize..5) {
        let (t, ids, _) = build(&case);
        let start = ids[start % ids.len()];
        let types = vec!["A".to_string(), "B".to_string()];
        let mut seen: HashSet<NodeId> = HashSet::from([start]);
        let mut queue = VecDeque::from([(start, 0usize)]);
        while let Some((n, d)) = queue.pop_front() {
            if d == depth {
                continue;
            }
            for (_, other) in t.expand(n, Direction::Outgoing, &types) {
                if seen.insert(other) {
                    queue.push_back((other, d + 1));
                }
            }
        }
        let apl = t.apl();
        for choice in [ModeChoice::Auto, ModeChoice::Force(AccessMode::RelationScan)] {
            let report = apl.bfs(start, Direction::Outgoing, &types, depth, choice);
            prop_assert_eq!(report.reached, seen.len());
        }
    }
}

#[test]
fn small_frontiers_use_the_index_and_large_ones_scan() {
    let s = store();
    let t = s.begin();
    let ids: Vec<NodeId> = (0..400)
        .map(|_| t.create_node(&[], &BTreeMap::new()).unwrap())
        .collect();
    for (k, &a) in ids.iter().enumerate() {
        for j in 1..=5 {
            t.create_rel(a, ids[(k * 7 + j * 13) % ids.len()], "A", &BTreeMap::new())
                .unwrap();
        }
    }
    commit(&t).unwrap();
    let t = s.begin();
    let apl = t.apl();
    let types = ["A".to_string()];
    let one = apl.vertex_set_of([ids[0]]);
    let all = apl.vertex_set_of(ids.iter().copied());
    let read = |set| {
        let pattern = EdgePattern {
            src: Endpoint::In(set),
            types: &types,
            dst: Endpoint::Any,
        };
        apl.edges(&pattern, None, ModeChoice::Auto, |_| {})
    };
    let small = read(&one);
    assert!(
        small.index_partitions >= 1 && small.scan_partitions == 0,
        "{small:?}"
    );
    let large = read(&all);
    assert!(
        large.scan_partitions >= 1 && large.index_partitions == 0,
        "{large:?}"
    );
    assert_eq!(large.matches, 2000);
}
