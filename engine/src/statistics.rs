//! The background rebuild of the optimizer statistics.
//!
//! The store keeps its statistics current commit by commit, except the
//! distinct-value sketches, which cannot forget a deleted or overwritten
//! value (`nereid_storage::stats::Staleness`). A thread per database looks
//! at their drift a few times a second and, once the configured share of
//! what they count is gone, rebuilds them from a snapshot (commits go on
//! meanwhile) and drops the cached plans, so the next queries are planned
//! with the new figures, like Neo4j's background index resampling
//! (`dbms.index_sampling.update_percentage`).
//!
//! The thread holds the database only while it checks or rebuilds, so it
//! never keeps a closed database alive; it ends when the database is
//! shut down or dropped.

use crate::db::Database;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

/// How often the drift is looked at (reading it takes the statistics lock
/// for a moment: nothing a commit would notice).
const CHECK_EVERY: Duration = Duration::from_millis(250);

/// The settings and stop signal of one database's rebuilder.
pub(crate) struct StatisticsMaintainer {
    /// Percent of sketched tuples deleted since the last build that
    /// triggers a rebuild; 0 turns the thread off.
    update_percent: u32,
    stop: AtomicBool,
}

impl StatisticsMaintainer {
    pub(crate) fn new(update_percent: u32) -> Self {
        StatisticsMaintainer {
            update_percent,
            stop: AtomicBool::new(false),
        }
    }

    pub(crate) fn stop(&self) {
        self.stop.store(true, Ordering::Release);
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Acquire)
    }
}

/// Starts the rebuilder of `db` (nothing when its threshold is 0).
pub(crate) fn spawn_background(
    db: Weak<Database>,
    maintainer: Arc<StatisticsMaintainer>,
) -> std::io::Result<()> {
    if maintainer.update_percent == 0 {
        return Ok(());
    }
    std::thread::Builder::new()
        .name("nereid-statistics".into())
        .spawn(move || loop {
            std::thread::sleep(CHECK_EVERY);
            if maintainer.stopped() {
                return;
            }
            let Some(db) = db.upgrade() else { return };
            let staleness = db.statistics_staleness();
            if staleness.is_outdated(maintainer.update_percent) {
                let started = std::time::Instant::now();
                db.rebuild_statistics();
                tracing::info!(
                    forgotten = staleness.forgotten,
                    live = staleness.live,
                    elapsed_ms = started.elapsed().as_millis() as u64,
                    "optimizer statistics rebuilt"
                );
            }
        })
        .map(drop)
}

#[cfg(test)]
mod tests {
    use crate::db::{Database, DbConfig, Params};
    use nereid_storage::stats::Staleness;
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    /// Runs an auto-commit query to its end (which commits it).
    fn run(db: &Arc<Database>, query: &str) {
        let mut result = db.run(None, query, Params::new()).expect("runs");
        result.pull(-1, &mut |_, _| {}).expect("pulls");
    }

    fn distinct_values(db: &Arc<Database>) -> f64 {
        db.distinct_node_values("v").expect("sketched").estimate
    }

    /// Polls for up to a minute (a loaded CI machine may be slow to
    /// schedule the thread); the test fails only if it never happens.
    fn eventually(what: &str, mut done: impl FnMut() -> bool) {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !done() {
            assert!(Instant::now() < deadline, "{what} never happened");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    #[test]
    fn deleting_most_values_gets_the_sketches_rebuilt_in_the_background() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = Database::open(&DbConfig::new(dir.path().to_path_buf(), 2)).expect("opens");
        run(&db, "UNWIND range(1, 4000) AS i CREATE (:N {v: i})");
        assert!((distinct_values(&db) - 4000.0).abs() < 200.0);
        run(&db, "MATCH (n:N) WHERE n.v > 400 DELETE n");
        eventually("the rebuild", || {
            db.statistics_staleness()
                == Staleness {
                    live: 400,
                    forgotten: 0,
                }
        });
        assert!((distinct_values(&db) - 400.0).abs() < 20.0);
    }

    #[test]
    fn a_threshold_of_zero_never_rebuilds_and_a_small_drift_waits() {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = DbConfig {
            statistics_update_percent: 0,
            ..DbConfig::new(dir.path().to_path_buf(), 2)
        };
        let off = Database::open(&config).expect("opens");
        run(&off, "UNWIND range(1, 3000) AS i CREATE (:N {v: i})");
        run(&off, "MATCH (n:N) DELETE n");
        let other = tempfile::tempdir().expect("tempdir");
        let on = Database::open(&DbConfig::new(other.path().to_path_buf(), 2)).expect("opens");
        run(&on, "UNWIND range(1, 20000) AS i CREATE (:N {v: i})");
        // 1,500 of 20,000 values overwritten: 7.5 %, under the default 10.
        run(&on, "MATCH (n:N) WHERE n.v <= 1500 SET n.v = -n.v");
        // Long enough for the threads to have looked several times.
        std::thread::sleep(Duration::from_secs(1));
        assert_eq!(off.statistics_staleness().forgotten, 3000);
        assert_eq!(on.statistics_staleness().forgotten, 1500);
        assert!(matches!(off.distinct_node_values("v"), Some(d) if d.estimate > 2500.0));
    }
}
