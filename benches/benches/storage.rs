//! Storage benchmarks of issue #5 on the generated graph (module `graph`):
//! point transactions and reads, frontier expansion through the index,
//! relation scans (of edges, and of a vertex property with a test on its
//! value), hybrid BFS through the access-pattern layer, edge
//! lookups between two bound vertices (expand-into), the bulk path, and the
//! rebuild of the optimizer statistics. The log is not involved: commits hand their changes to a no-op.

mod graph;

use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use nereid_storage::apl::{AccessMode, Comparison, EdgePattern, Endpoint, ModeChoice, ValueTest};
use nereid_storage::{Store, StoreConfig};
use nereid_values::{Direction, Value};
use std::collections::BTreeMap;
use std::convert::Infallible;
use std::hint::black_box;
use std::sync::OnceLock;
use std::time::Instant;

/// The server's allocator and page policy, so the figures are the server's.
#[global_allocator]
static ALLOCATOR: nereid_alloc::Allocator = nereid_alloc::Allocator;

fn graph() -> &'static graph::Graph {
    static GRAPH: OnceLock<graph::Graph> = OnceLock::new();
    nereid_alloc::prefer_huge_pages();
    GRAPH.get_or_init(graph::build)
}

fn point_txn_insert_vertex(c: &mut Criterion) {
    let g = graph();
    let labels = vec!["Person".to_string()];
    let mut i = g.ids.len();
    c.bench_function("storage/point_txn_insert_vertex", |b| {
        b.iter_batched(
            || {
                i += 1;
                graph::vertex_properties(i)
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect::<BTreeMap<String, Value>>()
            },
            |props| {
                let txn = g.store.begin();
                txn.create_node(&labels, &props).expect("insert");
                txn.commit(|_, _| Ok::<(), Infallible>(()))
                    .expect("commit")
                    .expect("a write transaction")
                    .publish();
            },
            BatchSize::SmallInput,
        )
    });
}

fn point_read_vertex(c: &mut Criterion) {
    let g = graph();
    let reader = g.store.begin();
    let mut rng = graph::Rng::new(7);
    c.bench_function("storage/point_read_vertex", |b| {
        b.iter_batched(
            || g.ids[rng.below(g.ids.len())],
            |id| reader.node_properties(id),
            BatchSize::SmallInput,
        )
    });
}

/// `node_property(v, "name")` of random vertices from a hot set of 10,000
/// (whose tuples and strings stay in cache), on one thread and on two at
/// once; the time is per read, in aggregate. What it shows is the cost of
/// the locks readers take (a partition, the key table, the dictionary):
/// with a reader count in one shared word, two cores pass its cache line
/// back and forth and the second thread adds nothing (ADR 0074).
fn node_property_hot(c: &mut Criterion) {
    let g = graph();
    let hot = &g.ids[..g.ids.len().min(10_000)];
    let mut group = c.benchmark_group("storage");
    group.throughput(Throughput::Elements(1));
    for threads in [1u64, 2] {
        let id = format!(
            "node_property_hot_{threads}_thread{}",
            if threads > 1 { "s" } else { "" }
        );
        group.bench_function(id, |b| {
            b.iter_custom(|iters| {
                let start = Instant::now();
                std::thread::scope(|s| {
                    for t in 0..threads {
                        s.spawn(move || {
                            let txn = g.store.begin();
                            let mut rng = graph::Rng::new(11 + t);
                            for _ in 0..iters / threads {
                                let v = hot[rng.below(hot.len())];
                                black_box(txn.node_property(v, "name"));
                            }
                        });
                    }
                });
                start.elapsed()
            })
        });
    }
    group.finish();
}

fn expand_index_frontier(c: &mut Criterion, id: &str, size: usize) {
    let g = graph();
    let txn = g.store.begin();
    let apl = txn.apl();
    let mut rng = graph::Rng::new(size as u64);
    let frontier = apl.vertex_set_of((0..size).map(|_| g.ids[rng.below(g.ids.len())]));
    let types = [graph::TYPES[0].to_string()];
    let pattern = EdgePattern {
        src: Endpoint::In(&frontier),
        types: &types,
        dst: Endpoint::Any,
    };
    let index = ModeChoice::Force(AccessMode::IndexScan);
    let mut edges = 0u64;
    apl.edges(&pattern, None, index, |_| edges += 1);
    let mut group = c.benchmark_group("storage");
    group.throughput(Throughput::Elements(edges.max(1)));
    group.bench_function(id, |b| {
        b.iter(|| {
            let mut n = 0u64;
            apl.edges(&pattern, None, index, |_| n += 1);
            n
        })
    });
    group.finish();
}

