//! Durability wiring of the database: recovery (newest checkpoint, then the
//! log after it), the durability settings, and checkpoints (on demand, on
//! clean shutdown, and in the background when the log has grown by a
//! threshold or an interval has passed).
//!
//! Checkpoints go to an object store (`nereid_wal::ObjectStore`): a local
//! directory, or an S3-compatible bucket. With S3, sealed log segments are
//! shipped to the bucket as well (by the background thread, and the last
//! one on a clean shutdown that takes no checkpoint), and a start with an
//! empty log directory restores the newest checkpoint plus the shipped
//! segments after it: the bucket alone is enough to rebuild the database.
//!
//! Invariants: a checkpoint holds only published (hence durable) commits;
//! log segments are discarded (locally and in the bucket) only after the
//! checkpoint covering them has its manifest stored; checkpoints and
//! segment shipping never run concurrently with each other (one mutex), but
//! always concurrently with transactions.

use crate::metrics::CheckpointClock;
use nereid_storage::Store;
use nereid_wal::{
    CheckpointInfo, Durability, LocalDir, LogProgress, ObjectStore, RecoveryReport, S3Location,
    S3Store, ShippedSegment, Wal, WalError, WalOptions,
};
use parking_lot::Mutex;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

pub const DEFAULT_CHECKPOINT_LOG_BYTES: u64 = 64 << 20;
pub const DEFAULT_WAL_SEGMENT_BYTES: u64 = 64 << 20;

/// Durability and checkpoint settings.
#[derive(Clone, Debug, PartialEq)]
pub struct DurableConfig {
    /// When a commit is acknowledged (see [`Durability`]).
    pub durability: Durability,
    /// Where checkpoints go.
    pub checkpoint_target: CheckpointTarget,
    /// Take a checkpoint once this many log bytes were written since the
    /// last one (0: never by size).
    pub checkpoint_log_bytes: u64,
    /// Take a checkpoint at least this often while commits happen (`None`:
    /// never by time).
    pub checkpoint_interval: Option<Duration>,
    /// Log segment rotation size.
    pub wal_segment_bytes: u64,
    /// Log partitions written in parallel, each with its own group commit
    /// (`--log-partitions`; default: the number of cores).
    pub log_partitions: u32,
    /// Take a checkpoint on clean shutdown.
    pub checkpoint_on_shutdown: bool,
}

impl Default for DurableConfig {
    fn default() -> Self {
        DurableConfig {
            durability: Durability::Fsync,
            checkpoint_target: CheckpointTarget::InDataDir,
            checkpoint_log_bytes: DEFAULT_CHECKPOINT_LOG_BYTES,
            checkpoint_interval: None,
            wal_segment_bytes: DEFAULT_WAL_SEGMENT_BYTES,
            log_partitions: default_log_partitions(),
            checkpoint_on_shutdown: true,
        }
    }
}

/// The default number of log partitions: one per core (at least 1, at
/// most [`MAX_LOG_PARTITIONS`]).
pub fn default_log_partitions() -> u32 {
    std::thread::available_parallelism()
        .map_or(1, |n| n.get() as u32)
        .clamp(1, MAX_LOG_PARTITIONS)
}

/// The largest accepted `--log-partitions` (each is a thread and a file).
pub const MAX_LOG_PARTITIONS: u32 = 256;

/// Where checkpoints (and, for S3, shipped log segments) are kept.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum CheckpointTarget {
    /// `<data_dir>/checkpoints`.
    #[default]
    InDataDir,
    /// A local directory (`file:///path` or a plain path).
    Dir(PathBuf),
    /// `s3://bucket/prefix` on AWS or an S3-compatible server.
    S3(S3Location),
}

/// The region used when `--s3-region` is not given.
pub const DEFAULT_S3_REGION: &str = "us-east-1";

