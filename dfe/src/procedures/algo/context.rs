//! What a running algorithm needs beyond its arguments: the database's
//! view cache (installed per call, like the checkpoint hook) and a pool
//! of the configured size.

use super::config::Config;
use crate::error::{ExecError, ExecResult};
use nereid_algorithms::{AlgorithmError, GraphView, ViewCache, ViewSpec};
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
/// on it, both on a pool of the configured `concurrency`.
pub(super) fn on_view<R: Send>(
    txn: &Txn,
    config: &Config,
    spec: &ViewSpec,
    work: impl FnOnce(&GraphView) -> R + Send,
) -> ExecResult<R> {
    // Outside a registry's call (a unit test calling a body) nothing is
    // cached: a fresh cache serves this call alone.
    let views = CURRENT
        .with(|current| current.borrow().clone())
        .unwrap_or_default();
    let threads = config.concurrency()?;
    let result = views.pools().run(threads, || -> Result<R, AlgorithmError> {
        let view = views.view(txn, spec)?;
        Ok(work(&view))
    });
    result
        .and_then(|r| r)
        .map_err(|e| config.failed(&e.to_string()))
}

/// An error of the procedure `name` (Neo4j's ProcedureCallFailed shape).
pub(super) fn call_failed(name: &str, why: &str) -> ExecError {
    ExecError::ProcedureCallFailed(format!(
        "Failed to invoke procedure `{name}`: Caused by: {why}"
    ))
}
