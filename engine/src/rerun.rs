//! Running a statement again on a newer snapshot when its write met a
//! newer committed version (docs/adr/0126-waiting-for-uncommitted-writes.md).
//!
//! Why: a write that waited for another transaction's write on the same
//! entity, which then committed, cannot be applied to this transaction's
//! snapshot without losing that commit's update (first-committer-wins
//! refuses it). Neo4j lets the second writer go on, on the newest version.
//! Here the statement starts over: its transaction's writes are undone, its
//! snapshot moves to the newest published commit, and the statement runs
//! again from its first operator, so every value it reads (`n.v + 1`) is
//! read again after the other commit. That keeps snapshot isolation only
//! while nobody saw the old snapshot's answers: the statement is its
//! transaction's first, it has returned no row, and it wrote nothing
//! outside its transaction (no inner batch commits, no user commands).
//! Otherwise the conflict reaches the client as a transient error, which
//! drivers retry.

use nereid_dfe::{Cursor, ExecError};
use nereid_storage::{StorageError, Txn};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Runs after which the conflict is reported instead (each run follows
/// another transaction's commit, so the system progressed meanwhile).
const MAX_RUNS: u32 = 64;

/// Builds the statement's cursor over a transaction.
pub(crate) type CursorFactory = Box<dyn Fn(&Arc<Txn>) -> Result<Cursor, ExecError> + Send>;

/// How to run a statement again, kept while that is allowed.
pub(crate) struct Rerun {
    build: CursorFactory,
    /// Statements begun in the transaction: the rerun is allowed only while
    /// this one is the only one (another may have read the snapshot).
    statements: Arc<AtomicU64>,
    runs: u32,
}

impl Rerun {
    pub(crate) fn new(build: CursorFactory, statements: Arc<AtomicU64>) -> Rerun {
        Rerun {
            build,
            statements,
            runs: 1,
        }
    }

    /// Builds the cursor of the first run.
    pub(crate) fn first(&self, txn: &Arc<Txn>) -> Result<Cursor, ExecError> {
        (self.build)(txn)
    }

    /// After `error` from a cursor that returned no row: the cursor of a
    /// run on the newest snapshot (stopping on `cancel`, the flag RESET
    /// already holds), or `None` when the error must be reported.
    pub(crate) fn again(
        &mut self,
        error: &ExecError,
        txn: &Arc<Txn>,
        cancel: Arc<AtomicBool>,
    ) -> Option<Result<Cursor, ExecError>> {
        let outdated = matches!(error, ExecError::Storage(StorageError::WriteConflict(_)));
        if !outdated || self.runs >= MAX_RUNS || self.statements.load(Ordering::Acquire) != 1 {
            return None;
        }
        if txn.restart().is_err() {
            return None;
        }
        self.runs += 1;
        Some((self.build)(txn).map(|cursor| cursor.with_cancel_handle(cancel)))
    }
}