/// Parses `--checkpoint-uri`: `file:///abs/path`, a plain path, or
/// `s3://bucket/prefix` (reached through `s3_endpoint` when given).
pub fn checkpoint_target_from_uri(
    uri: &str,
    s3_endpoint: Option<String>,
    s3_region: String,
) -> Result<CheckpointTarget, String> {
    if let Some(path) = uri.strip_prefix("file://") {
        if path.is_empty() {
            return Err("file:// needs a path".into());
        }
        return Ok(CheckpointTarget::Dir(PathBuf::from(path)));
    }
    if uri.starts_with("s3://") {
        return S3Location::parse(uri, s3_endpoint, s3_region).map(CheckpointTarget::S3);
    }
    if uri.contains("://") {
        return Err(format!(
            "unsupported checkpoint URI {uri:?}: expected file://, s3:// or a path"
        ));
    }
    Ok(CheckpointTarget::Dir(PathBuf::from(uri)))
}

/// Connects to the checkpoint target (for S3: builds the client; no
/// request is made until the first use).
fn open_target(
    data_dir: &Path,
    target: &CheckpointTarget,
) -> Result<Arc<dyn ObjectStore>, WalError> {
    let local = |dir: PathBuf| -> Result<Arc<dyn ObjectStore>, WalError> {
        let store = LocalDir::new(dir);
        let removed = store.remove_interrupted_writes()?;
        if removed > 0 {
            tracing::warn!(
                files = removed,
                "removed partial checkpoint files of interrupted writes"
            );
        }
        Ok(Arc::new(store))
    };
    match target {
        CheckpointTarget::InDataDir => local(data_dir.join("checkpoints")),
        CheckpointTarget::Dir(dir) => local(dir.clone()),
        CheckpointTarget::S3(location) => Ok(Arc::new(S3Store::connect(location.clone())?)),
    }
}

/// Whether the target is remote, so that log segments are shipped there.
fn ships_segments(target: &CheckpointTarget) -> bool {
    matches!(target, CheckpointTarget::S3(_))
}

/// Whether `dir` holds no log segment (a fresh or wiped data directory).
fn log_is_empty(dir: &Path) -> Result<bool, WalError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(true),
        Err(e) => return Err(e.into()),
    };
    for entry in entries {
        if entry?.file_name().to_string_lossy().ends_with(".log") {
            return Ok(false);
        }
    }
    Ok(true)
}

/// Opens the log after loading the newest checkpoint into `store`, and
/// reports recovery time and rates in the log.
pub(crate) fn recover(
    store: &Arc<Store>,
    data_dir: &Path,
    config: &DurableConfig,
) -> Result<(Wal, Checkpoints), WalError> {
    let target = open_target(data_dir, &config.checkpoint_target)?;
    let started = Instant::now();
    let checkpoint = nereid_wal::load_newest_checkpoint_from(store, &*target)?;
    let after = match &checkpoint {
        Some(info) => {
            tracing::info!(
                commit_ts = info.commit_ts,
                nodes = info.nodes,
                relationships = info.relationships,
                bytes = info.bytes,
                files = info.files,
                elapsed_ms = info.elapsed.as_millis() as u64,
                bytes_per_sec = info.rate(),
                dir = %info.dir.display(),
                "loaded the checkpoint"
            );
            info.commit_ts
        }
        None => 0,
    };
    let wal_dir = data_dir.join("wal");
    let ship = ships_segments(&config.checkpoint_target);
    if ship && log_is_empty(&wal_dir)? {
        let restored = nereid_wal::restore_segments(&*target, &wal_dir, after)?;
        tracing::info!(
            segments = restored.segments,
            bytes = restored.bytes,
            partitions = restored.next_segments.len(),
            location = %target.location("wal/").display(),
            "empty log directory: restored the shipped log segments after the checkpoint"
        );
    }
    let log_started = Instant::now();
    let options = WalOptions {
        durability: config.durability,
        segment_bytes: config.wal_segment_bytes,
        partitions: config.log_partitions,
        faults: None,
    };
    let (wal, report) = Wal::open_after(&wal_dir, &options, after, |ts, changes| {
        store.replay(ts, changes).map_err(|e| e.to_string())
    })?;
    log_replay(
        &report,
        log_started.elapsed(),
        started.elapsed(),
        config.durability,
    );
    // Neither replay nor the checkpoint load maintain indexes: build them
    // all once, from the recovered state.
    let indexes_started = Instant::now();
    store.rebuild_indexes();
    let indexes = store.schema().indexes.len();
    if indexes > 0 {
        tracing::info!(
            indexes,
            elapsed_ms = indexes_started.elapsed().as_millis() as u64,
            "built the indexes"
        );
    }
    let checkpoints = Checkpoints::new(target, ship, config.clone());
    Ok((wal, checkpoints))
}

