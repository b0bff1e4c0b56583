//! Durability wiring of the database: recovery (newest checkpoint, then the
//! log after it), the durability settings, and checkpoints (on demand, on
//! clean shutdown, and in the background when the log has grown by a
//! threshold or an interval has passed).
//!
//! Invariants: a checkpoint holds only published (hence durable) commits;
//! log segments are discarded only after the checkpoint covering them has
//! its manifest on disk; checkpoints never run concurrently with each other
//! (one mutex), but always concurrently with transactions.

use nereid_storage::Store;
use nereid_wal::{
    CheckpointInfo, Durability, LogProgress, RecoveryReport, Wal, WalError, WalOptions,
};
use parking_lot::Mutex;
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
    /// Where checkpoints go; `None` means `<data_dir>/checkpoints`.
    pub checkpoint_dir: Option<PathBuf>,
    /// Take a checkpoint once this many log bytes were written since the
    /// last one (0: never by size).
    pub checkpoint_log_bytes: u64,
    /// Take a checkpoint at least this often while commits happen (`None`:
    /// never by time).
    pub checkpoint_interval: Option<Duration>,
    /// Log segment rotation size.
    pub wal_segment_bytes: u64,
    /// Take a checkpoint on clean shutdown.
    pub checkpoint_on_shutdown: bool,
}

impl Default for DurableConfig {
    fn default() -> Self {
        DurableConfig {
            durability: Durability::Fsync,
            checkpoint_dir: None,
            checkpoint_log_bytes: DEFAULT_CHECKPOINT_LOG_BYTES,
            checkpoint_interval: None,
            wal_segment_bytes: DEFAULT_WAL_SEGMENT_BYTES,
            checkpoint_on_shutdown: true,
        }
    }
}

/// Parses `--checkpoint-uri`: `file:///abs/path`, or a plain path.
pub fn checkpoint_dir_from_uri(uri: &str) -> Result<PathBuf, String> {
    if let Some(path) = uri.strip_prefix("file://") {
        if path.is_empty() {
            return Err("file:// needs a path".into());
        }
        return Ok(PathBuf::from(path));
    }
    if uri.contains("://") {
        return Err(format!(
            "unsupported checkpoint URI {uri:?}: only file:// (or a plain path) is supported in this build"
        ));
    }
    Ok(PathBuf::from(uri))
}

/// Opens the log after loading the newest checkpoint into `store`, and
/// reports recovery time and rates in the log.
pub(crate) fn recover(
    store: &Arc<Store>,
    data_dir: &Path,
    config: &DurableConfig,
) -> Result<(Wal, PathBuf), WalError> {
    let root = checkpoint_root(data_dir, config);
    let started = Instant::now();
    let checkpoint = nereid_wal::load_newest_checkpoint(store, &root)?;
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
    let log_started = Instant::now();
    let options = WalOptions {
        durability: config.durability,
        segment_bytes: config.wal_segment_bytes,
    };
    let (wal, report) = Wal::open_after(&data_dir.join("wal"), &options, after, |ts, changes| {
        store.replay(ts, changes).map_err(|e| e.to_string())
    })?;
    log_replay(
        &report,
        log_started.elapsed(),
        started.elapsed(),
        config.durability,
    );
    Ok((wal, root))
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
        last_commit_ts = report.last_commit_ts,
        truncated_bytes = report.truncated_bytes,
        log_ms = log.as_millis() as u64,
        records_per_sec = rate,
        total_ms = total.as_millis() as u64,
        %durability,
        "recovered from the log"
    );
}

pub(crate) fn checkpoint_root(data_dir: &Path, config: &DurableConfig) -> PathBuf {
    config
        .checkpoint_dir
        .clone()
        .unwrap_or_else(|| data_dir.join("checkpoints"))
}

/// Checkpoint state of an open database.
pub(crate) struct Checkpoints {
    root: PathBuf,
    config: DurableConfig,
    /// Serialises checkpoints.
    running: Mutex<()>,
    /// `Wal::appended_bytes` when the last checkpoint started.
    bytes_at_last: AtomicU64,
    last_at: Mutex<Instant>,
    stop: AtomicBool,
}

impl Checkpoints {
    pub(crate) fn new(root: PathBuf, config: DurableConfig) -> Self {
        Checkpoints {
            root,
            config,
            running: Mutex::new(()),
            bytes_at_last: AtomicU64::new(0),
            last_at: Mutex::new(Instant::now()),
            stop: AtomicBool::new(false),
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
        self.bytes_at_last
            .store(wal.appended_bytes(), Ordering::Relaxed);
        *self.last_at.lock() = Instant::now();
        let info = nereid_wal::take_checkpoint(store, &self.root)?;
        let discarded = wal.discard_through(info.commit_ts)?;
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
            "checkpoint"
        );
        Ok(info)
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

    pub(crate) fn on_shutdown(&self) -> bool {
        self.config.checkpoint_on_shutdown
    }

    pub(crate) fn stop(&self) {
        self.stop.store(true, Ordering::Release);
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
            let Some(why) = checkpoints.due(&log) else {
                continue;
            };
            let Some(db) = db.upgrade() else { return };
            let (store, wal) = db.store_and_wal();
            if let Err(e) = checkpoints.take(store, wal, why) {
                tracing::error!(error = %e, "background checkpoint failed");
            }
        })
        .map(drop)
}
