//! What the log measures for a front end's metrics: bytes written and how
//! long each group fsync took. Each partition's writer thread records into
//! its own [`PartitionMetrics`] with relaxed atomics (no lock beside the
//! write), and [`crate::Wal::metrics`] adds the partitions up.

use nereid_metrics::{Counter, Histogram, HistogramSnapshot};
use std::time::Duration;

/// One partition's numbers, recorded by its writer thread.
#[derive(Debug)]
pub(crate) struct PartitionMetrics {
    bytes_written: Counter,
    fsync_seconds: Histogram,
}

impl PartitionMetrics {
    pub(crate) fn new() -> Self {
        PartitionMetrics {
            bytes_written: Counter::default(),
            fsync_seconds: Histogram::latency(),
        }
    }

    pub(crate) fn wrote(&self, bytes: usize) {
        self.bytes_written.add(bytes as u64);
    }

    pub(crate) fn synced(&self, took: Duration) {
        self.fsync_seconds.observe(took);
    }
}

/// The whole log's numbers since it was opened.
#[derive(Clone, Debug, PartialEq)]
pub struct LogMetrics {
    /// Record bytes written to segment files (group writes, all partitions).
    pub bytes_written: u64,
    /// Latency of the group fsyncs that make commits durable.
    pub fsync_seconds: HistogramSnapshot,
}

impl LogMetrics {
    pub(crate) fn sum<'a>(partitions: impl IntoIterator<Item = &'a PartitionMetrics>) -> Self {
        let mut total = LogMetrics {
            bytes_written: 0,
            fsync_seconds: Histogram::latency().snapshot(),
        };
        for p in partitions {
            total.bytes_written += p.bytes_written.get();
            total.fsync_seconds.merge(&p.fsync_seconds.snapshot());
        }
        total
    }
}
