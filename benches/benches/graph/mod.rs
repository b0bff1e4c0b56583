//! The generated graph the storage benches run on (issue #5): `V` vertices
//! labelled `Person` with 3 properties (`name` string, `age` integer,
//! `score` float) and `E` edges with 1 property (`weight`), half `KNOWS`
//! and half `LIKES`, endpoints uniformly random (fixed seed). Loaded once
//! per bench process through the store's bulk path.
//!
//! Size: `NEREID_BENCH_VERTICES` (default 1,000,000; 10,000 when criterion
//! runs in `--test` mode, which only checks each bench runs once) and
//! `NEREID_BENCH_EDGES` (default 10 x vertices).
#![allow(dead_code)]

use nereid_storage::{BulkNode, BulkRel, Store, StoreConfig};
use nereid_values::{NodeId, Value};
use std::sync::Arc;

pub const PARTITIONS: usize = 4;
pub const TYPES: [&str; 2] = ["KNOWS", "LIKES"];

/// Graph size from the environment (see the module docs).
pub fn size() -> (usize, usize) {
    let test_mode = std::env::args().any(|a| a == "--test");
    let read = |name: &str| {
        std::env::var(name)
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
    };
    let vertices = read("NEREID_BENCH_VERTICES")
        .unwrap_or(if test_mode { 10_000 } else { 1_000_000 })
        .max(2);
    let edges = read("NEREID_BENCH_EDGES").unwrap_or(vertices * 10);
    (vertices, edges)
}

/// A small deterministic generator (xorshift64*), enough for picking ids.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The 3 properties of vertex `i`.
pub fn vertex_properties(i: usize) -> [(&'static str, Value); 3] {
    [
        ("name", Value::String(format!("person-{i}"))),
        ("age", Value::Int((i % 100) as i64)),
        ("score", Value::Float(i as f64 * 0.5)),
    ]
}

pub fn vertex_property_rows(n: usize) -> Vec<[(&'static str, Value); 3]> {
    (0..n).map(vertex_properties).collect()
}

/// Loads `rows` as `Person` vertices through the bulk path.
pub fn load_vertices(store: &Store, rows: &[[(&'static str, Value); 3]]) -> Vec<NodeId> {
    let nodes: Vec<BulkNode<'_>> = rows
        .iter()
        .map(|props| BulkNode {
            labels: &["Person"],
            properties: props,
        })
        .collect();
    store.bulk_load_nodes(&nodes).expect("bulk load vertices")
}

/// `(src, dst, index into TYPES, properties)` of one generated edge.
pub type EdgeRow = (NodeId, NodeId, usize, [(&'static str, Value); 1]);

/// Every generated edge.
pub fn edge_rows(ids: &[NodeId], edges: usize) -> Vec<EdgeRow> {
    let mut rng = Rng::new(0x5eed);
    (0..edges)
        .map(|k| {
            let src = ids[rng.below(ids.len())];
            let dst = ids[rng.below(ids.len())];
            (src, dst, k % 2, [("weight", Value::Int((k % 1000) as i64))])
        })
        .collect()
}

/// Loads the edges through the bulk path, in chunks (bounded staging memory).
pub fn load_edges(store: &Store, rows: &[EdgeRow]) {
    for chunk in rows.chunks(1_000_000) {
        let rels: Vec<BulkRel<'_>> = chunk
            .iter()
            .map(|(src, dst, ty, props)| BulkRel {
                src: *src,
                dst: *dst,
                rel_type: TYPES[*ty],
                properties: props,
            })
            .collect();
        store.bulk_load_rels(&rels).expect("bulk load edges");
    }
}

/// The generated graph and its vertex ids.
pub struct Graph {
    pub store: Arc<Store>,
    pub ids: Vec<NodeId>,
    pub edges: usize,
}

pub fn build() -> Graph {
    let (vertices, edges) = size();
    let started = std::time::Instant::now();
    let store = Store::new(StoreConfig {
        partitions: PARTITIONS,
    });
    let ids = load_vertices(&store, &vertex_property_rows(vertices));
    load_edges(&store, &edge_rows(&ids, edges));
    eprintln!(
        "graph: {vertices} vertices, {edges} edges, {PARTITIONS} partitions per dimension, loaded in {:.1?}",
        started.elapsed()
    );
    Graph { store, ids, edges }
}
