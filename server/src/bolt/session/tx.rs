//! BEGIN, COMMIT and ROLLBACK of explicit transactions.

use super::{Handled, Session, State};
use crate::bolt::backend::{Backend, ResultStream};
use crate::bolt::bookmarks;
use crate::bolt::failure::Failure;
use nereid_errors::Status;
use nereid_packstream::PackMap;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// How often a bookmark wait looks at the visible commit.
const BOOKMARK_POLL: Duration = Duration::from_millis(5);

impl<B: Backend> Session<B> {
    pub(super) async fn begin(&mut self, extra: &PackMap) -> Handled {
        self.statement_database = super::database::from_extra(extra)?;
        self.read_only = super::database::read_mode(extra);
        // The transaction's time counts from BEGIN, as with Neo4j.
        let deadline = super::timeout::deadline_at(
            extra,
            self.ctx.config.transaction_timeout,
            Instant::now(),
        )?;
        let metadata = super::metadata::from_extra(extra)?;
        self.await_bookmarks(extra).await?;
        let backend = self.ctx.backend.clone();
        let client = self.client();
        let tx = self
            .ctx
            .pool
            .run(move || backend.begin(metadata, &client))
            .await?;
        self.tx = Some(tx);
        self.in_tx = true;
        self.tx_deadline = deadline;
        self.next_qid = 0;
        self.last_qid = -1;
        self.state = State::TxReady;
        self.success(PackMap::new())
    }

    /// Commits. Results still open are discarded first, so that a write
    /// whose result the client did not consume still takes effect. A
    /// transaction past its deadline is rolled back instead.
    pub(super) async fn commit(&mut self) -> Handled {
        if let Err(timed_out) = self.check_tx_deadline() {
            self.abandon_work().await;
            return Err(timed_out);
        }
        self.tx_deadline = None;
        let streams = std::mem::take(&mut self.streams);
        let tx = self.tx.take();
        self.in_tx = false;
        self.state = State::Ready;
        let Some(tx) = tx else {
            self.ctx.pool.dispose(streams);
            return Err(Failure::new(
                Status::General,
                "the transaction was lost to an internal error",
            )
            .into());
        };
        let backend = self.ctx.backend.clone();
        let bookmark = self
            .ctx
            .pool
            .run(move || {
                for mut open in streams {
                    if let Err(e) = open.results.discard(-1) {
                        backend.rollback(tx);
                        return Err(e);
                    }
                }
                backend.commit(tx)
            })
            .await?
            .map_err(Failure::from)?;
        self.success(PackMap::new().with("bookmark", bookmark))
    }

    /// Waits until the commit named by the newest of `extra`'s bookmarks
    /// is visible. Malformed bookmarks fail the request; so does a commit
    /// not visible within the configured time, or a RESET arriving while
    /// waiting.
    pub(super) async fn await_bookmarks(&mut self, extra: &PackMap) -> Handled {
        let required = bookmarks::required_commit(extra).map_err(|bad| {
            let status = match bad {
                bookmarks::BadBookmarks::NotStrings(_) => Status::RequestInvalid,
                bookmarks::BadBookmarks::Unparseable(_) => Status::InvalidBookmark,
            };
            Failure::new(status, bad.message())
        })?;
        let Some(required) = required else {
            return Ok(());
        };
        let deadline = Instant::now() + self.ctx.config.bookmark_timeout;
        loop {
            let visible = self.ctx.backend.visible_commit_ts();
            if visible >= required {
                return Ok(());
            }
            if self.pending_resets.load(Ordering::Acquire) > 0 {
                return Err(Failure::new(
                    Status::DatabaseUnavailable,
                    "waiting for the bookmark was interrupted by RESET",
                )
                .into());
            }
            if Instant::now() >= deadline {
                return Err(Failure::new(
                    Status::DatabaseUnavailable,
                    format!(
                        "Database 'neo4j' not up to the requested version: {required}. Latest database version is {visible}"
                    ),
                )
                .into());
            }
            tokio::time::sleep(BOOKMARK_POLL).await;
        }
    }

    pub(super) async fn rollback(&mut self) -> Handled {
        self.abandon_work().await;
        self.state = State::Ready;
        self.success(PackMap::new())
    }
}
