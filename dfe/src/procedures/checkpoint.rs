//! `db.checkpoint()`: takes a checkpoint now, like Neo4j's procedure of the
//! same name (one row: `success`, `message`).
//!
//! Checkpoints belong to the server (the log and the checkpoint target live
//! there) and dfe must not depend on it, so the server hands the executor a
//! [`CheckpointHook`] (`Cursor::with_checkpoint_hook`). Procedure bodies
//! keep their plain `fn(&Txn, &[Value])` signature: the procedure-call
//! operator makes the running cursor's hook current for the duration of the
//! call (`with_hook`), and the body reads it from there.

use super::Procedure;
use crate::error::ExecResult;
use nereid_storage::Txn;
use nereid_values::Value;
use std::cell::RefCell;
use std::sync::Arc;

/// What the server provides to take a checkpoint on demand.
pub trait CheckpointHook: Send + Sync {
    /// Takes a checkpoint (blocking); a one-line description of what was
    /// written, or why it failed.
    fn checkpoint(&self) -> Result<String, String>;
}

pub(super) const PROCEDURES: &[Procedure] = &[Procedure {
    name: "db.checkpoint",
    inputs: &[],
    outputs: &["success", "message"],
    description: "Takes a checkpoint now: the committed state is written to the checkpoint \
                  location and the log it covers is discarded.",
    mode: "DBMS",
    body: checkpoint,
}];

thread_local! {
    /// The hook of the cursor whose procedure call is running on this
    /// thread (set only inside [`with_hook`]).
    static CURRENT: RefCell<Option<Arc<dyn CheckpointHook>>> = const { RefCell::new(None) };
}

/// Runs `call` with `hook` as the current checkpoint hook of this thread,
/// restoring the previous one afterwards (calls may nest through
/// subqueries).
pub(crate) fn with_hook<R>(hook: Option<&Arc<dyn CheckpointHook>>, call: impl FnOnce() -> R) -> R {
    /// Restores the previous hook even when `call` unwinds.
    struct Restore(Option<Arc<dyn CheckpointHook>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            CURRENT.with(|current| *current.borrow_mut() = previous);
        }
    }
    let _restore = Restore(CURRENT.with(|current| current.replace(hook.cloned())));
    call()
}

fn checkpoint(_txn: &Txn, _args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let hook = CURRENT.with(|current| current.borrow().clone());
    let (success, message) = match hook {
        Some(hook) => match hook.checkpoint() {
            Ok(done) => (true, format!("Checkpoint completed: {done}")),
            Err(why) => (false, format!("Checkpoint failed: {why}")),
        },
        None => (
            false,
            "Checkpoints are not available in this context (no durable log).".to_string(),
        ),
    };
    Ok(vec![vec![Value::Bool(success), Value::String(message)]])
}