fn expand_index_frontier_1k(c: &mut Criterion) {
    expand_index_frontier(c, "expand_index_frontier_1k", 1_000);
}

fn expand_index_frontier_100k(c: &mut Criterion) {
    expand_index_frontier(c, "expand_index_frontier_100k", 100_000);
}

/// All `KNOWS` edges whose O is in a set of 10% of the vertices.
fn relation_scan_edges(c: &mut Criterion) {
    let g = graph();
    let txn = g.store.begin();
    let apl = txn.apl();
    let targets = apl.vertex_set_of(g.ids.iter().step_by(10).copied());
    let types = [graph::TYPES[0].to_string()];
    let pattern = EdgePattern {
        src: Endpoint::Any,
        types: &types,
        dst: Endpoint::In(&targets),
    };
    let scan = ModeChoice::Force(AccessMode::RelationScan);
    let report = apl.edges(&pattern, None, scan, |_| {});
    eprintln!("relation_scan_edges: {report:?}");
    let mut group = c.benchmark_group("storage");
    group.throughput(Throughput::Elements(report.tuples_examined.max(1)));
    group.sample_size(10);
    group.bench_function("relation_scan_edges", |b| {
        b.iter(|| {
            let mut n = 0u64;
            apl.edges(&pattern, None, scan, |_| n += 1);
            n
        })
    });
    group.finish();
}

/// A value relation scan (`Apl::nodes_with_property`): every vertex's
/// `age` tested against a constant on its stored bits, over REL_VP.
fn value_scan_vertex_property(c: &mut Criterion) {
    let g = graph();
    let txn = g.store.begin();
    let apl = txn.apl();
    let fast = Some(ValueTest::Int(Comparison::Greater, 90));
    let keep = |v: &Value| matches!(v, Value::Int(age) if *age > 90);
    let mut kept = 0u64;
    let report = apl.nodes_with_property(None, "age", fast, keep, |_| kept += 1);
    eprintln!("value_scan_vertex_property: {kept} kept, {report:?}");
    let mut group = c.benchmark_group("storage");
    group.throughput(Throughput::Elements(report.tuples_examined.max(1)));
    group.sample_size(20);
    group.bench_function("value_scan_vertex_property", |b| {
        b.iter(|| {
            let mut n = 0u64;
            apl.nodes_with_property(None, "age", fast, keep, |_| n += 1);
            n
        })
    });
    group.finish();
}

fn hybrid_bfs(c: &mut Criterion) {
    let g = graph();
    let txn = g.store.begin();
    let apl = txn.apl();
    let start = g.ids[graph::Rng::new(42).below(g.ids.len())];
    let types = [graph::TYPES[0].to_string()];
    let run = || apl.bfs(start, Direction::Outgoing, &types, 32, ModeChoice::Auto);
    let report = run();
    eprintln!("hybrid_bfs: reached {} vertices", report.reached);
    for (depth, level) in report.levels.iter().enumerate() {
        eprintln!(
            "  level {depth}: frontier {:>8}, discovered {:>8}, index partitions {:>2}, scan partitions {:>2}, tuples examined {}",
            level.frontier,
            level.discovered,
            level.access.index_partitions,
            level.access.scan_partitions,
            level.access.tuples_examined
        );
    }
    let mut group = c.benchmark_group("storage");
    group.sample_size(10);
    group.bench_function("hybrid_bfs", |b| b.iter(run));
    group.finish();
}

/// Expand-into: the `KNOWS` edges from `a` to `b` for 1,000 pairs, half
/// of them edges of the graph and half random pairs (mostly no edge),
/// through `Txn::expand_into` (one grid cell, the source's sorted list
/// binary searched) and, as the baseline in the same run, by filtering
/// `Txn::expand` (every partition of the source's row, every edge listed).
fn expand_into_pairs(c: &mut Criterion) {
    let g = graph();
    let txn = g.store.begin();
    let types = [graph::TYPES[0].to_string()];
    let mut rng = graph::Rng::new(99);
    let mut pairs = Vec::new();
    while pairs.len() < 1_000 {
        let a = g.ids[rng.below(g.ids.len())];
        let b = match pairs.len() % 2 {
            0 => match txn.expand(a, Direction::Outgoing, &types).first() {
                Some(&(_, b)) => b,
                None => continue,
            },
            _ => g.ids[rng.below(g.ids.len())],
        };
        pairs.push((a, b));
    }
    by_pairs(
        c,
        "expand_into_1k_pairs",
        "expand_filter_1k_pairs",
        &txn,
        &pairs,
        &types,
    );
}

