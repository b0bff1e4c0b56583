//! The graph kernels against GAPBS (the GAP Benchmark Suite) on the same
//! Kronecker graph, in one run, on the same number of threads.
//!
//! `NEREID_ALGO_GRAPH` names a weighted edge list written by GAPBS's
//! `converter -g <scale> -w -e <file>` (each undirected edge both ways);
//! `NEREID_GAPBS_DIR` the directory of the built GAPBS binaries, run on
//! `-g <scale>` (the same generator and seed: the same graph), and on the
//! file for SSSP; `NEREID_ALGO_SCALE` that scale; `NEREID_ALGO_THREADS` the
//! threads of both (default 2). The graph is bulk-loaded into a store; the
//! CSR view is built from a snapshot of it (timed apart: GAPBS's figures
//! exclude its graph build too); then each kernel runs as many trials as
//! GAPBS's and the mean is reported, next to GAPBS's `Average Time`; the
//! best of three interleaved rounds of both, the machine being shared.
//! With `NEREID_NETWORKIT_PYTHON` (a Python that has `networkit`), each
//! round also runs `benches/compare/networkit/kernels.py` on the same file,
//! threads and sources: NetworKit's figures in a third column (its SSSP is
//! Dijkstra, its triangle count the per-edge triangle scores).

use nereid_algorithms::{
    bfs, delta_stepping, pagerank, run_with_threads, triangle_count, wcc, Direction, GraphView,
    PageRankOptions, Stop, ViewSpec,
};
use nereid_storage::{BulkNode, BulkRel, Store, StoreConfig};
use nereid_values::Value;
use std::collections::HashMap;
use std::hint::black_box;
use std::process::Command;
use std::time::Instant;

/// Rounds of the whole comparison (`NEREID_ALGO_ROUNDS` overrides).
const ROUNDS: usize = 3;

#[global_allocator]
static ALLOCATOR: nereid_alloc::Allocator = nereid_alloc::Allocator;