fn log_replay(report: &RecoveryReport, log: Duration, total: Duration, durability: Durability) {
    let secs = log.as_secs_f64();
    let rate = if secs > 0.0 {
        (report.records as f64 / secs) as u64
    } else {
        report.records
    };
    tracing::info!(
        records = report.records,
        skipped_records = report.skipped_records,
        segments = report.segments,
        partitions = report.partitions,
        dropped_records = report.dropped_records,
        last_commit_ts = report.last_commit_ts,
        truncated_bytes = report.truncated_bytes,
        log_ms = log.as_millis() as u64,
        records_per_sec = rate,
        total_ms = total.as_millis() as u64,
        %durability,
        "recovered from the log"
    );
}

/// Checkpoint state of an open database.
pub(crate) struct Checkpoints {
    target: Arc<dyn ObjectStore>,
    /// Ship sealed log segments to `target` (S3).
    ship: bool,
    /// Segments this process shipped (after a restart, the sealed segments
    /// are shipped again: an idempotent overwrite).
    shipped: Mutex<BTreeSet<ShippedSegment>>,
    config: DurableConfig,
    /// Serialises checkpoints.
    running: Mutex<()>,
    /// `Wal::appended_bytes` when the last checkpoint started.
    bytes_at_last: AtomicU64,
    last_at: Mutex<Instant>,
    stop: AtomicBool,
    /// Count, age and duration of the checkpoints taken (for metrics).
    clock: CheckpointClock,
}

impl Checkpoints {
    pub(crate) fn new(target: Arc<dyn ObjectStore>, ship: bool, config: DurableConfig) -> Self {
        Checkpoints {
            target,
            ship,
            shipped: Mutex::new(BTreeSet::new()),
            config,
            running: Mutex::new(()),
            bytes_at_last: AtomicU64::new(0),
            last_at: Mutex::new(Instant::now()),
            stop: AtomicBool::new(false),
            clock: CheckpointClock::new(),
        }
    }

    /// Takes a checkpoint now and discards the log segments it covers.
    pub(crate) fn take(
        &self,
        store: &Store,
        wal: &Wal,
        why: &str,
    ) -> Result<CheckpointInfo, WalError> {
        let _one_at_a_time = self.running.lock();
        let started = Instant::now();
        self.bytes_at_last
            .store(wal.appended_bytes(), Ordering::Relaxed);
        *self.last_at.lock() = Instant::now();
        let info = nereid_wal::take_checkpoint_to(store, &*self.target)?;
        let discarded = wal.discard_through(info.commit_ts)?;
        let unshipped = if self.ship {
            let mut shipped = self.shipped.lock();
            // Everything the bucket holds below the oldest local segment is
            // covered by the checkpoint just stored.
            *shipped = nereid_wal::shipped_segments(&*self.target)?;
            nereid_wal::delete_shipped_before(&*self.target, &mut shipped, &wal.oldest_segments())?
        } else {
            0
        };
        tracing::info!(
            trigger = why,
            commit_ts = info.commit_ts,
            written = info.written,
            nodes = info.nodes,
            relationships = info.relationships,
            bytes = info.bytes,
            elapsed_ms = info.elapsed.as_millis() as u64,
            bytes_per_sec = info.rate(),
            discarded_segments = discarded,
            deleted_shipped_segments = unshipped,
            location = %info.dir.display(),
            "checkpoint"
        );
        self.clock.took(started.elapsed());
        Ok(info)
    }

