//! How long a reader waits for writers: point reads (`node_property`) of
//! random committed vertices on one thread, timed one by one, first alone,
//! then while another thread bulk loads vertices and edges into the same
//! partitions, then while it garbage collects after deleting in bulk. A
//! reader never sees the writer's uncommitted tuples, but it waits while
//! the writer holds a partition it reads; the tail of the distribution
//! (p99.9, max) is that wait. Prints its figures and exits (also in
//! `--test` mode, on a smaller graph). Not a criterion bench: criterion
//! reports means, and the point is the tail.

mod graph;

use nereid_storage::{Store, StoreConfig};
use nereid_values::NodeId;
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

fn report(phase: &str, mut times: Vec<Duration>) {
    times.sort_unstable();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize];
    eprintln!(
        "reader_latency/{phase}: {} reads, p50 {:?}, p99 {:?}, p99.9 {:?}, max {:?}",
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
}
