//! Index benchmarks of issue #23, through the storage API the executor's
//! index operators call (`Txn::seek_nodes`), on `NEREID_BENCH_VERTICES`
//! `Person` nodes (default 1,000,000) with an integer `id` (unique, in load
//! order) and an integer `group` (1,000 distinct values):
//! - `storage/index_seek_point`: one `id = k` seek of a random `k` in one
//!   long-lived reader (the cost a point query pays below the executor);
//! - `storage/index_range_1k`: `k <= id < k + 1000`, 1,000 hits;
//! - `storage/index_build_1m`: `CREATE INDEX` on `group` over the whole
//!   label, committed and awaited until ONLINE (the background population
//!   from a snapshot), then dropped again.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use nereid_storage::{
    BulkNode, EntityKind, IndexDef, IndexKind, IndexSeek, KeyPredicate, Store, StoreConfig,
};
use nereid_values::Value;
use std::convert::Infallible;
use std::hint::black_box;
use std::ops::Bound;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOCATOR: nereid_alloc::Allocator = nereid_alloc::Allocator;

const PARTITIONS: usize = 4;

struct Fixture {
    store: Arc<Store>,
    nodes: usize,
}

fn vertices() -> usize {
    let test_mode = std::env::args().any(|a| a == "--test");
    std::env::var("NEREID_BENCH_VERTICES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if test_mode { 10_000 } else { 1_000_000 })
}

fn commit(txn: nereid_storage::Txn) {
    if let Some(ticket) = txn.commit(|_, _| Ok::<(), Infallible>(())).expect("commit") {
        ticket.publish();
    }
}

fn create_index(store: &Arc<Store>, name: &str, key: &str) {
    let txn = store.begin();
    txn.create_index(
        IndexDef {
            name: name.into(),
            kind: IndexKind::Range,
            entity: EntityKind::Node,
            label: "Person".into(),
            more_labels: Vec::new(),
            keys: vec![key.into()],
        },
        false,
    )
    .expect("create index");
    commit(txn);
    assert!(
        store.await_indexes(Duration::from_secs(600)),
        "index online"
    );
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    nereid_alloc::prefer_huge_pages();
    FIXTURE.get_or_init(|| {
        let nodes = vertices();
        let store = Store::new(StoreConfig {
            partitions: PARTITIONS,
        });
        let rows: Vec<[(&str, Value); 2]> = (0..nodes)
            .map(|i| {
                [
                    ("id", Value::Int(i as i64)),
                    ("group", Value::Int((i % 1000) as i64)),
                ]
            })
            .collect();
        let bulk: Vec<BulkNode<'_>> = rows
            .iter()
            .map(|p| BulkNode {
                labels: &["Person"],
                properties: p,
            })
            .collect();
        store.bulk_load_nodes(&bulk).expect("bulk load");
        let started = Instant::now();
        create_index(&store, "person_id", "id");
        let built = started.elapsed();
        let (entries, bytes) = store.index_memory("person_id").expect("index");
        eprintln!(
            "index: {nodes} nodes, person_id built in {built:.1?}, {entries} entries, {:.1} bytes each",
            bytes as f64 / entries.max(1) as f64
        );
        Fixture { store, nodes }
    })
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n as u64) as usize
    }
}

fn index_seek_point(c: &mut Criterion) {
    let f = fixture();
    let reader = f.store.begin();
    let mut rng = Rng(11);
    c.bench_function("storage/index_seek_point", |b| {
        b.iter_batched(
            || IndexSeek::equal(vec![Value::Int(rng.below(f.nodes) as i64)]),
            |seek| {
                let found = reader.seek_nodes("person_id", &seek).expect("online");
                assert_eq!(found.len(), 1);
                black_box(found)
            },
            BatchSize::SmallInput,
        )
    });
}

fn index_range_1k(c: &mut Criterion) {
    let f = fixture();
    let reader = f.store.begin();
    let mut rng = Rng(13);
    let span = f.nodes.saturating_sub(1000).max(1);
    c.bench_function("storage/index_range_1k", |b| {
        b.iter_batched(
            || {
                let low = rng.below(span) as i64;
                IndexSeek {
                    equal: Vec::new(),
                    next: KeyPredicate::Range {
                        lower: Bound::Included(Value::Int(low)),
                        upper: Bound::Excluded(Value::Int(low + 1000)),
                    },
                    descending: false,
                    limit: None,
                }
            },
            |seek| {
                let found = reader.seek_nodes("person_id", &seek).expect("online");
                assert_eq!(found.len(), 1000.min(f.nodes));
                black_box(found)
            },
            BatchSize::SmallInput,
        )
    });
}

fn index_build_1m(c: &mut Criterion) {
    let f = fixture();
    let mut group = c.benchmark_group("storage");
    group.sample_size(10);
    group.bench_function("index_build_1m", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let started = Instant::now();
                create_index(&f.store, "person_group", "group");
                total += started.elapsed();
                let txn = f.store.begin();
                txn.drop_index("person_group", false).expect("drop");
                commit(txn);
            }
            total
        })
    });
    group.finish();
}

criterion_group!(benches, index_seek_point, index_range_1k, index_build_1m);
criterion_main!(benches);
