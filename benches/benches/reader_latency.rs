//! How long a reader waits for writers: point reads (`node_property`) of
//! random committed vertices on one thread, timed one by one, first alone,
//! then while another thread bulk loads vertices and edges into the same
//! partitions, then while it garbage collects after deleting in bulk. A
//! reader never sees the writer's uncommitted tuples, but it waits while
//! the writer holds a partition it reads; the tail of the distribution
//! (p99.9, max) is that wait. Last, relation scans of every edge run on
//! one thread while small transactions commit edges on another, both
//! timed: scans read the zones without the partition lock (ADR 0078), so
//! neither should wait for the other. Prints its figures and exits (also
//! in `--test` mode, on a smaller graph). Not a criterion bench: criterion
//! reports means, and the point is the tail.

mod graph;

use nereid_storage::apl::{AccessMode, EdgePattern, Endpoint, ModeChoice};
use nereid_storage::{Store, StoreConfig};
use nereid_values::NodeId;
use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOCATOR: nereid_alloc::Allocator = nereid_alloc::Allocator;

/// Reads random vertices of `ids` until `stop`, returning each read's time.
fn read_until(store: &Arc<Store>, ids: &[NodeId], stop: &AtomicBool) -> Vec<Duration> {
    let txn = store.begin();
    let mut rng = graph::Rng::new(3);
    let mut times = Vec::with_capacity(1 << 20);
    while !stop.load(Ordering::Relaxed) {
        let v = ids[rng.below(ids.len())];
        let start = Instant::now();
        black_box(txn.node_property(v, "name"));
        times.push(start.elapsed());
    }
    times
}

/// Relation scans of every edge until `stop`, returning each scan's time.
fn scan_until(store: &Arc<Store>, stop: &AtomicBool) -> Vec<Duration> {
    let types: Vec<String> = graph::TYPES.iter().map(|t| t.to_string()).collect();
    let pattern = EdgePattern {
        src: Endpoint::Any,
        types: &types,
        dst: Endpoint::Any,
    };
    let mut times = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        let txn = store.begin();
        let start = Instant::now();
        let mut edges = 0u64;
        txn.apl().edges(
            &pattern,
            None,
            ModeChoice::Force(AccessMode::RelationScan),
            |_| edges += 1,
        );
        times.push(start.elapsed());
        black_box(edges);
    }
    times
}

/// Commits transactions of one new edge each between random vertices of
/// `ids` for `span`, returning each commit's time (begin to published).
fn commit_edges(store: &Arc<Store>, ids: &[NodeId], span: Duration) -> Vec<Duration> {
    let mut rng = graph::Rng::new(5);
    let none = BTreeMap::new();
    let mut times = Vec::new();
    let phase = Instant::now();
    while phase.elapsed() < span {
        let (a, b) = (ids[rng.below(ids.len())], ids[rng.below(ids.len())]);
        let start = Instant::now();
        let txn = store.begin();
        txn.create_rel(a, b, graph::TYPES[0], &none)
            .expect("create");
        txn.commit(|_, _| Ok::<(), std::convert::Infallible>(()))
            .expect("commit")
            .expect("a write transaction")
            .publish();
        times.push(start.elapsed());
    }
    times
}

fn report(phase: &str, mut times: Vec<Duration>) {
    times.sort_unstable();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    eprintln!(
        "reader_latency/{phase}: {} timed, p50 {:?}, p99 {:?}, p99.9 {:?}, max {:?}",
        times.len(),
        at(0.5),
        at(0.99),
        at(0.999),
        times.last().copied().unwrap_or_default()
    );
}

/// Runs `write` on this thread while a reader reads `ids` on another.
fn during(phase: &str, store: &Arc<Store>, ids: &[NodeId], write: impl FnOnce()) {
    let stop = AtomicBool::new(false);
    let times = std::thread::scope(|s| {
        let reader = s.spawn(|| read_until(store, ids, &stop));
        write();
        stop.store(true, Ordering::Relaxed);
        reader.join().expect("reader")
    });
    report(phase, times);
}

fn main() {
    nereid_alloc::prefer_huge_pages();
    let (vertices, edges) = graph::size();
    let store = Store::new(StoreConfig {
        partitions: graph::PARTITIONS,
    });
    let read_set = graph::load_vertices(&store, &graph::vertex_property_rows(vertices / 10));
    during("idle", &store, &read_set, || {
        std::thread::sleep(Duration::from_millis(500))
    });
    let mut ids = Vec::new();
    during("bulk_load_vertices", &store, &read_set, || {
        ids = graph::load_vertices(&store, &graph::vertex_property_rows(vertices));
    });
    during("bulk_load_edges", &store, &read_set, || {
        graph::load_edges(&store, &graph::edge_rows(&ids, edges));
    });
    during("delete_and_collect", &store, &read_set, || {
        let txn = store.begin();
        for &id in ids.iter().take(vertices / 10) {
            txn.delete_node(id, true).expect("delete");
        }
        txn.commit(|_, _| Ok::<(), std::convert::Infallible>(()))
            .expect("commit")
            .expect("a write transaction")
            .publish();
        drop(txn);
        store.collect_garbage();
    });
    // The reader of the last phase held a snapshot from before the
    // deletions: collect them now (timed), so the commits below do not pay.
    let start = Instant::now();
    store.collect_garbage();
    eprintln!(
        "reader_latency/collect_after_deletes: {:?}",
        start.elapsed()
    );
    let live = &ids[vertices / 10..];
    let stop = AtomicBool::new(false);
    let (scans, commits) = std::thread::scope(|s| {
        let scanner = s.spawn(|| scan_until(&store, &stop));
        let commits = commit_edges(&store, live, Duration::from_secs(3));
        stop.store(true, Ordering::Relaxed);
        (scanner.join().expect("scanner"), commits)
    });
    report("scans_beside_commits/scan", scans);
    report("scans_beside_commits/commit", commits);
}
