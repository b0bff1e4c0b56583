//! The engine's numbers for a front end's metrics endpoint: queries by
//! outcome and their latency, transactions, write conflicts, the log's
//! bytes and fsyncs, checkpoints, the plan cache, the store's memory by
//! part.
//!
//! The engine counts and a front end renders (the server's `/metrics` in
//! Prometheus text), so an embedding program gets the same numbers without
//! HTTP (docs/adr/0091-metrics-in-the-engine-text-in-the-server.md).
//! Recording is relaxed atomics on paths a query or commit takes anyway;
//! [`crate::Database::metrics`] reads atomics and takes no lock a commit
//! holds, so a scrape never holds one up.

use nereid_errors::{Classification, Status};
use nereid_metrics::{Counter, Histogram, HistogramSnapshot};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub use nereid_storage::MemoryUsage;
pub use nereid_wal::LogMetrics;

/// The counters one database records into.
#[derive(Debug)]
pub(crate) struct EngineMetrics {
    succeeded: Counter,
    failed: Counter,
    client_errors: Counter,
    query_seconds: Histogram,
    begun: Counter,
    committed: Counter,
    rolled_back: Counter,
    write_conflicts: Counter,
}

impl EngineMetrics {
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(EngineMetrics {
            succeeded: Counter::default(),
            failed: Counter::default(),
            client_errors: Counter::default(),
            query_seconds: Histogram::latency(),
            begun: Counter::default(),
            committed: Counter::default(),
            rolled_back: Counter::default(),
            write_conflicts: Counter::default(),
        })
    }

    /// A query that started at `started` ended, well or with `error`.
    pub(crate) fn query_ended(&self, started: Instant, error: Option<Status>) {
        self.query_seconds.observe(started.elapsed());
        match error.map(Status::classification) {
            None => self.succeeded.inc(),
            Some(Classification::ClientError) => self.client_errors.inc(),
            Some(_) => self.failed.inc(),
        }
        if let Some(status) = error {
            self.failed_with(status);
        }
    }

    /// Counts what a failure's status says about the workload (a commit
    /// of an explicit transaction fails outside any query).
    pub(crate) fn failed_with(&self, status: Status) {
        if status == Status::DeadlockDetected {
            self.write_conflicts.inc();
        }
    }

    /// Starts following a transaction until its tally is dropped.
    pub(crate) fn transaction(self: &Arc<Self>) -> TxTally {
        self.begun.inc();
        TxTally {
            metrics: Arc::clone(self),
            committed: false,
        }
    }

    pub(crate) fn snapshot(&self) -> (Queries, HistogramSnapshot, Transactions, u64) {
        let queries = Queries {
            succeeded: self.succeeded.get(),
            failed: self.failed.get(),
            client_errors: self.client_errors.get(),
        };
        // Ended before begun: a transaction ends after it begins, so the
        // difference is never negative, only at most a moment late.
        let committed = self.committed.get();
        let rolled_back = self.rolled_back.get();
        let active = self.begun.get().saturating_sub(committed + rolled_back);
        let transactions = Transactions {
            active,
            committed,
            rolled_back,
        };
        (
            queries,
            self.query_seconds.snapshot(),
            transactions,
            self.write_conflicts.get(),
        )
    }
}

/// One transaction's place in the counts: active while it lives; when
/// dropped, committed if [`TxTally::committed`] was called, else rolled
/// back. Tied to the transaction's owner (an explicit [`crate::Transaction`]
/// or an auto-commit result), so every way a transaction ends (commit,
/// rollback, a failed commit, a client gone) is counted exactly once.
#[derive(Debug)]
pub(crate) struct TxTally {
    metrics: Arc<EngineMetrics>,
    committed: bool,
}

impl TxTally {
    pub(crate) fn committed(&mut self) {
        self.committed = true;
    }
}

impl Drop for TxTally {
    fn drop(&mut self) {
        match self.committed {
            true => self.metrics.committed.inc(),
            false => self.metrics.rolled_back.inc(),
        }
    }
}

