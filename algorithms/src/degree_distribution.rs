//! The distribution of vertex degrees: a histogram in bins of a chosen
//! width and the usual summary (minimum, maximum, mean, percentiles).

use crate::csr::{Direction, Graph};
use crate::error::AlgorithmError;
use crate::stop::Stop;
use rayon::prelude::*;

/// The percentiles reported, as fractions.
pub const PERCENTILES: [f64; 6] = [0.5, 0.75, 0.9, 0.95, 0.99, 0.999];

/// The degrees of the counted vertices, summarised.
#[derive(Debug, Clone, PartialEq)]
pub struct DegreeDistribution {
    /// `(bin, vertices)` for every non-empty bin, by increasing bin. A bin
    /// is named by its largest degree: degree 0 alone, then
    /// `1..=width`, `width+1..=2*width`, ... (so with width 1 each bin is
    /// one degree).
    pub bins: Vec<(u64, u64)>,
    pub min: u64,
    pub max: u64,
    pub mean: f64,
    /// The nearest-rank percentile of each of [`PERCENTILES`]: the
    /// smallest degree at least that fraction of the vertices do not
    /// exceed.
    pub percentiles: [u64; 6],
}

/// The distribution of the degrees along `dir` of the vertices `counted`
/// keeps (all when `None`), counting only edges whose other end it keeps
/// too; `None` when no vertex is counted. `width` is at least 1.
pub fn degree_distribution(
    graph: &Graph,
    dir: Direction,
    counted: Option<&[bool]>,
    width: u64,
    stop: Stop,
) -> Result<Option<DegreeDistribution>, AlgorithmError> {
    stop.check()?;
    let keep = |v: u32| counted.is_none_or(|c| c[v as usize]);
    let mut degrees: Vec<u64> = (0..graph.vertex_count() as u32)
        .into_par_iter()
        .filter(|&v| keep(v))
        .map(|v| match counted {
            None => graph.degree(v, dir) as u64,
            Some(_) => graph.neighbours(v, dir).filter(|&u| keep(u)).count() as u64,
        })
        .collect();
    stop.check()?;
    if degrees.is_empty() {
        return Ok(None);
    }
    degrees.par_sort_unstable();
    let n = degrees.len();
    let mut bins: Vec<(u64, u64)> = Vec::new();
    for &d in &degrees {
        let bin = d.div_ceil(width) * width;
        match bins.last_mut() {
            Some((last, count)) if *last == bin => *count += 1,
            _ => bins.push((bin, 1)),
        }
    }
    let rank = |p: f64| degrees[((p * n as f64).ceil() as usize).clamp(1, n) - 1];
    Ok(Some(DegreeDistribution {
        bins,
        min: degrees[0],
        max: degrees[n - 1],
        mean: degrees.iter().sum::<u64>() as f64 / n as f64,
        percentiles: PERCENTILES.map(rank),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A star: vertex 0 points at 1..=10; 11 and 12 are isolated.
    fn star() -> Graph {
        let edges: Vec<(u32, u32)> = (1..=10).map(|v| (0, v)).collect();
        Graph::from_edges(13, &edges, None)
    }

    #[test]
    fn counts_each_degree_and_summarises() {
        let d = degree_distribution(&star(), Direction::Both, None, 1, Stop::NEVER)
            .unwrap()
            .unwrap();
        assert_eq!(d.bins, vec![(0, 2), (1, 10), (10, 1)]);
        assert_eq!((d.min, d.max), (0, 10));
        assert_eq!(d.mean, 20.0 / 13.0);
        // 13 vertices: p50 is the 7th smallest degree (1), p90 the 12th
        // (1), p95 and above the 13th (10).
        assert_eq!(d.percentiles, [1, 1, 1, 10, 10, 10]);
    }

    #[test]
    fn bins_are_named_by_their_largest_degree() {
        let d = degree_distribution(&star(), Direction::Out, None, 4, Stop::NEVER)
            .unwrap()
            .unwrap();
        // Out-degrees: twelve 0s and one 10 (in the bin 9..=12).
        assert_eq!(d.bins, vec![(0, 12), (12, 1)]);
    }

    #[test]
    fn only_counted_vertices_and_their_edges_among_them() {
        let mut counted = vec![true; 13];
        counted[1] = false;
        counted[2] = false;
        let d = degree_distribution(&star(), Direction::In, Some(&counted), 1, Stop::NEVER)
            .unwrap()
            .unwrap();
        assert_eq!(d.bins, vec![(0, 3), (1, 8)]);
        let none = vec![false; 13];
        let nothing = degree_distribution(&star(), Direction::In, Some(&none), 1, Stop::NEVER);
        assert_eq!(nothing.unwrap(), None);
    }
}
