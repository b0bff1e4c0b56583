//! Counters and histograms that the layers which measure (the log, the
//! engine) update on their hot paths and a front end reads when scraped.
//!
//! Everything is a relaxed atomic: recording is one or two uncontended
//! `fetch_add`s and never takes a lock, and reading takes none either, so
//! a scrape can never hold up a commit. Readers get numbers that may be a
//! few events apart from each other (a histogram's sum read a moment after
//! its buckets), never torn ones. There is no registry and no global: each
//! database owns its metrics, and the front end decides names and format
//! (docs/adr/0091-metrics-in-the-engine-text-in-the-server.md).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// A monotonically increasing count.
#[derive(Debug, Default)]
pub struct Counter(AtomicU64);

impl Counter {
    pub fn inc(&self) {
        self.add(1);
    }

    pub fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }

    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// Upper bounds in seconds for latencies from sub-millisecond point
/// queries and fsyncs up to queries of many seconds.
pub const LATENCY_BOUNDS: &[f64] = &[
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    5.0, 10.0, 30.0,
];

/// Durations counted into fixed buckets (each bucket counts the
/// observations above the previous bound, up to and including its own;
/// one more bucket past the last bound), plus their sum.
#[derive(Debug)]
pub struct Histogram {
    bounds: &'static [f64],
    buckets: Box<[AtomicU64]>,
    sum_nanos: AtomicU64,
}

impl Histogram {
    /// `bounds`: ascending upper bounds in seconds.
    pub fn new(bounds: &'static [f64]) -> Self {
        debug_assert!(bounds.windows(2).all(|w| w[0] < w[1]), "ascending bounds");
        Histogram {
            bounds,
            buckets: (0..=bounds.len()).map(|_| AtomicU64::new(0)).collect(),
            sum_nanos: AtomicU64::new(0),
        }
    }

    /// A histogram over [`LATENCY_BOUNDS`].
    pub fn latency() -> Self {
        Histogram::new(LATENCY_BOUNDS)
    }

    pub fn observe(&self, elapsed: Duration) {
        let seconds = elapsed.as_secs_f64();
        let bucket = self.bounds.partition_point(|&bound| bound < seconds);
        self.buckets[bucket].fetch_add(1, Ordering::Relaxed);
        let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
        self.sum_nanos.fetch_add(nanos, Ordering::Relaxed);
    }

    pub fn snapshot(&self) -> HistogramSnapshot {
        let mut running = 0;
        let cumulative = self
            .buckets
            .iter()
            .map(|b| {
                running += b.load(Ordering::Relaxed);
                running
            })
            .collect();
        HistogramSnapshot {
            bounds: self.bounds,
            cumulative,
            sum_seconds: self.sum_nanos.load(Ordering::Relaxed) as f64 / 1e9,
        }
    }
}

/// A histogram's numbers at one moment, in the cumulative form Prometheus
/// uses.
#[derive(Clone, Debug, PartialEq)]
pub struct HistogramSnapshot {
    /// Upper bounds in seconds, ascending.
    pub bounds: &'static [f64],
    /// Observations at or below each bound, then all of them (the `+Inf`
    /// bucket): one longer than `bounds`, never decreasing.
    pub cumulative: Vec<u64>,
    pub sum_seconds: f64,
}

impl HistogramSnapshot {
    /// All observations.
    pub fn count(&self) -> u64 {
        self.cumulative.last().copied().unwrap_or(0)
    }

    /// Adds `other`'s observations (histograms over the same bounds, e.g.
    /// one per log partition).
    pub fn merge(&mut self, other: &HistogramSnapshot) {
        assert_eq!(self.bounds, other.bounds, "merged histograms share bounds");
        for (mine, theirs) in self.cumulative.iter_mut().zip(&other.cumulative) {
            *mine += theirs;
        }
        self.sum_seconds += other.sum_seconds;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observations_land_in_the_first_bucket_whose_bound_holds_them() {
        static BOUNDS: &[f64] = &[0.001, 0.01];
        let h = Histogram::new(BOUNDS);
        h.observe(Duration::from_micros(500));
        h.observe(Duration::from_millis(1));
        h.observe(Duration::from_millis(5));
        h.observe(Duration::from_secs(2));
        let s = h.snapshot();
        assert_eq!(s.cumulative, vec![2, 3, 4]);
        assert_eq!(s.count(), 4);
        assert!((s.sum_seconds - 2.0065).abs() < 1e-9, "{}", s.sum_seconds);
    }

    #[test]
    fn merged_snapshots_add_up() {
        let (a, b) = (Histogram::latency(), Histogram::latency());
        a.observe(Duration::from_millis(3));
        b.observe(Duration::from_millis(30));
        let mut s = a.snapshot();
        s.merge(&b.snapshot());
        assert_eq!(s.count(), 2);
        assert_eq!(s.cumulative.len(), LATENCY_BOUNDS.len() + 1);
    }

    #[test]
    fn counters_count() {
        let c = Counter::default();
        c.inc();
        c.add(41);
        assert_eq!(c.get(), 42);
    }
}