    /// Ships the sealed log segments not shipped yet (S3 only).
    pub(crate) fn ship(&self, wal: &Wal) -> Result<usize, WalError> {
        if !self.ship {
            return Ok(0);
        }
        let _one_at_a_time = self.running.lock();
        let mut shipped = self.shipped.lock();
        nereid_wal::ship_sealed_segments(wal, &*self.target, &mut shipped)
    }

    /// Clean shutdown: a final checkpoint (unless disabled); without one,
    /// with S3, the active segment is sealed and shipped, so the bucket
    /// holds every commit.
    pub(crate) fn at_shutdown(&self, store: &Store, wal: &Wal) {
        if self.config.checkpoint_on_shutdown {
            match self.take(store, wal, "shutdown") {
                Ok(_) => return,
                Err(e) => tracing::error!(error = %e, "checkpoint at shutdown failed"),
            }
        }
        if self.ship {
            let shipped = wal.seal_active().and_then(|()| self.ship(wal));
            match shipped {
                Ok(n) => tracing::info!(segments = n, "shipped the log tail at shutdown"),
                Err(e) => tracing::error!(error = %e, "shipping the log tail at shutdown failed"),
            }
        }
    }

    /// The reason a background checkpoint is due, if one is.
    fn due(&self, log: &LogProgress) -> Option<&'static str> {
        let grown = log
            .appended_bytes()
            .saturating_sub(self.bytes_at_last.load(Ordering::Relaxed));
        if self.config.checkpoint_log_bytes > 0 && grown >= self.config.checkpoint_log_bytes {
            return Some("log size");
        }
        match self.config.checkpoint_interval {
            Some(every) if grown > 0 && self.last_at.lock().elapsed() >= every => Some("interval"),
            _ => None,
        }
    }

    pub(crate) fn stop(&self) {
        self.stop.store(true, Ordering::Release);
    }

    pub(crate) fn clock(&self) -> &CheckpointClock {
        &self.clock
    }
}

/// What the background checkpointer needs from the database.
pub(crate) trait Checkpointable: Send + Sync + 'static {
    fn store_and_wal(&self) -> (&Store, &Wal);
}

/// Starts the thread that takes checkpoints when the log has grown enough
/// or the interval has passed. Between checkpoints it holds no reference
/// to the database (only the checkpoint state and a log progress handle),
/// so closing the database is never delayed by it; it ends when the
/// database is stopped or dropped.
pub(crate) fn spawn_background<D: Checkpointable>(
    db: Weak<D>,
    checkpoints: Arc<Checkpoints>,
    log: LogProgress,
) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("nereid-checkpointer".into())
        .spawn(move || loop {
            std::thread::sleep(Duration::from_millis(200));
            if checkpoints.stop.load(Ordering::Acquire) {
                return;
            }
            let due = checkpoints.due(&log);
            if due.is_none() && !checkpoints.ship {
                continue;
            }
            let Some(db) = db.upgrade() else { return };
            let (store, wal) = db.store_and_wal();
            if let Err(e) = checkpoints.ship(wal) {
                tracing::error!(error = %e, "shipping log segments failed (will retry)");
            }
            if let Some(why) = due {
                if let Err(e) = checkpoints.take(store, wal, why) {
                    tracing::error!(error = %e, "background checkpoint failed");
                }
            }
        })
        .map(drop)
}

/// One line about a checkpoint, for `db.checkpoint()` and the HTTP endpoint.
pub(crate) fn describe(info: &CheckpointInfo) -> String {
    if info.written {
        format!(
            "commit_ts {} written to {} ({} nodes, {} relationships, {} bytes in {} ms)",
            info.commit_ts,
            info.dir.display(),
            info.nodes,
            info.relationships,
            info.bytes,
            info.elapsed.as_millis()
        )
    } else {
        format!(
            "commit_ts {} already checkpointed at {}",
            info.commit_ts,
            info.dir.display()
        )
    }
}
