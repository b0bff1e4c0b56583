//! The vector index's approximate graph alone (`nereid_vector::hnsw`, the
//! graph a vector index keeps), for `benches/compare/vectors`: reads a data
//! set that script wrote, builds the graph with 2 threads, then answers
//! every query single-threaded at each `ef`, and prints one JSON object:
//! build seconds and, per `ef`, queries/s and recall@k against the
//! script's exact neighbours.
//!
//! Input (little-endian): u32 n, u32 queries, u32 dims, u32 k, u32
//! similarity (0 cosine, 1 euclidean), n*dims f32 data, queries*dims f32
//! queries, queries*k u32 exact neighbours; then the `ef`s as arguments.

use nereid_vector::{hnsw, Similarity};
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: vector_ann FILE EF...");
    let efs: Vec<usize> = args.map(|a| a.parse().expect("ef")).collect();
    let bytes = std::fs::read(&path).expect("read data set");
    let mut words = bytes.chunks_exact(4).map(|c| [c[0], c[1], c[2], c[3]]);
    let mut next_u32 = || u32::from_le_bytes(words.next().expect("truncated")) as usize;
    let (n, queries, dims, k, sim) = (next_u32(), next_u32(), next_u32(), next_u32(), next_u32());
    let floats: Vec<f32> = bytes[20..20 + 4 * dims * (n + queries)]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let (data, query_data) = floats.split_at(n * dims);
    let truth: Vec<usize> = bytes[20 + 4 * dims * (n + queries)..]
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]) as usize)
        .collect();
    let similarity = if sim == 0 {
        Similarity::Cosine
    } else {
        Similarity::Euclidean
    };

    let graph = hnsw(similarity, n);
    let started = Instant::now();
    std::thread::scope(|s| {
        for t in 0..2 {
            let graph = &graph;
            s.spawn(move || {
                for i in (t..n).step_by(2) {
                    graph.insert(i, &data[i * dims..(i + 1) * dims]);
                }
            });
        }
    });
    let build = started.elapsed().as_secs_f64();

    let mut runs = Vec::new();
    for ef in efs {
        let started = Instant::now();
        let mut found = 0;
        for q in 0..queries {
            let answer = graph.search(&query_data[q * dims..(q + 1) * dims], k, ef);
            let exact = &truth[q * k..(q + 1) * k];
            found += answer.iter().filter(|p| exact.contains(p)).count();
        }
        let seconds = started.elapsed().as_secs_f64();
        runs.push(format!(
            "{{\"ef\": {ef}, \"qps\": {:.1}, \"recall\": {:.4}}}",
            queries as f64 / seconds,
            found as f64 / (queries * k) as f64
        ));
    }
    println!(
        "{{\"build_seconds\": {build:.3}, \"runs\": [{}]}}",
        runs.join(", ")
    );
}
