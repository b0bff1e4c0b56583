//! The durable log and checkpoints (issue #6): commit throughput with group
//! commit at 1, 4, 16 and 64 concurrent committers (one fsync covers every
//! commit queued meanwhile, so throughput should grow with concurrency),
//! with one log partition (`commit_throughput_group/N`) and with four
//! (`commit_throughput_group/Nx4p`: four writers fsync in parallel, and a
//! commit waits for every smaller timestamp),
//! the replay rate of recovery, and the checkpoint write rate.
//!
//! Files go to the system temp directory: fsync costs what that disk costs.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use nereid_storage::{Change, Store, StoreConfig};
use nereid_values::Value;
use nereid_wal::{load_newest_checkpoint, take_checkpoint, Durability, Wal, WalError, WalOptions};
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The change list of one small real transaction: a node with a label and
/// two properties.
fn sample_changes() -> Vec<Change> {
    let store = Store::new(StoreConfig { partitions: 4 });
    let txn = store.begin();
    let props = BTreeMap::from([
        ("name".to_string(), Value::String("benchmark".into())),
        ("i".to_string(), Value::Int(42)),
    ]);
    txn.create_node(&["Person".to_string()], &props)
        .expect("create");
    let mut captured = Vec::new();
    txn.commit(|_, changes| {
        captured = changes.to_vec();
        Ok::<(), WalError>(())
    })
    .expect("commit");
    captured
}

fn commit_throughput_group(c: &mut Criterion) {
    let changes = sample_changes();
    let mut group = c.benchmark_group("wal");
    group.throughput(Throughput::Elements(1));
    let cases = [1usize, 4, 16, 64]
        .into_iter()
        .flat_map(|committers| [(committers, 1u32), (committers, 4)]);
    for (committers, partitions) in cases {
        let id = if partitions == 1 {
            committers.to_string()
        } else {
            format!("{committers}x{partitions}p")
        };
        group.bench_with_input(
            BenchmarkId::new("commit_throughput_group", id),
            &committers,
            |b, &committers| {
                let dir = tempfile::tempdir().expect("tempdir");
                let options = WalOptions {
                    partitions,
                    ..WalOptions::default()
                };
                let (wal, _) =
                    Wal::open_after(dir.path(), &options, 0, |_, _| Ok(())).expect("open");
                let ts = AtomicU64::new(0);
                // Stands in for the store's commit lock: appends in timestamp order.
                let commit_lock = Mutex::new(());
                b.iter_custom(|iters| {
                    let per_thread = iters.div_ceil(committers as u64);
                    let started = Instant::now();
                    std::thread::scope(|s| {
                        for _ in 0..committers {
                            s.spawn(|| {
                                for _ in 0..per_thread {
                                    let lsn = {
                                        let _commit = commit_lock.lock();
                                        let t = ts.fetch_add(1, Ordering::SeqCst) + 1;
                                        wal.append(t, t, &changes).expect("append")
                                    };
                                    wal.wait_durable(lsn).expect("durable");
                                }
                            });
                        }
                    });
                    // Per commit: the total covers per_thread * committers commits.
                    started
                        .elapsed()
                        .mul_f64(iters as f64 / (per_thread * committers as u64) as f64)
                });
            },
        );
    }
    group.finish();
}

const REPLAY_RECORDS: u64 = 10_000;

fn replay_records(c: &mut Criterion) {
    let changes = sample_changes();
    let dir = tempfile::tempdir().expect("tempdir");
    {
        let (wal, _) = Wal::open(dir.path(), Durability::Fsync, |_, _| Ok(())).expect("open");
        let mut last = None;
        for t in 1..=REPLAY_RECORDS {
            last = Some(wal.append(t, t, &changes).expect("append"));
        }
        wal.wait_durable(last.expect("records")).expect("durable");
        wal.close().expect("close");
    }
    let mut group = c.benchmark_group("wal");
    group.throughput(Throughput::Elements(REPLAY_RECORDS));
    group.bench_function("replay_records", |b| {
        b.iter(|| {
            let mut replayed = 0u64;
            let (wal, _) = Wal::open(dir.path(), Durability::Fsync, |_, ch| {
                replayed += ch.len() as u64;
                Ok(())
            })
            .expect("open");
            drop(wal);
            assert!(replayed > 0);
        })
    });
    group.finish();
}

const CHECKPOINT_NODES: i64 = 10_000;

/// A 4-partition store holding `CHECKPOINT_NODES` labelled nodes with one
/// property each (what the checkpoint benches write and read back).
fn checkpoint_store() -> Arc<Store> {
    let store: Arc<Store> = Store::new(StoreConfig { partitions: 4 });
    let txn = store.begin();
    for i in 0..CHECKPOINT_NODES {
        let props = BTreeMap::from([("i".to_string(), Value::Int(i))]);
        txn.create_node(&["N".to_string()], &props).expect("create");
    }
    txn.commit(|_, _| Ok::<(), WalError>(()))
        .expect("commit")
        .expect("ticket")
        .publish();
    store
}

fn checkpoint_write(c: &mut Criterion) {
    let store = checkpoint_store();
    let dir = tempfile::tempdir().expect("tempdir");
    let mut round = 0u64;
    let mut group = c.benchmark_group("wal");
    group.throughput(Throughput::Elements(CHECKPOINT_NODES as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("checkpoint_write", |b| {
        b.iter(|| {
            round += 1;
            // A fresh root each time: a checkpoint at a timestamp that
            // already has one is not written again.
            let info =
                take_checkpoint(&store, &dir.path().join(round.to_string())).expect("checkpoint");
            assert!(info.written);
        })
    });
    group.finish();
}

/// Recovery's first half: the newest checkpoint read, checked and loaded
/// into an empty store (partitions decoded in parallel).
fn checkpoint_load(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("tempdir");
    let info = take_checkpoint(&checkpoint_store(), dir.path()).expect("checkpoint");
    assert!(info.written);
    let mut group = c.benchmark_group("wal");
    group.throughput(Throughput::Elements(CHECKPOINT_NODES as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(5));
    group.bench_function("checkpoint_load", |b| {
        b.iter(|| {
            let empty: Arc<Store> = Store::new(StoreConfig { partitions: 4 });
            let loaded = load_newest_checkpoint(&empty, dir.path()).expect("load");
            assert!(loaded.is_some());
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    commit_throughput_group,
    replay_records,
    checkpoint_write,
    checkpoint_load
);
criterion_main!(benches);
