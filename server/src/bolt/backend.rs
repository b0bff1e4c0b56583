//! What the Bolt session needs from the database, as traits, so that the
//! state machine can be tested against a small in-memory backend. The real
//! implementation forwards to the engine's [`Database`].
//!
//! Every method is blocking; the session calls them only on the execution
//! pool. Transactions and result streams are `Send` because they move into
//! a pool job and back.

use nereid_dfe::Deadline;
use nereid_engine::{
    Client, Database, DbError, Metrics, Params, QueryResult, Summary, Transaction, UserDirectory,
};
use nereid_values::{EntityResolver, Value};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// The database operations behind BEGIN/RUN/COMMIT/ROLLBACK.
pub trait Backend: Send + Sync + 'static {
    type Tx: Send + 'static;
    type Results: ResultStream;

    /// Begins a transaction carrying the client's `tx_metadata`, run by
    /// `client` (as `SHOW TRANSACTIONS` shows it).
    fn begin(self: &Arc<Self>, metadata: Params, client: &Client) -> Self::Tx;

    /// Runs `query` in `tx`, or auto-commit when `tx` is `None` (committed
    /// once the stream is exhausted; its transaction carries `metadata`,
    /// RUN's `tx_metadata`). Past `deadline` (the transaction's) the query
    /// stops with a timeout failure. `client` runs it (an auto-commit
    /// transaction is listed as its).
    fn run(
        self: &Arc<Self>,
        tx: Option<&Self::Tx>,
        query: &str,
        params: Params,
        deadline: Option<Deadline>,
        metadata: Params,
        client: &Client,
    ) -> Result<Self::Results, DbError>;

    /// Whether `query` would change data or schema, decided from its plan
    /// without running it (a read-only request refuses it up front).
    fn writes(self: &Arc<Self>, query: &str) -> Result<bool, DbError>;

    /// Bytes one query may hold (0: no limit), which bounds the decoding
    /// of its parameters too.
    fn query_max_memory(&self) -> usize {
        0
    }

    /// Commits; returns the bookmark.
    fn commit(self: &Arc<Self>, tx: Self::Tx) -> Result<String, DbError>;

    fn rollback(self: &Arc<Self>, tx: Self::Tx);

    /// Why the backend cannot do its job now, for `/health` (`None`:
    /// healthy).
    fn problem(self: &Arc<Self>) -> Option<String> {
        None
    }

    /// Takes a checkpoint now (`POST /admin/checkpoint`); returns what it
    /// wrote, as JSON. Backends without durable storage do not support it.
    fn checkpoint(self: &Arc<Self>) -> Result<serde_json::Value, DbError> {
        Err(DbError {
            status: nereid_errors::Status::NotSupported,
            message: "this backend takes no checkpoints".into(),
        })
    }

    /// Hands the backend the server's users, which its user commands
    /// (`CREATE USER`, `SHOW USERS`, ...) administer. A backend that runs
    /// no Cypher has no such commands and keeps nothing.
    fn administer_users_with(self: &Arc<Self>, _directory: Arc<dyn UserDirectory>) {}

    /// Every commit up to this timestamp is visible to new transactions
    /// (what bookmarks wait for). Cheap: callable on the I/O threads.
    fn visible_commit_ts(&self) -> u64;

    /// The engine's numbers for `GET /metrics` (`None`: the backend keeps
    /// none). Cheap and lock-free for commits: callable on the I/O threads.
    fn metrics(&self) -> Option<Metrics> {
        None
    }
}

/// The result of one RUN, pulled in batches.
pub trait ResultStream: Send + 'static {
    fn fields(&self) -> &[String];

    /// Streams up to `n` rows (all when `n < 0`) to `sink`; returns `has_more`.
    fn pull(
        &mut self,
        n: i64,
        sink: &mut dyn FnMut(&[Value], &dyn EntityResolver),
    ) -> Result<bool, DbError>;

    /// Like `pull`, but drops the rows.
    fn discard(&mut self, n: i64) -> Result<bool, DbError>;

    /// Valid once `pull`/`discard` returned `has_more == false`.
    fn summary(&self) -> Summary;

    /// A flag that stops a running `pull`/`discard` at its next batch.
    fn cancel_handle(&self) -> Option<Arc<AtomicBool>>;
}

impl Backend for Database {
    type Tx = Transaction;
    type Results = QueryResult;

    fn begin(self: &Arc<Self>, metadata: Params, client: &Client) -> Transaction {
        Database::begin_as(self, metadata, client.clone())
    }

    fn run(
        self: &Arc<Self>,
        tx: Option<&Transaction>,
        query: &str,
        params: Params,
        deadline: Option<Deadline>,
        metadata: Params,
        client: &Client,
    ) -> Result<QueryResult, DbError> {
        Database::run_as(self, tx, query, params, deadline, metadata, client)
    }

    fn writes(self: &Arc<Self>, query: &str) -> Result<bool, DbError> {
        Ok(Database::statement_type(self, query)? != "r")
    }

    fn query_max_memory(&self) -> usize {
        Database::query_max_memory(self)
    }

    fn commit(self: &Arc<Self>, tx: Transaction) -> Result<String, DbError> {
        Database::commit(self, tx)
    }

    fn rollback(self: &Arc<Self>, tx: Transaction) {
        Database::rollback(self, tx)
    }

    fn problem(self: &Arc<Self>) -> Option<String> {
        self.log_failure()
    }

    fn checkpoint(self: &Arc<Self>) -> Result<serde_json::Value, DbError> {
        let info = Database::checkpoint(self)?;
        Ok(serde_json::json!({
            "commit_ts": info.commit_ts,
            "written": info.written,
            "nodes": info.nodes,
            "relationships": info.relationships,
            "bytes": info.bytes,
            "files": info.files,
            // No "dir": the admin endpoint has no authentication yet, and
            // must not tell anyone where the data lives.
            "elapsed_ms": info.elapsed.as_millis() as u64,
        }))
    }

    fn administer_users_with(self: &Arc<Self>, directory: Arc<dyn UserDirectory>) {
        // Registered once, at start; a second server on the same database
        // (tests) keeps the first one's users.
        let _ = self.set_user_directory(directory);
    }

    fn visible_commit_ts(&self) -> u64 {
        Database::visible_commit_ts(self)
    }

    fn metrics(&self) -> Option<Metrics> {
        Some(Database::metrics(self))
    }
}

impl ResultStream for QueryResult {
    fn fields(&self) -> &[String] {
        QueryResult::fields(self)
    }

    fn pull(
        &mut self,
        n: i64,
        sink: &mut dyn FnMut(&[Value], &dyn EntityResolver),
    ) -> Result<bool, DbError> {
        QueryResult::pull(self, n, sink)
    }

    fn discard(&mut self, n: i64) -> Result<bool, DbError> {
        QueryResult::discard(self, n)
    }

    fn summary(&self) -> Summary {
        QueryResult::summary(self)
    }

    fn cancel_handle(&self) -> Option<Arc<AtomicBool>> {
        QueryResult::cancel_handle(self)
    }
}
