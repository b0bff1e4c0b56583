//! What procedures ask of the database around the executor and cannot do
//! themselves: take a checkpoint (`db.checkpoint()`), run a bulk load
//! (`neptune.load`), list and terminate transactions, administer users,
//! and run a query given as text inside the calling transaction
//! (`apoc.when`, `apoc.do.when`, `apoc.case`, `apoc.do.case`). Both belong to the engine (the log, the checkpoint
//! target and the loader live there) and dfe must not depend on it, so the
//! engine hands the executor a [`DatabaseHook`]
//! (`Cursor::with_database_hook`).
//!
//! Procedure bodies keep their plain `fn(&Txn, &[Value])` signature: the
//! procedure-call operator makes the running cursor's hook (and its stop
//! signals, so a long call notices a RESET) current for the duration of the
//! call (`with_hook`), and the body reads them from there.

use crate::error::{ExecError, ExecResult};
use crate::stop::StopSignals;
use nereid_values::Value;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::Arc;

/// What the engine provides to procedures that act on the whole database.
pub trait DatabaseHook: Send + Sync {
    /// Takes a checkpoint (blocking); a one-line description of what was
    /// written, or why it failed.
    fn checkpoint(&self) -> Result<String, String>;

    /// Runs the bulk load `config` describes (`neptune.load`'s map) to its
    /// end as one transaction of its own, asking `stopped` now and then
    /// whether the caller went away (the load is then cancelled). A load
    /// that fails (a bad row under `failOnError`, a refused source) is an
    /// error with the status the engine chose; nothing of it is applied.
    fn load(
        &self,
        config: &BTreeMap<String, Value>,
        stopped: &dyn Fn() -> bool,
    ) -> ExecResult<LoadOutcome>;

    /// The database's transactions running now, oldest first.
    fn transactions(&self) -> Vec<RunningTransaction>;

    /// Terminates the transaction with id `id` (its running query stops,
    /// its next statement fails); false when none runs with that id.
    fn terminate(&self, id: &str) -> bool;

    /// Every user, by name (`SHOW USERS`, `SHOW ROLES`).
    fn users(&self) -> ExecResult<Vec<super::UserInfo>>;

    /// The user running the query (`SHOW CURRENT USER`; none without
    /// authentication).
    fn current_user(&self) -> ExecResult<Option<super::UserInfo>>;

    /// Applies a user or role command as the user running the query,
    /// durably before it returns; a refused command changes nothing.
    fn administer_users(&self, command: super::UserCommand) -> ExecResult<()>;

    /// The server's settings, as `SHOW SETTINGS` lists them (the embedder
    /// gives them to the engine; none when embedded without a server).
    fn settings(&self) -> Vec<Setting>;

    /// Runs `query` with `params` in `txn` (the calling query's
    /// transaction: what it writes is part of it) as the calling user, and
    /// answers its rows as maps from column names. Refused: a query that
    /// writes when `writes` is false, one the user may not run, one that
    /// commits by itself (`IN TRANSACTIONS`, `neptune.load`). `stopped` is
    /// asked between rows.
    fn run_nested(
        &self,
        txn: &Arc<crate::Txn>,
        query: &str,
        params: BTreeMap<String, Value>,
        writes: bool,
        stopped: &dyn Fn() -> bool,
    ) -> ExecResult<Vec<BTreeMap<String, Value>>>;

    /// `apoc.periodic.iterate`: streams `plan.iterate`'s rows from a
    /// snapshot of its own and runs `plan.action` over each batch of
    /// `plan.batch_size` rows in a transaction of its own, committed
    /// durably before the next; a batch that fails is rolled back and
    /// counted, the others stay. As the calling user; `stopped` is asked
    /// between batches.
    fn run_batches(&self, plan: &BatchPlan, stopped: &dyn Fn() -> bool) -> ExecResult<BatchReport>;
}

/// How `apoc.periodic.iterate` runs its action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchMode {
    /// Once per batch, the rows' columns as variables (APOC's default:
    /// the action is prefixed with `UNWIND $_batch AS _batch WITH ...`).
    Batch,
    /// Once per row, the row's columns as parameters.
    Single,
    /// Once per batch, the rows as the parameter `$_batch` only.
    BatchSingle,
}

/// One `apoc.periodic.iterate` call.
#[derive(Clone, Debug)]
pub struct BatchPlan {
    pub iterate: String,
    pub action: String,
    pub batch_size: usize,
    pub mode: BatchMode,
    pub params: BTreeMap<String, Value>,
}

/// What `apoc.periodic.iterate` yields, gathered by the engine.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BatchReport {
    pub batches: u64,
    pub total: u64,
    pub seconds: f64,
    pub committed_operations: u64,
    pub failed_operations: u64,
    pub failed_batches: u64,
    /// Each failure's message and how often it happened.
    pub error_messages: BTreeMap<String, u64>,
    pub was_terminated: bool,
    /// The committed batches' writes, by Neo4j's counter names.
    pub update_statistics: BTreeMap<String, i64>,
}

