//! Memory per edge and per vertex property (issue #5's "bytes per edge
//! including indexes" target), measured with a counting global allocator:
//! the bytes the store retains after a bulk load, divided by what was loaded.
//! Not a timing benchmark: it prints its figures and exits (also in `--test`
//! mode). Size: see module `graph`.

mod graph;

use nereid_storage::{Store, StoreConfig};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

// SAFETY: delegates to the system allocator; only counts sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Bytes allocated now, once what the load replaced (index arenas and
/// heads a compaction swapped out, grown tables) is freed: readers could
/// hold those only while pinned, and none is.
fn live() -> isize {
    nereid_storage::free_retired();
    LIVE.load(Ordering::Relaxed)
}

fn store() -> std::sync::Arc<Store> {
    Store::new(StoreConfig {
        partitions: graph::PARTITIONS,
    })
}

fn main() {
    let (vertices, edges) = graph::size();

    // Per vertex property: the same vertices with and without properties.
    let bare = store();
    let before = live();
    let no_props: Vec<[(&'static str, nereid_values::Value); 0]> = vec![[]; vertices];
    let nodes: Vec<nereid_storage::BulkNode<'_>> = no_props
        .iter()
        .map(|p| nereid_storage::BulkNode {
            labels: &["Person"],
            properties: p,
        })
        .collect();
    bare.bulk_load_nodes(&nodes).expect("bare vertices");
    drop(nodes);
    let bare_bytes = live() - before;
    drop(bare);

    let full = store();
    let rows = graph::vertex_property_rows(vertices);
    let before = live();
    let ids = graph::load_vertices(&full, &rows);
    let full_bytes = live() - before - (ids.capacity() * 8) as isize;
    drop(rows);

    let edge_rows = graph::edge_rows(&ids, edges);
    let before = live();
    graph::load_edges(&full, &edge_rows);
    let edge_bytes = live() - before;

    println!("storage/memory: {vertices} vertices, {edges} edges");
    println!(
        "  bytes per vertex (existence + label, no properties, incl. dictionary): {:.1}",
        bare_bytes as f64 / vertices as f64
    );
    println!(
        "  bytes per vertex property (3 per vertex: string, int, float; incl. literal dictionary): {:.1}",
        (full_bytes - bare_bytes) as f64 / (3 * vertices) as f64
    );
    println!(
        "  bytes per edge (1 edge property, incl. S/O/I indexes): {:.1}",
        edge_bytes as f64 / edges.max(1) as f64
    );
}
