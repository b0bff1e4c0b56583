//! neo4rs 0.8 retries a failed auto-commit query (`Graph::run` /
//! `Graph::execute`) by itself and says so only through the `log` crate
//! ("Retrying query in ... due to error: ..."). This logger keeps those
//! reports, so the TransientError scenario can tell how many attempts neo4rs
//! made, with which failures, and can release the lock holder at the first
//! retry (as the other clients do from inside their transaction function).

use std::sync::{Mutex, OnceLock};

use log::{Log, Metadata, Record};
use tokio::sync::Notify;

static RETRIES: Mutex<Vec<String>> = Mutex::new(Vec::new());
static RETRIED: OnceLock<Notify> = OnceLock::new();

struct RetryRecorder;

impl Log for RetryRecorder {
    fn enabled(&self, metadata: &Metadata) -> bool {
        metadata.target().starts_with("neo4rs")
    }

    fn log(&self, record: &Record) {
        if !self.enabled(record.metadata()) {
            return;
        }
        let message = record.args().to_string();
        if message.starts_with("Retrying query") {
            if let Ok(mut retries) = RETRIES.lock() {
                retries.push(message);
            }
            notified().notify_waiters();
        }
    }

    fn flush(&self) {}
}

fn notified() -> &'static Notify {
    RETRIED.get_or_init(Notify::new)
}

/// Installs the recorder as the process's logger (once, at start).
pub fn install() {
    if log::set_boxed_logger(Box::new(RetryRecorder)).is_ok() {
        log::set_max_level(log::LevelFilter::Trace);
    }
}

/// Forgets the retries seen so far (a scenario starts counting afresh).
pub fn clear() {
    if let Ok(mut retries) = RETRIES.lock() {
        retries.clear();
    }
}

/// The retry reports since the last `clear`, oldest first.
pub fn retries() -> Vec<String> {
    RETRIES.lock().map(|r| r.clone()).unwrap_or_default()
}

/// Waits until neo4rs reports its next retry.
pub async fn next_retry() {
    notified().notified().await;
}