/// One setting of the server, as `SHOW SETTINGS` shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setting {
    /// The key of the configuration file (`bolt_address`).
    pub name: String,
    /// The value in effect, as text (secrets masked).
    pub value: String,
    pub default_value: String,
    pub description: String,
    /// Given by a flag, the environment or the file rather than defaulted.
    pub explicitly_set: bool,
}

/// A running transaction, as `SHOW TRANSACTIONS` shows it.
#[derive(Clone, Debug)]
pub struct RunningTransaction {
    /// `neo4j-transaction-<n>`.
    pub id: String,
    pub connection_id: String,
    pub client_address: String,
    pub username: String,
    /// `bolt`, `http` or `embedded`.
    pub protocol: String,
    pub request_uri: String,
    pub metadata: BTreeMap<String, Value>,
    pub started: std::time::SystemTime,
    pub elapsed: std::time::Duration,
    /// The query it runs now.
    pub query: Option<RunningQuery>,
    pub terminated: bool,
}

/// The query a transaction runs now.
#[derive(Clone, Debug)]
pub struct RunningQuery {
    /// `query-<n>`.
    pub id: String,
    pub text: String,
    pub parameters: BTreeMap<String, Value>,
    pub started: std::time::SystemTime,
    pub elapsed: std::time::Duration,
}

/// A finished load, as `neptune.load` yields it.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadOutcome {
    pub load_id: String,
    /// The loader's final state (`LOAD_COMPLETED`, ...).
    pub state: String,
    pub files: u64,
    /// Rows read, good and bad.
    pub records: u64,
    pub property_values: u64,
    pub error_count: u64,
    /// The first errors kept, each a map (file, line, column, code,
    /// message).
    pub errors: Vec<Value>,
    pub seconds: f64,
}

/// The hook, stop signals, notice collector and transaction of the
/// running call.
struct Current {
    hook: Option<Arc<dyn DatabaseHook>>,
    stop: StopSignals,
    notices: super::schema_notice::Notices,
    txn: Arc<crate::Txn>,
}

thread_local! {
    /// Set only inside [`with_hook`].
    static CURRENT: RefCell<Option<Current>> = const { RefCell::new(None) };
}

/// Runs `call` with `hook`, `stop` and `notices` as the current ones of
/// this thread, restoring the previous ones afterwards (calls may nest
/// through subqueries).
pub(crate) fn with_hook<R>(
    hook: Option<&Arc<dyn DatabaseHook>>,
    stop: &StopSignals,
    notices: &super::schema_notice::Notices,
    txn: &Arc<crate::Txn>,
    call: impl FnOnce() -> R,
) -> R {
    /// Restores the previous state even when `call` unwinds.
    struct Restore(Option<Current>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            CURRENT.with(|current| *current.borrow_mut() = previous);
        }
    }
    let now = Current {
        hook: hook.cloned(),
        stop: stop.clone(),
        notices: Arc::clone(notices),
        txn: Arc::clone(txn),
    };
    let _restore = Restore(CURRENT.with(|current| current.replace(Some(now))));
    call()
}

/// The running call's hook, or why there is none.
pub(super) fn current_hook() -> Result<Arc<dyn DatabaseHook>, &'static str> {
    CURRENT
        .with(|current| current.borrow().as_ref().and_then(|c| c.hook.clone()))
        .ok_or("not available in this context (no database around the executor)")
}

/// The running call's transaction, shared (a nested query's cursor holds
/// it), or why there is none.
pub(super) fn current_txn() -> Result<Arc<crate::Txn>, &'static str> {
    CURRENT
        .with(|current| current.borrow().as_ref().map(|c| Arc::clone(&c.txn)))
        .ok_or("not available in this context (no running call)")
}

/// Adds `notice` to the running statement's (dropped outside a call).
pub(super) fn report(notice: super::schema_notice::SchemaNotice) {
    CURRENT.with(|current| {
        if let Some(c) = current.borrow().as_ref() {
            c.notices
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .push(notice);
        }
    });
}

/// Whether the running call should stop (cancelled or past its deadline).
pub(super) fn stopped() -> bool {
    CURRENT.with(|current| {
        current
            .borrow()
            .as_ref()
            .is_some_and(|c| c.stop.check().is_err())
    })
}

/// The running call's stop signals, for work it hands to other threads
/// (which do not see this thread's state): none outside a call.
pub(super) fn current_stop() -> StopSignals {
    CURRENT
        .with(|current| current.borrow().as_ref().map(|c| c.stop.clone()))
        .unwrap_or_default()
}

/// The error of a call that stopped because its query was stopped.
pub(super) fn stop_error() -> ExecError {
    CURRENT
        .with(|current| current.borrow().as_ref().map(|c| c.stop.check()))
        .and_then(Result::err)
        .unwrap_or(ExecError::Cancelled)
}
