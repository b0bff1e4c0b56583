//! Storage point operations (the Poseidon paper's headline: a simple
//! transaction in under 20 µs against the storage engine). The log is not
//! involved: commit hands its changes to a no-op callback.

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use nereid_storage::{Store, StoreConfig};
use nereid_values::{NodeId, Value};
use std::collections::BTreeMap;
use std::convert::Infallible;

fn properties(i: i64) -> BTreeMap<String, Value> {
    BTreeMap::from([
        ("name".to_string(), Value::String(format!("person-{i}"))),
        ("age".to_string(), Value::Int(i % 100)),
        ("score".to_string(), Value::Float(i as f64 * 0.5)),
    ])
}

fn point_txn_insert_vertex(c: &mut Criterion) {
    let store = Store::new(StoreConfig::default());
    let labels = vec!["Person".to_string()];
    let mut i = 0i64;
    c.bench_function("storage/point_txn_insert_vertex", |b| {
        b.iter(|| {
            i += 1;
            let txn = store.begin();
            txn.create_node(&labels, &properties(i)).expect("insert");
            let ticket = txn
                .commit(|_, _| Ok::<(), Infallible>(()))
                .expect("commit")
                .expect("a write transaction");
            ticket.publish();
        })
    });
}

fn point_read_vertex(c: &mut Criterion) {
    let store = Store::new(StoreConfig::default());
    let labels = vec!["Person".to_string()];
    let txn = store.begin();
    let ids: Vec<NodeId> = (0..10_000)
        .map(|i| txn.create_node(&labels, &properties(i)).expect("insert"))
        .collect();
    txn.commit(|_, _| Ok::<(), Infallible>(()))
        .expect("commit")
        .expect("a write transaction")
        .publish();
    let reader = store.begin();
    let mut k = 0usize;
    c.bench_function("storage/point_read_vertex", |b| {
        b.iter_batched(
            || {
                k = (k * 7919 + 13) % ids.len();
                ids[k]
            },
            |id| reader.node_properties(id),
            BatchSize::SmallInput,
        )
    });
}

criterion_group!(benches, point_txn_insert_vertex, point_read_vertex);
criterion_main!(benches);
