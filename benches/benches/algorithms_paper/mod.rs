//! The Poseidon paper's two small-scale algorithm experiments (§7) on the
//! bench's graph: EgoNet on live data against the CSR view (its Figure 5:
//! 128 egonets, the 100 heaviest edges per vertex, 2 hops), and
//! approximate closeness centrality from 2,048 sources by multi-source BFS.
//! EgoNet runs on live data, on the weighted view (rows by target: the top
//! `k` selected per row) and on the weight-sorted view (the first `k` of
//! each row), the paper's three variants. All must find the same egonets:
//! the live one is a second, independent implementation of
//! `neptune.algo.egonet`'s rule.

use nereid_algorithms::{
    closeness, ego_hop, run_with_threads, sample_sources, Direction, EgoHop, GraphView, RowOrder,
    Stop, ViewSpec,
};
use nereid_storage::Txn;
use nereid_values::{Direction as Along, NodeId, Value};
use rayon::prelude::*;
use std::collections::HashSet;
use std::time::Instant;

const EGOS: usize = 128;
const PER_VERTEX: usize = 100;
const HOPS: usize = 2;
const CLOSENESS_SOURCES: usize = 2048;
/// Any fixed seed: the same sources on every run.
const CLOSENESS_SEED: u64 = 2048;

/// What an egonet came to: its edge count and the sum of their weights
/// (equal for both variants when they agree).
type Summary = (usize, f64);

/// Runs both experiments and prints their figures; `weighted` is a view
/// with the weight property `w`, `plain` one without weights.
pub fn run(txn: &Txn, weighted: &GraphView, plain: &GraphView, egos: &[u32], threads: usize) {
    let egos: Vec<u32> = egos.iter().copied().cycle().take(EGOS).collect();
    let nodes: Vec<NodeId> = egos.iter().map(|&v| weighted.node(v)).collect();
    // The paper's third variant: rows sorted by weight, heaviest first (a
    // view of its own; same nodes, so the same indices).
    let (sorted, sort_s) = timed(threads, || {
        let spec = ViewSpec::new(Vec::new(), None, Some("w".to_string()))
            .with_row_order(RowOrder::HeaviestFirst);
        GraphView::build(txn, &spec).expect("weight-sorted view")
    });
    println!("weight-sorted view build: {sort_s:.3} s");
    for workers in [1, threads] {
        let (live, live_s) = timed(workers, || {
            nodes
                .par_iter()
                .map(|&ego| ego_live(txn, ego))
                .collect::<Vec<_>>()
        });
        let on_view = |view: &GraphView| {
            timed(workers, || {
                egos.par_iter()
                    .map(|&ego| ego_csr(view, ego))
                    .collect::<Vec<_>>()
            })
        };
        let (csr, csr_s) = on_view(weighted);
        let (by_weight, by_weight_s) = on_view(&sorted);
        let agree = |other: &[Summary]| {
            live.len() == other.len()
                && live
                    .iter()
                    .zip(other)
                    .all(|(a, b)| a.0 == b.0 && (a.1 - b.1).abs() <= 1e-9 * a.1.abs().max(1.0))
        };
        let same = agree(&csr) && agree(&by_weight);
        let edges: usize = csr.iter().map(|s| s.0).sum();
        println!(
            "egonet ({EGOS} egos, k={PER_VERTEX}, {HOPS} hops, {workers} thread(s), {edges} edges): \
             live {:.0} egos/s, CSR view {:.0} egos/s ({:.1}x), weight-sorted view {:.0} egos/s \
             ({:.1}x); same egonets: {}",
            EGOS as f64 / live_s,
            EGOS as f64 / csr_s,
            live_s / csr_s,
            EGOS as f64 / by_weight_s,
            live_s / by_weight_s,
            if same { "yes" } else { "NO" }
        );
    }
    let g = plain.graph();
    // Drawn as `neptune.algo.closenessCentrality` draws its `numSources`.
    let sources = sample_sources(g.vertex_count(), CLOSENESS_SOURCES, CLOSENESS_SEED);
    let (reach, seconds) = timed(threads, || {
        closeness(g, &sources, Direction::Out, Stop::NEVER).expect("closeness")
    });
    let reached = reach.iter().filter(|r| r.reached > 0).count();
    println!(
        "approximate closeness ({CLOSENESS_SOURCES} sources, {threads} threads): {seconds:.3} s, \
         {reached} vertices reach a source"
    );
}

fn timed<T: Send>(threads: usize, work: impl FnOnce() -> T + Send) -> (T, f64) {
    run_with_threads(threads, || {
        let started = Instant::now();
        let out = work();
        (out, started.elapsed().as_secs_f64())
    })
    .expect("pool")
}

/// Heaviest first, ties to the smaller node (the view numbers nodes in
/// ascending id order, so both variants break ties alike).
fn keep_top<T: Copy + Ord>(row: &mut Vec<(T, f64)>) {
    let order = |a: &(T, f64), b: &(T, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if row.len() > PER_VERTEX {
        row.select_nth_unstable_by(PER_VERTEX, order);
        row.truncate(PER_VERTEX);
    }
    row.sort_unstable_by(order);
}

/// An egonet on live data: each frontier node's out-edges read from the
/// snapshot, their weights looked up by relationship, the top kept.
fn ego_live(txn: &Txn, ego: NodeId) -> Summary {
    let mut members = HashSet::from([ego]);
    let mut frontier = vec![ego];
    let (mut edges, mut weights) = (0, 0.0);
    let mut row = Vec::new();
    for _ in 0..HOPS {
        let mut kept = Vec::new();
        for &from in &frontier {
            let out = txn.expand(from, Along::Outgoing, &[]);
            let rels: Vec<_> = out.iter().map(|&(rel, _)| rel).collect();
            row.clear();
            for (&(_, to), w) in out.iter().zip(txn.rel_property_column(&rels, "w")) {
                if !members.contains(&to) {
                    row.push((to, number(w)));
                }
            }
            keep_top(&mut row);
            kept.extend(row.iter().copied());
        }
        frontier.clear();
        for (to, w) in kept {
            if members.insert(to) {
                frontier.push(to);
            }
            edges += 1;
            weights += w;
        }
    }
    (edges, weights)
}

/// The same egonet on the weighted CSR view, through the kernel
/// `neptune.algo.egonet` calls.
fn ego_csr(view: &GraphView, ego: u32) -> Summary {
    let hop = EgoHop {
        per_vertex: Some(PER_VERTEX),
        direction: Direction::Out,
        heaviest: true,
    };
    let mut members = HashSet::from([ego]);
    let mut frontier = vec![ego];
    let (mut edges, mut weights) = (0, 0.0);
    for _ in 0..HOPS {
        let seen = |v: u32| members.contains(&v);
        let kept = ego_hop(view.graph(), &frontier, hop, &seen, &|_| true);
        frontier.clear();
        for (_, to, w) in kept {
            if members.insert(to) {
                frontier.push(to);
            }
            edges += 1;
            weights += w;
        }
    }
    (edges, weights)
}

fn number(value: Option<Value>) -> f64 {
    match value {
        Some(Value::Int(i)) => i as f64,
        Some(Value::Float(f)) => f,
        other => panic!("weight {other:?}"),
    }
}
