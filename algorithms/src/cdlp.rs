//! Community detection by label propagation (CDLP), synchronous and
//! deterministic as LDBC Graphalytics defines it: every vertex starts with
//! its own label; in each round it takes the label most frequent among its
//! neighbours (with multiplicity: an edge both ways counts twice when both
//! directions are followed), the smallest on a tie, and keeps its label if
//! it has no neighbour.

use crate::csr::{Direction, Graph};
use crate::error::AlgorithmError;
use crate::stop::Stop;
use rayon::prelude::*;

/// The label of every vertex after `iterations` rounds (a label is a
/// vertex index).
pub fn label_propagation(
    graph: &Graph,
    dir: Direction,
    iterations: u32,
    stop: Stop,
) -> Result<Vec<u32>, AlgorithmError> {
    let n = graph.vertex_count();
    let mut labels: Vec<u32> = (0..n as u32).collect();
    for _ in 0..iterations {
        stop.check()?;
        let next: Vec<u32> = (0..n as u32)
            .into_par_iter()
            .map_init(Vec::new, |seen, v| {
                seen.clear();
                seen.extend(graph.neighbours(v, dir).map(|w| labels[w as usize]));
                most_frequent(seen).unwrap_or(labels[v as usize])
            })
            .collect();
        if next == labels {
            break;
        }
        labels = next;
    }
    Ok(labels)
}

/// The most frequent value, the smallest among equally frequent ones.
fn most_frequent(values: &mut [u32]) -> Option<u32> {
    values.sort_unstable();
    let mut best: Option<(usize, u32)> = None;
    for run in values.chunk_by(|a, b| a == b) {
        if best.is_none_or(|(count, _)| run.len() > count) {
            best = Some((run.len(), run[0]));
        }
    }
    best.map(|(_, label)| label)
}