/// Expand-into and its baseline at one hub: a vertex with 100,000 `KNOWS`
/// edges bulk loaded, then 20,000 more added by transactions in scrambled
/// order (the sorted prefix grown by merged tails), looked up towards
/// 1,000 random neighbours.
fn expand_into_hub(c: &mut Criterion) {
    let store = Store::new(StoreConfig {
        partitions: graph::PARTITIONS,
    });
    let ids = graph::load_vertices(&store, &graph::vertex_property_rows(100_001));
    let (hub, others) = ids.split_first().expect("vertices");
    let rels: Vec<nereid_storage::BulkRel<'_>> = others
        .iter()
        .map(|&dst| nereid_storage::BulkRel {
            src: *hub,
            dst,
            rel_type: graph::TYPES[0],
            properties: &[],
        })
        .collect();
    store.bulk_load_rels(&rels).expect("bulk load hub");
    let mut rng = graph::Rng::new(5);
    for _ in 0..20 {
        let txn = store.begin();
        for _ in 0..1_000 {
            let dst = others[rng.below(others.len())];
            txn.create_rel(*hub, dst, graph::TYPES[0], &BTreeMap::new())
                .expect("edge");
        }
        txn.commit(|_, _| Ok::<(), Infallible>(()))
            .expect("commit")
            .expect("a write transaction")
            .publish();
    }
    store.collect_garbage();
    let txn = store.begin();
    let pairs: Vec<_> = (0..1_000)
        .map(|_| (*hub, others[rng.below(others.len())]))
        .collect();
    let types = [graph::TYPES[0].to_string()];
    by_pairs(
        c,
        "expand_into_hub",
        "expand_filter_hub",
        &txn,
        &pairs,
        &types,
    );
}

fn by_pairs(
    c: &mut Criterion,
    into_id: &str,
    filter_id: &str,
    txn: &nereid_storage::Txn,
    pairs: &[(nereid_values::NodeId, nereid_values::NodeId)],
    types: &[String],
) {
    let found: usize = pairs
        .iter()
        .map(|&(a, b)| txn.expand_into(a, b, Direction::Outgoing, types).len())
        .sum();
    eprintln!("{into_id}: {} pairs, {found} edges found", pairs.len());
    let mut group = c.benchmark_group("storage");
    group.throughput(Throughput::Elements(pairs.len() as u64));
    group.bench_function(into_id, |b| {
        b.iter(|| {
            pairs
                .iter()
                .map(|&(a, b)| txn.expand_into(a, b, Direction::Outgoing, types).len())
                .sum::<usize>()
        })
    });
    group.sample_size(10);
    group.bench_function(filter_id, |b| {
        b.iter(|| {
            pairs
                .iter()
                .map(|&(a, b)| {
                    txn.expand(a, Direction::Outgoing, types)
                        .into_iter()
                        .filter(|&(_, other)| other == b)
                        .count()
                })
                .sum::<usize>()
        })
    });
    group.finish();
}

fn bulk_insert(c: &mut Criterion) {
    // The server's page policy even when this bench runs alone (without
    // `graph()` having set it).
    nereid_alloc::prefer_huge_pages();
    let (vertices, _) = graph::size();
    let rows = graph::vertex_property_rows(vertices);
    let mut group = c.benchmark_group("storage");
    group.throughput(Throughput::Elements(3 * vertices as u64));
    group.sample_size(10);
    group.bench_function("bulk_insert", |b| {
        b.iter_batched(
            || {
                Store::new(StoreConfig {
                    partitions: graph::PARTITIONS,
                })
            },
            |store| {
                graph::load_vertices(&store, &rows);
                store
            },
            BatchSize::PerIteration,
        )
    });
    group.finish();
}

/// `Store::rebuild_statistics` on the generated graph: one scan of every
/// relation into fresh characteristic sets and sketches. Throughput in
/// graph elements (vertices + edges).
fn stats_rebuild(c: &mut Criterion) {
    let g = graph();
    let (vertices, edges) = graph::size();
    let mut group = c.benchmark_group("storage");
    group.throughput(Throughput::Elements((vertices + edges) as u64));
    group.sample_size(10);
    group.bench_function("stats_rebuild", |b| b.iter(|| g.store.rebuild_statistics()));
    group.finish();
}

criterion_group!(
    benches,
    point_txn_insert_vertex,
    point_read_vertex,
    node_property_hot,
    expand_index_frontier_1k,
    expand_index_frontier_100k,
    relation_scan_edges,
    value_scan_vertex_property,
    hybrid_bfs,
    expand_into_pairs,
    expand_into_hub,
    bulk_insert,
    stats_rebuild
);
criterion_main!(benches);