/// Checkpoints this process took, recorded by `durable.rs`.
#[derive(Debug)]
pub(crate) struct CheckpointClock {
    since: Instant,
    taken: Counter,
    /// Nanoseconds from `since` to the end of the last one, and how long it
    /// took (both 0 before the first).
    last_end: std::sync::atomic::AtomicU64,
    last_took: std::sync::atomic::AtomicU64,
}

impl CheckpointClock {
    pub(crate) fn new() -> Self {
        CheckpointClock {
            since: Instant::now(),
            taken: Counter::default(),
            last_end: Default::default(),
            last_took: Default::default(),
        }
    }

    pub(crate) fn took(&self, took: Duration) {
        use std::sync::atomic::Ordering::Relaxed;
        self.last_took.store(nanos(took), Relaxed);
        self.last_end.store(nanos(self.since.elapsed()), Relaxed);
        self.taken.inc();
    }

    pub(crate) fn snapshot(&self) -> Checkpoints {
        use std::sync::atomic::Ordering::Relaxed;
        let taken = self.taken.get();
        let last = (taken > 0).then(|| {
            let end = Duration::from_nanos(self.last_end.load(Relaxed));
            LastCheckpoint {
                age: self.since.elapsed().saturating_sub(end),
                took: Duration::from_nanos(self.last_took.load(Relaxed)),
            }
        });
        Checkpoints { taken, last }
    }
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

/// A database's numbers at one moment ([`crate::Database::metrics`]); every
/// count is since the database was opened.
#[derive(Clone, Debug, PartialEq)]
pub struct Metrics {
    pub queries: Queries,
    /// From `run` to the end of the result (or its failure), client pacing
    /// included.
    pub query_seconds: HistogramSnapshot,
    pub transactions: Transactions,
    /// Transactions refused because another committed a conflicting write
    /// first (`Neo.TransientError.Transaction.DeadlockDetected`).
    pub write_conflicts: u64,
    pub log: LogMetrics,
    pub checkpoints: Checkpoints,
    pub plan_cache: PlanCache,
    pub loads: Loads,
    /// The store's memory by part (`Store::memory_usage`: from
    /// capacities, without a lock a commit holds).
    pub store_memory: MemoryUsage,
}

/// The bulk loader's loads (every load it keeps since start; none before
/// its first use).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Loads {
    /// Loads by state: queued, running, completed, failed, cancelled.
    pub in_queue: u64,
    pub in_progress: u64,
    pub completed: u64,
    pub failed: u64,
    pub cancelled: u64,
    /// Rows read by every load (good and bad).
    pub records: u64,
    /// Property values of the rows loaded, every load.
    pub property_values: u64,
    /// Of the loads running now: bytes read so far, and the size of their
    /// files (their ratio is the reading progress).
    pub running_bytes_read: u64,
    pub running_bytes_total: u64,
}

impl Loads {
    pub(crate) fn add(&mut self, load: &crate::loader::LoadStatus) {
        use crate::loader::LoadState;
        match load.state {
            LoadState::InQueue => self.in_queue += 1,
            LoadState::InProgress => {
                self.in_progress += 1;
                self.running_bytes_read += load.bytes;
                self.running_bytes_total += load.bytes_total;
            }
            LoadState::Completed => self.completed += 1,
            LoadState::Failed => self.failed += 1,
            LoadState::Cancelled => self.cancelled += 1,
        }
        self.records += load.records;
        self.property_values += load.property_values;
    }
}

/// Queries by how they ended (a result dropped before its end is not
/// counted: the client went away or stopped reading).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Queries {
    pub succeeded: u64,
    /// Failures of the database or transient ones (a conflict, a timeout
    /// set by the server, a full disk).
    pub failed: u64,
    /// Failures the client caused (syntax, types, constraints).
    pub client_errors: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transactions {
    /// Begun and not yet ended (explicit and auto-commit).
    pub active: u64,
    pub committed: u64,
    /// Ended without a commit: rolled back, failed, or abandoned.
    pub rolled_back: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checkpoints {
    /// Checkpoints this process took.
    pub taken: u64,
    /// The newest of them, if any.
    pub last: Option<LastCheckpoint>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LastCheckpoint {
    /// Since it was complete.
    pub age: Duration,
    /// How long it took.
    pub took: Duration,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlanCache {
    pub hits: u64,
    pub misses: u64,
    pub entries: u64,
}