fn main() {
    let Ok(path) = std::env::var("NEREID_ALGO_GRAPH") else {
        eprintln!("algorithms bench: set NEREID_ALGO_GRAPH (see the module doc); skipped");
        return;
    };
    nereid_alloc::prefer_huge_pages();
    let threads: usize = env_or("NEREID_ALGO_THREADS", 2);
    let scale: u32 = env_or("NEREID_ALGO_SCALE", 18);
    let (n, edges) = read_edges(&path);
    println!(
        "graph: {n} vertices, {} directed edges, {threads} threads",
        edges.len()
    );

    let started = Instant::now();
    let store = load(n, &edges);
    println!(
        "bulk load into the store: {:.2} s",
        started.elapsed().as_secs_f64()
    );
    let txn = store.begin();
    let (view, weighted) = run_with_threads(threads, || {
        let plain = GraphView::build(&txn, &ViewSpec::default()).expect("view");
        let spec = ViewSpec::new(Vec::new(), None, Some("w".to_string()));
        let weighted = GraphView::build(&txn, &spec).expect("weighted view");
        (plain, weighted)
    })
    .expect("pool");
    for (name, v) in [("view", &view), ("weighted view", &weighted)] {
        println!(
            "{name} build: {:.3} s, {:.1} bytes per edge",
            v.build_time().as_secs_f64(),
            v.graph().bytes() as f64 / v.graph().edge_count() as f64
        );
    }
    let g = view.graph();
    let sources = sources(g, 64);
    let gapbs = |kernel: &str, args: &[&str]| gapbs_average(kernel, args, threads);
    let s = scale.to_string();
    // The machine is shared: each figure is the best of `ROUNDS`
    // interleaved rounds of both.
    let mut best: Vec<(&str, f64, Option<f64>, Option<f64>)> = Vec::new();
    let rounds: usize = env_or("NEREID_ALGO_ROUNDS", ROUNDS);
    let table_head = || {
        println!(
            "| kernel | nereid mean (s) | GAPBS average (s) | ratio | NetworKit mean (s) | ratio |"
        );
        println!("|---|---:|---:|---:|---:|---:|");
    };
    // `NEREID_ALGO_KERNELS` (comma-separated names) runs only those, and
    // NetworKit not at all: a quick look at one kernel after a change.
    let only = std::env::var("NEREID_ALGO_KERNELS").ok();
    let wanted = |kernel: &str| {
        only.as_ref()
            .is_none_or(|o| o.split(',').any(|k| k == kernel))
    };
    for round in 1..=rounds {
        let networkit = match only {
            None => networkit_means(&path, threads, &sources[..16]),
            Some(_) => HashMap::new(),
        };
        let mut rows = Vec::new();
        if wanted("bfs") {
            rows.push((
                "bfs",
                time(threads, 16, |i| {
                    black_box(bfs(g, sources[i], Direction::Out, None, Stop::NEVER).unwrap());
                }),
                gapbs("bfs", &["-g", &s, "-n", "16"]),
            ));
        }
        if wanted("pr") {
            rows.push((
                "pr",
                time(threads, 4, |_| {
                    let options = PageRankOptions {
                        direction: Direction::Out,
                        damping: 0.85,
                        iterations: 20,
                        tolerance: 1e-4,
                    };
                    black_box(pagerank(g, &options, Stop::NEVER).unwrap());
                }),
                gapbs("pr", &["-g", &s, "-n", "4"]),
            ));
        }
        if wanted("cc") {
            rows.push((
                "cc",
                time(threads, 4, |_| {
                    black_box(wcc(g));
                }),
                gapbs("cc", &["-g", &s, "-n", "4"]),
            ));
        }
        if wanted("sssp") {
            rows.push((
                "sssp",
                time(threads, 16, |i| {
                    black_box(
                        delta_stepping(
                            weighted.graph(),
                            sources[i],
                            Direction::Out,
                            1.0,
                            Stop::NEVER,
                        )
                        .unwrap(),
                    );
                }),
                gapbs("sssp", &["-f", &path, "-n", "16", "-d", "1"]),
            ));
        }
        if wanted("tc") {
            rows.push((
                "tc",
                time(threads, 4, |_| {
                    black_box(triangle_count(g));
                }),
                gapbs("tc", &["-g", &s, "-n", "4"]),
            ));
        }
        // Each round prints as it ends: a long sitting that is stopped
        // still leaves its finished rounds.
        println!(
            "round {round} of {rounds} (load average {}):",
            load_average()
        );
        table_head();
        for (i, (kernel, ours, theirs)) in rows.into_iter().enumerate() {
            let library = networkit.get(kernel).copied();
            print_row(kernel, ours, theirs, library);
            match best.get_mut(i) {
                None => best.push((kernel, ours, theirs, library)),
                Some(b) => {
                    b.1 = b.1.min(ours);
                    b.2 = least(b.2, theirs);
                    b.3 = least(b.3, library);
                }
            }
        }
    }
    println!("best of {rounds} rounds:");
    table_head();
    for (kernel, ours, theirs, library) in best {
        print_row(kernel, ours, theirs, library);
    }
}

/// One table row: our figure and its ratio to GAPBS's and NetworKit's.
fn print_row(kernel: &str, ours: f64, theirs: Option<f64>, library: Option<f64>) {
    let cell = |theirs: Option<f64>| match theirs {
        Some(t) => format!("{t:.4} | {:.2}", ours / t),
        None => "— | —".to_string(),
    };
    println!(
        "| {kernel} | {ours:.4} | {} | {} |",
        cell(theirs),
        cell(library)
    );
}

/// The 1-minute load average, for the record beside each round.
fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".to_string())
}

