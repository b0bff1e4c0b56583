//! What a running algorithm needs beyond its arguments: the database's
//! view cache (installed per call, like the checkpoint hook) and a pool
//! of the configured size.

use super::super::database_hook::current_stop;
use super::config::Config;
use crate::error::{ExecError, ExecResult};
use nereid_algorithms::{AlgorithmError, GraphView, Stop, ViewCache, ViewSpec};
use nereid_storage::Txn;
use std::cell::RefCell;
use std::sync::Arc;

thread_local! {
    /// The view cache of the database whose procedure call is running on
    /// this thread (set only inside [`with_views`]).
    static CURRENT: RefCell<Option<Arc<ViewCache>>> = const { RefCell::new(None) };
}

/// Runs `call` with `views` as this thread's view cache, restoring the
/// previous one afterwards (calls nest through subqueries).
pub(crate) fn with_views<R>(views: &Arc<ViewCache>, call: impl FnOnce() -> R) -> R {
    /// Restores the previous cache even when `call` unwinds.
    struct Restore(Option<Arc<ViewCache>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            CURRENT.with(|current| *current.borrow_mut() = previous);
        }
    }
    let _restore = Restore(CURRENT.with(|current| current.replace(Some(views.clone()))));
    call()
}

/// Builds (or reuses) the view `spec` of `txn`'s snapshot and runs `work`
/// on it, both on a pool of the configured `concurrency`. `work` gets the
/// query's stop check for its kernels: a RESET or a timeout stops the
/// kernel at its next round and fails the call as it fails any query
/// (`Cancelled`, `TimedOut`), not as a procedure failure.
pub(super) fn on_view<R: Send>(
    txn: &Txn,
    config: &Config,
    spec: &ViewSpec,
    work: impl FnOnce(&GraphView, Stop) -> Result<R, AlgorithmError> + Send,
) -> ExecResult<R> {
    let signals = current_stop();
    let stopped = || signals.check().is_err();
    // Outside a registry's call (a unit test calling a body) nothing is
    // cached: a fresh cache serves this call alone.
    let views = CURRENT
        .with(|current| current.borrow().clone())
        .unwrap_or_default();
    let threads = config.concurrency()?;
    let result = views.pools().run(threads, || -> Result<R, AlgorithmError> {
        let view = views.view(txn, spec)?;
        work(&view, Stop::new(&stopped))
    });
    result.and_then(|r| r).map_err(|e| match e {
        AlgorithmError::Stopped => signals.check().err().unwrap_or(ExecError::Cancelled),
        other => config.failed(&other.to_string()),
    })
}

/// An error of the procedure `name` (Neo4j's ProcedureCallFailed shape).
pub(super) fn call_failed(name: &str, why: &str) -> ExecError {
    ExecError::ProcedureCallFailed(format!(
        "Failed to invoke procedure `{name}`: Caused by: {why}"
    ))
}
