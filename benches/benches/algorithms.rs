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
//! `NEREID_ALGO_KERNELS=paper` (or a full run) adds the Poseidon paper's
//! EgoNet and approximate-closeness experiments (`algorithms_paper`).

mod algorithms_paper;

use nereid_algorithms::{
    bfs, delta_stepping, pagerank, run_with_threads, triangle_count, wcc, Direction, GraphView,
    PageRankOptions, Stop, ViewSpec,
};
use nereid_storage::{BulkNode, BulkRel, Store, StoreConfig};
use nereid_values::Value;
use std::collections::HashMap;
use std::hint::black_box;
use std::io::BufRead;
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
    let (n, mut edges) = read_edges(&path);
    edges.shrink_to_fit();
    println!(
        "graph: {n} vertices, {} directed edges, {threads} threads",
        edges.len()
    );

    let started = Instant::now();
    let store = load(n, &edges);
    let edge_count = edges.len();
    // The list is not needed past the load (GAPBS reads its own copy).
    drop(edges);
    println!(
        "bulk load into the store: {:.2} s; resident {}",
        started.elapsed().as_secs_f64(),
        resident(edge_count)
    );
    let txn = store.begin();
    let ((view, plain_cpu), (weighted, weighted_cpu)) = run_with_threads(threads, || {
        let cpu = process_cpu();
        let plain = GraphView::build(&txn, &ViewSpec::default()).expect("view");
        let between = process_cpu();
        let spec = ViewSpec::new(Vec::new(), None, Some("w".to_string()));
        let weighted = GraphView::build(&txn, &spec).expect("weighted view");
        ((plain, between - cpu), (weighted, process_cpu() - between))
    })
    .expect("pool");
    for (name, v, cpu) in [
        ("view", &view, plain_cpu),
        ("weighted view", &weighted, weighted_cpu),
    ] {
        println!(
            "{name} build: {:.3} s (CPU {cpu:.2} s), {:.1} bytes per edge",
            v.build_time().as_secs_f64(),
            v.graph().bytes() as f64 / v.graph().edge_count() as f64
        );
    }
    // `NEREID_ALGO_VIEW_ROUNDS`: the plain view built again that many
    // times (its memory recycled from the one before, so these figures
    // leave out the first touch of fresh pages that the first build pays).
    for _ in 0..env_or("NEREID_ALGO_VIEW_ROUNDS", 0usize) {
        let (again, cpu) = run_with_threads(threads, || {
            let cpu = process_cpu();
            let again = GraphView::build(&txn, &ViewSpec::default()).expect("view");
            (again, process_cpu() - cpu)
        })
        .expect("pool");
        println!(
            "view built again: {:.3} s (CPU {cpu:.2} s)",
            again.build_time().as_secs_f64()
        );
    }
    compare_weight_reads(&txn, threads);
    println!("with both views: resident {}", resident(edge_count));
    let g = view.graph();
    let sources = sources(g, 64);
    let gapbs = |kernel: &str, args: &[&str]| gapbs_average(kernel, args, threads);
    let s = scale.to_string();
    // `NEREID_GAPBS_SG`: the same graph serialized by GAPBS's `converter
    // -g <scale> -b <file>`, read instead of generated (seconds less per
    // run, and its CPU time apart from the kernel's is small and measured).
    let serialized = std::env::var("NEREID_GAPBS_SG").ok();
    let graph_args: Vec<&str> = match &serialized {
        Some(file) => vec!["-f", file.as_str()],
        None => vec!["-g", &s],
    };
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
    if wanted("paper") {
        algorithms_paper::run(&txn, &weighted, &view, &sources, threads);
    }
    for round in 1..=rounds {
        let networkit = match only {
            None => networkit_means(&path, threads, &sources[..16]),
            Some(_) => HashMap::new(),
        };
        let mut rows = Vec::new();
        let mut cpu_lines = Vec::new();
        if wanted("bfs") {
            rows.push((
                "bfs",
                time(threads, 16, |i| {
                    black_box(bfs(g, sources[i], Direction::Out, None, Stop::NEVER).unwrap());
                }),
                gapbs("bfs", &[&graph_args[..], &["-n", "16"]].concat()),
            ));
        }
        if wanted("pr") {
            // Neptune's defaults as GAPBS's: at most 20 iterations, stop
            // when the ranks moved less than 1e-4 in total (L1). Against
            // GAPBS's `pr` (Gauss-Seidel-like, 8 iterations to that
            // tolerance at scale 20) and its `pr_spmv` (Jacobi as ours, the
            // same iterations); then 20 iterations each, no tolerance: the
            // cost of one iteration. CPU time beside wall time.
            let ours = time_and_cpu(threads, 4, |_| {
                black_box(pagerank(g, &pagerank_options(20, 1e-4), Stop::NEVER).unwrap());
            });
            let (gs, gs_cpu) = gapbs_timed("pr", &graph_args, &["-n", "4"], threads);
            let (jacobi, jacobi_cpu) = gapbs_timed("pr_spmv", &graph_args, &["-n", "4"], threads);
            let fixed = time_and_cpu(threads, 4, |_| {
                black_box(pagerank(g, &pagerank_options(20, 0.0), Stop::NEVER).unwrap());
            });
            let (gs20, gs20_cpu) = gapbs_timed(
                "pr",
                &graph_args,
                &["-n", "4", "-i", "20", "-t", "0"],
                threads,
            );
            cpu_lines.push(format!(
                "pr cpu per trial: nereid {:.3} s, GAPBS pr {}, pr_spmv {}; \
                 20 iterations: nereid {:.3} s, GAPBS pr {}",
                ours.1,
                seconds(gs_cpu),
                seconds(jacobi_cpu),
                fixed.1,
                seconds(gs20_cpu)
            ));
            rows.push(("pr", ours.0, gs));
            rows.push(("pr/spmv", ours.0, jacobi));
            rows.push(("pr20", fixed.0, gs20));
        }
        if wanted("cc") {
            rows.push((
                "cc",
                time(threads, 4, |_| {
                    black_box(wcc(g));
                }),
                gapbs("cc", &[&graph_args[..], &["-n", "4"]].concat()),
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
                gapbs("tc", &[&graph_args[..], &["-n", "4"]].concat()),
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
        for line in cpu_lines {
            println!("{line}");
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

/// The two ways of reading every edge's weight, alternated
/// (`NEREID_ALGO_WEIGHT_ROUNDS` times each, default 2; 0 skips): one
/// search of the REL_EP partition per relationship
/// (`Txn::rel_property_column`, the view's way before) against one scan
/// of each cell's REL_EP partition and a lookup by relationship
/// (`Apl::rel_property_in_cell`, the view's way now). The relationships are
/// gathered per cell first, outside the timing; wall and CPU seconds.
fn compare_weight_reads(txn: &nereid_storage::Txn, threads: usize) {
    use nereid_storage::apl::{EdgePattern, Endpoint, ModeChoice};
    let rounds: usize = env_or("NEREID_ALGO_WEIGHT_ROUNDS", 2);
    if rounds == 0 {
        return;
    }
    let pattern = EdgePattern {
        src: Endpoint::Any,
        types: &[],
        dst: Endpoint::Any,
    };
    let per_cell: Vec<Vec<nereid_values::RelId>> = (0..txn.apl().cells())
        .map(|cell| {
            let mut rels = Vec::new();
            txn.apl()
                .edges_in_cell(&pattern, cell, ModeChoice::Auto, |m| rels.push(m.rel));
            rels
        })
        .collect();
    // Cells dealt to `threads` threads in turn; the sum of the weights
    // read, so that nothing is optimised away and both ways agree.
    let over_cells = |read: &(dyn Fn(usize, &[nereid_values::RelId]) -> f64 + Sync)| -> f64 {
        std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads)
                .map(|t| {
                    let per_cell = &per_cell;
                    scope.spawn(move || {
                        (t..per_cell.len())
                            .step_by(threads)
                            .map(|cell| read(cell, &per_cell[cell]))
                            .sum::<f64>()
                    })
                })
                .collect();
            workers.into_iter().map(|w| w.join().unwrap()).sum()
        })
    };
    let searched = || -> f64 {
        over_cells(&|_, rels| {
            txn.rel_property_column(rels, "w")
                .iter()
                .map(|v| number(v.as_ref()))
                .sum()
        })
    };
    let scanned = || -> f64 {
        over_cells(&|cell, rels| {
            let column = txn.apl().rel_property_in_cell(cell, "w");
            rels.iter().map(|&r| number(column.get(r))).sum()
        })
    };
    let timed = |read: &dyn Fn() -> f64| {
        let (cpu, started) = (process_cpu(), Instant::now());
        let total = black_box(read());
        (started.elapsed().as_secs_f64(), process_cpu() - cpu, total)
    };
    for round in 0..rounds {
        let order: [(&str, &dyn Fn() -> f64); 2] = if round % 2 == 0 {
            [
                ("search per relationship", &searched),
                ("scan per cell", &scanned),
            ]
        } else {
            [
                ("scan per cell", &scanned),
                ("search per relationship", &searched),
            ]
        };
        for (name, read) in order {
            let (wall, cpu, total) = timed(read);
            println!("weights, {name}: {wall:.3} s (CPU {cpu:.2} s), sum {total}");
        }
    }
}

/// A weight value as a number (0 when absent or not a number).
fn number(value: Option<&Value>) -> f64 {
    match value {
        Some(&Value::Int(i)) => i as f64,
        Some(&Value::Float(f)) => f,
        _ => 0.0,
    }
}

/// This process's resident memory now and at its peak (`/proc/self/status`),
/// and per directed edge.
fn resident(edges: usize) -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib = |field: &str| -> f64 {
        status
            .lines()
            .find_map(|l| l.strip_prefix(field))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
            .unwrap_or(0.0)
    };
    let (now, peak) = (kib("VmRSS:") * 1024.0, kib("VmHWM:") * 1024.0);
    format!(
        "{:.2} GB ({:.1} bytes per edge), peak {:.2} GB ({:.1} bytes per edge)",
        now / 1e9,
        now / edges as f64,
        peak / 1e9,
        peak / edges as f64
    )
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

/// `src dst weight` lines, read line by line (the file is never held
/// whole: at scale 22 it is 2.3 GB); vertices are `0..=max id`.
fn read_edges(path: &str) -> (usize, Vec<(u32, u32, i64)>) {
    let file = std::fs::File::open(path).expect("the edge list");
    let mut reader = std::io::BufReader::with_capacity(1 << 20, file);
    let (mut edges, mut line) = (Vec::new(), String::new());
    while reader.read_line(&mut line).is_ok_and(|read| read > 0) {
        let mut t = line.split_whitespace().map(|x| x.parse::<i64>().ok());
        if let (Some(Some(s)), Some(Some(d))) = (t.next(), t.next()) {
            edges.push((s as u32, d as u32, t.next().flatten().unwrap_or(1)));
        }
        line.clear();
    }
    let n = edges
        .iter()
        .map(|&(s, d, _)| s.max(d))
        .max()
        .map_or(0, |m| m as usize + 1);
    (n, edges)
}

/// Relationships per bulk-load call (their weight values are made per
/// call, not for the whole list at once: 32 bytes a value).
const LOAD_CHUNK: usize = 1 << 20;

fn load(n: usize, edges: &[(u32, u32, i64)]) -> std::sync::Arc<Store> {
    let store = Store::new(StoreConfig::default());
    let nodes: Vec<BulkNode<'_>> = (0..n)
        .map(|_| BulkNode {
            labels: &[],
            properties: &[],
        })
        .collect();
    let ids = store.bulk_load_nodes(&nodes).expect("nodes");
    for chunk in edges.chunks(LOAD_CHUNK) {
        let weights: Vec<[(&str, Value); 1]> = chunk
            .iter()
            .map(|&(_, _, w)| [("w", Value::Int(w))])
            .collect();
        let rels: Vec<BulkRel<'_>> = chunk
            .iter()
            .zip(&weights)
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
    gapbs_run(kernel, args, threads).map(|(average, _)| average)
}

/// GAPBS's `Average Time` of `kernel graph trials` and the CPU seconds
/// per trial: the run's user and system time less that of a run of no
/// trial on the same graph (reading it). OpenMP's waiting threads spin
/// for a while before they sleep, so GAPBS's CPU time counts some
/// waiting too.
fn gapbs_timed(
    kernel: &str,
    graph: &[&str],
    trials: &[&str],
    threads: usize,
) -> (Option<f64>, Option<f64>) {
    let Some((average, cpu)) = gapbs_run(kernel, &[graph, trials].concat(), threads) else {
        return (None, None);
    };
    let count: f64 = trials
        .windows(2)
        .find(|w| w[0] == "-n")
        .and_then(|w| w[1].parse().ok())
        .unwrap_or(1.0);
    let idle = gapbs_run(kernel, &[graph, &["-n", "0"]].concat(), threads);
    let per_trial = match (cpu, idle) {
        (Some(cpu), Some((_, Some(idle)))) => Some((cpu - idle) / count),
        _ => None,
    };
    (Some(average), per_trial)
}

/// One run of a GAPBS binary under `/usr/bin/time` (when there): its
/// `Average Time` and its user + system seconds.
fn gapbs_run(kernel: &str, args: &[&str], threads: usize) -> Option<(f64, Option<f64>)> {
    let dir = std::env::var("NEREID_GAPBS_DIR").ok()?;
    let binary = format!("{dir}/{kernel}");
    let timer = std::path::Path::new("/usr/bin/time");
    let mut command = if timer.exists() {
        let mut c = Command::new(timer);
        c.args(["-f", "cpu %U %S", &binary]);
        c
    } else {
        Command::new(&binary)
    };
    let output = command
        .args(args)
        .env("OMP_NUM_THREADS", threads.to_string())
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&output.stdout);
    let average = text
        .lines()
        .find_map(|l| l.strip_prefix("Average Time:"))
        .and_then(|t| t.trim().parse().ok())
        .or(Some(0.0).filter(|_| args.ends_with(&["-n", "0"])))?;
    let cpu = String::from_utf8_lossy(&output.stderr)
        .lines()
        .find_map(|l| l.strip_prefix("cpu "))
        .and_then(|t| {
            let mut parts = t.split_whitespace().map(|x| x.parse::<f64>().ok());
            Some(parts.next()?? + parts.next()??)
        });
    Some((average, cpu))
}

/// A figure or a dash.
fn seconds(figure: Option<f64>) -> String {
    figure.map_or("—".to_string(), |s| format!("{s:.3} s"))
}

fn pagerank_options(iterations: u32, tolerance: f64) -> PageRankOptions {
    PageRankOptions {
        direction: Direction::Out,
        damping: 0.85,
        iterations,
        tolerance,
    }
}

/// [`time`] and the process's CPU seconds per trial over the same trials
/// (user + system from `/proc/self/stat`, in clock ticks of 10 ms).
fn time_and_cpu(threads: usize, trials: usize, kernel: impl Fn(usize) + Send + Sync) -> (f64, f64) {
    let before = process_cpu();
    let wall = time(threads, trials, kernel);
    (wall, (process_cpu() - before) / trials as f64)
}

/// User + system seconds of this process so far.
fn process_cpu() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command's closing parenthesis; utime and stime
    // are the 14th and 15th of the line.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let ticks: f64 = rest
        .split_whitespace()
        .skip(11)
        .take(2)
        .filter_map(|x| x.parse::<f64>().ok())
        .sum();
    ticks / 100.0
}