/// The smaller of two optional figures (either when one is missing).
fn least(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

/// NetworKit's mean seconds per kernel on the same file, threads and
/// sources (empty without `NEREID_NETWORKIT_PYTHON`).
fn networkit_means(path: &str, threads: usize, sources: &[u32]) -> HashMap<String, f64> {
    let Ok(python) = std::env::var("NEREID_NETWORKIT_PYTHON") else {
        return HashMap::new();
    };
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/compare/networkit/kernels.py");
    let list: Vec<String> = sources.iter().map(u32::to_string).collect();
    let Ok(output) = Command::new(python)
        .args([script, path, &threads.to_string(), &list.join(",")])
        .output()
    else {
        return HashMap::new();
    };
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| {
            let (kernel, seconds) = line.split_once(' ')?;
            Some((kernel.to_string(), seconds.trim().parse().ok()?))
        })
        .collect()
}

fn env_or<T: std::str::FromStr>(key: &str, default: T) -> T {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// `src dst weight` lines; vertices are `0..=max id`.
fn read_edges(path: &str) -> (usize, Vec<(u32, u32, i64)>) {
    let text = std::fs::read_to_string(path).expect("the edge list");
    let edges: Vec<(u32, u32, i64)> = text
        .lines()
        .filter_map(|line| {
            let mut t = line.split_whitespace().map(|x| x.parse::<i64>().ok());
            Some((
                t.next()?? as u32,
                t.next()?? as u32,
                t.next().flatten().unwrap_or(1),
            ))
        })
        .collect();
    let n = edges
        .iter()
        .map(|&(s, d, _)| s.max(d))
        .max()
        .map_or(0, |m| m as usize + 1);
    (n, edges)
}

fn load(n: usize, edges: &[(u32, u32, i64)]) -> std::sync::Arc<Store> {
    let store = Store::new(StoreConfig::default());
    let nodes: Vec<BulkNode<'_>> = (0..n)
        .map(|_| BulkNode {
            labels: &[],
            properties: &[],
        })
        .collect();
    let ids = store.bulk_load_nodes(&nodes).expect("nodes");
    let weights: Vec<[(&str, Value); 1]> = edges
        .iter()
        .map(|&(_, _, w)| [("w", Value::Int(w))])
        .collect();
    for (chunk, weights) in edges.chunks(1 << 20).zip(weights.chunks(1 << 20)) {
        let rels: Vec<BulkRel<'_>> = chunk
            .iter()
            .zip(weights)
            .map(|(&(s, d, _), w)| BulkRel {
                src: ids[s as usize],
                dst: ids[d as usize],
                rel_type: "E",
                properties: w,
            })
            .collect();
        store.bulk_load_rels(&rels).expect("edges");
    }
    store
}

/// `count` vertices with edges, from a fixed seed.
fn sources(g: &nereid_algorithms::Graph, count: usize) -> Vec<u32> {
    let mut state = 27491095u64;
    let mut picked = Vec::new();
    while picked.len() < count {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let v = ((state >> 33) % g.vertex_count() as u64) as u32;
        if g.out().degree(v) > 0 {
            picked.push(v);
        }
    }
    picked
}

/// Mean seconds of `trials` runs of `kernel(trial)` on `threads` workers
/// (the pool is built once, outside the timing).
fn time(threads: usize, trials: usize, kernel: impl Fn(usize) + Send + Sync) -> f64 {
    run_with_threads(threads, || {
        let started = Instant::now();
        for trial in 0..trials {
            kernel(trial);
        }
        started.elapsed().as_secs_f64() / trials as f64
    })
    .expect("pool")
}

/// GAPBS's `Average Time` for `kernel args`, if its binaries are there.
fn gapbs_average(kernel: &str, args: &[&str], threads: usize) -> Option<f64> {
    let dir = std::env::var("NEREID_GAPBS_DIR").ok()?;
    let output = Command::new(format!("{dir}/{kernel}"))
        .args(args)
        .env("OMP_NUM_THREADS", threads.to_string())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    text.lines()
        .find_map(|l| l.strip_prefix("Average Time:"))
        .and_then(|t| t.trim().parse().ok())
}
