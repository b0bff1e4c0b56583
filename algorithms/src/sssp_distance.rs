//! The tentative distances a shortest-path run keeps, one atomic cell per
//! vertex, in one of two widths:
//! - [`Exact32`]: when every weight is a non-negative integer and no simple
//!   path can sum past `u32::MAX - 1` (the largest weight times `n - 1`),
//!   distances are integers that a `u32` holds exactly. Half the bytes of
//!   the general cell: the relaxations' random reads of the targets'
//!   distances stay in cache twice as long (GAPBS keeps 4-byte distances
//!   for the same reason). The sums are exact, so the distances are the
//!   same numbers the general cell would find.
//! - [`Float64`]: an `f64` kept as its bits in an `AtomicU64`: for
//!   non-negative floats the bit patterns order as the numbers do, so
//!   `fetch_min` on the bits is a minimum on the distances.

use crate::csr::Graph;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// One vertex's tentative distance.
pub(crate) trait Distance: Sync + Send + Sized {
    type Value: Copy + PartialOrd + Send + Sync;
    const ZERO: Self::Value;
    fn unreached() -> Self;
    fn get(&self) -> Self::Value;
    fn set(&self, value: Self::Value);
    /// Lowers the distance to `value`; whether it went down.
    fn lower(&self, value: Self::Value) -> bool;
    /// A distance plus an edge's weight (the weight as the view holds it).
    fn add(d: Self::Value, weight: f64) -> Self::Value;
    fn widen(value: Self::Value) -> f64;
}

/// The general cell: any non-negative weights.
pub(crate) struct Float64(AtomicU64);

impl Distance for Float64 {
    type Value = f64;
    const ZERO: f64 = 0.0;
    fn unreached() -> Self {
        Float64(AtomicU64::new(f64::INFINITY.to_bits()))
    }
    fn get(&self) -> f64 {
        f64::from_bits(self.0.load(Ordering::Relaxed))
    }
    fn set(&self, value: f64) {
        self.0.store(value.to_bits(), Ordering::Relaxed);
    }
    fn lower(&self, value: f64) -> bool {
        value.to_bits() < self.0.fetch_min(value.to_bits(), Ordering::Relaxed)
    }
    fn add(d: f64, weight: f64) -> f64 {
        d + weight
    }
    fn widen(value: f64) -> f64 {
        value
    }
}

/// Integer distances that a `u32` holds exactly (`u32::MAX`: unreached).
pub(crate) struct Exact32(AtomicU32);

impl Distance for Exact32 {
    type Value = u32;
    const ZERO: u32 = 0;
    fn unreached() -> Self {
        Exact32(AtomicU32::new(u32::MAX))
    }
    fn get(&self) -> u32 {
        self.0.load(Ordering::Relaxed)
    }
    fn set(&self, value: u32) {
        self.0.store(value, Ordering::Relaxed);
    }
    fn lower(&self, value: u32) -> bool {
        value < self.0.fetch_min(value, Ordering::Relaxed)
    }
    fn add(d: u32, weight: f64) -> u32 {
        // Exact: the weight is an integer and the sum stays below
        // `u32::MAX` (see `fits_exact32`); saturating all the same.
        d.saturating_add(weight as u32)
    }
    fn widen(value: u32) -> f64 {
        if value == u32::MAX {
            f64::INFINITY
        } else {
            f64::from(value)
        }
    }
}

/// Whether every distance over `graph` fits [`Exact32`]: all weights are
/// non-negative integers and the heaviest times `n` stays below
/// `u32::MAX`. A tentative distance is the length of a simple path (an
/// update must lower its vertex's distance, which a non-negative cycle
/// cannot), so at most `n - 1` edges; a candidate one edge longer is
/// compared and dropped: `n` edges bound every sum taken.
pub(crate) fn fits_exact32(graph: &Graph) -> bool {
    let Some(heaviest) = graph.heaviest_integer_weight() else {
        return false;
    };
    u64::from(heaviest).saturating_mul(graph.vertex_count() as u64) < u64::from(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_integer_weights_within_the_bound_take_four_byte_distances() {
        let edges = [(0, 1), (1, 2)];
        let fits = |weights: [f64; 2]| fits_exact32(&Graph::from_edges(3, &edges, Some(&weights)));
        assert!(fits([3.0, 0.0]));
        assert!(!fits([3.0, 0.5]));
        assert!(!fits([-1.0, 2.0]));
        // 3 vertices: the heaviest times 3 must stay below u32::MAX.
        assert!(fits([1_431_655_764.0, 1.0]));
        assert!(!fits([1_431_655_765.0, 1.0]));
        assert!(!fits_exact32(&Graph::from_edges(3, &edges, None)));
    }
}
