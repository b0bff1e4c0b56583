//! [`Cursor`]: the pull interface over a running plan.

use crate::batch::Batch;
use crate::context::{ExecContext, OperatorStats};
use crate::error::ExecError;
use crate::operators::{build, calls_procedures, plan_stats, Operator};
use crate::procedures::ProcedureRegistry;
use crate::{Params, BATCH_SIZE};
use nereid_planner::PhysicalPlan;
use nereid_storage::Txn;
use nereid_values::Value;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// A running query: pulls rows lazily from the operator pipeline.
///
/// Invariant: at most one batch is computed ahead of the rows handed out.
/// After an error the cursor is exhausted (the caller rolls back).
pub struct Cursor {
    plan: Arc<PhysicalPlan>,
    root: Box<dyn Operator>,
    ctx: ExecContext,
    /// The batch rows are currently taken from, and the index of the next
    /// row in its selection.
    current: Option<Batch>,
    position: usize,
    finished: bool,
    /// Set from another thread to stop the query at its next batch.
    cancel: Arc<AtomicBool>,
}

impl Cursor {
    /// Starts executing `plan` inside `txn`. Nothing is computed until rows
    /// are pulled. `params` may be shared (`Arc<Params>`): the caller can
    /// show them while the query runs without copying them.
    pub fn new(plan: Arc<PhysicalPlan>, txn: Arc<Txn>, params: impl Into<Arc<Params>>) -> Cursor {
        Cursor::with_batch_size(plan, txn, params, BATCH_SIZE)
    }

    /// Like [`Cursor::new`] with a different target batch size (at least 1).
    pub fn with_batch_size(
        plan: Arc<PhysicalPlan>,
        txn: Arc<Txn>,
        params: impl Into<Arc<Params>>,
        batch_size: usize,
    ) -> Cursor {
        let root = build(&plan.root, 0, None);
        let mut ctx = ExecContext::new(
            txn,
            params.into(),
            plan.slot_count,
            batch_size,
            plan_stats(&plan.root),
        );
        if !plan.writes && !calls_procedures(&plan.root) {
            ctx.memo = Some(Arc::default());
        }
        let cancel = Arc::new(AtomicBool::new(false));
        ctx.stop.cancel = Arc::clone(&cancel);
        let cursor = Cursor {
            plan,
            root,
            ctx,
            current: None,
            position: 0,
            finished: false,
            cancel,
        };
        cursor.bound_waits();
        cursor
    }

    /// Bounds the transaction's waits for other transactions' writes by
    /// this query's stop signals, so RESET, termination and the deadline
    /// end a wait as they end a batch.
    fn bound_waits(&self) {
        self.ctx.txn.set_wait_limits(self.ctx.stop.wait_limits());
    }

    /// Stops on `cancel` instead of a flag of its own: a statement run
    /// again (on a newer snapshot) keeps the flag RESET already holds.
    pub fn with_cancel_handle(mut self, cancel: Arc<AtomicBool>) -> Cursor {
        self.ctx.stop.cancel = Arc::clone(&cancel);
        self.cancel = cancel;
        self.bound_waits();
        self
    }

    /// PROFILE: every operator also measures its time and store calls
    /// (see [`OperatorStats`]); off, they cost nothing.
    pub fn with_profiling(mut self) -> Cursor {
        self.ctx.profiling = true;
        self
    }

    /// Resolves `CALL`s through `procedures` (the database's registry)
    /// instead of a registry holding only the built-ins.
    pub fn with_procedures(mut self, procedures: Arc<ProcedureRegistry>) -> Cursor {
        self.ctx.procedures = procedures;
        self
    }

    /// Puts the query under a memory budget of `limit` bytes (0: none),
    /// charging it the parameters' footprint first: fails when they alone
    /// do not fit.
    pub fn with_memory_limit(mut self, limit: usize) -> Result<Cursor, ExecError> {
        self.ctx.set_budget(crate::MemoryBudget::new(limit))?;
        Ok(self)
    }

    /// Lets `CALL db.checkpoint()` and `neptune.load` in this query reach
    /// the engine through `hook` (dfe cannot reach the log or the loader).
    pub fn with_database_hook(mut self, hook: Arc<dyn crate::DatabaseHook>) -> Cursor {
        self.ctx.database_hook = Some(hook);
        self
    }

    /// Lets `LOAD CSV` in this query open files through `files` (the
    /// server's, which confines them to its import directory).
    pub fn with_file_source(mut self, files: Arc<dyn crate::FileSource>) -> Cursor {
        self.ctx.files = Some(files);
        self
    }

    /// Lets `CALL { } IN TRANSACTIONS` in this query begin and commit its
    /// batches' transactions through `transactions` (given for auto-commit
    /// queries only).
    pub fn with_inner_transactions(
        mut self,
        transactions: Arc<dyn crate::InnerTransactions>,
    ) -> Cursor {
        self.ctx.inner_transactions = Some(transactions);
        self
    }

    /// Lets `tx.getMetaData()` / `tx.setMetaData()` in this query read and
    /// replace `metadata`, the running transaction's (shared by its
    /// statements; the server keeps it with the transaction).
    pub fn with_tx_metadata(mut self, metadata: Arc<crate::TxMetadata>) -> Cursor {
        self.ctx.tx_metadata = Some(metadata);
        self
    }

    /// A flag that, once set (from any thread), makes the next batch fail
    /// with [`ExecError::Cancelled`]: how RESET interrupts a running query.
    /// Every operator checks it before each batch, so an operator draining
    /// its input (sort, aggregation) stops within one batch of its input.
    pub fn cancel_handle(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.cancel)
    }

    /// Stops the query with [`ExecError::TimedOut`] at the first check
    /// after `deadline` (its transaction's; `None`: no limit). Checked
    /// where the cancel flag is, before every batch.
    pub fn with_deadline(mut self, deadline: Option<crate::Deadline>) -> Cursor {
        self.ctx.stop.deadline = deadline;
        self.bound_waits();
        self
    }

    /// Result column names.
    pub fn columns(&self) -> Vec<String> {
        self.plan
            .outputs
            .iter()
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// The next result row (values of the plan's output slots, in order), or
    /// `None` when the query is exhausted. Computes at most one batch ahead.
    pub fn next_row(&mut self) -> Result<Option<Vec<Value>>, ExecError> {
        loop {
            if let Some(batch) = &self.current {
                if let Some(&row) = batch.selection().get(self.position) {
                    self.position += 1;
                    return Ok(Some(self.output_row(batch, row)));
                }
                self.current = None;
            }
            if !self.pull()? {
                return Ok(None);
            }
        }
    }

    /// The rest of the current batch, or the next batch, as result rows;
    /// `None` when the query is exhausted.
    pub fn next_batch(&mut self) -> Result<Option<Vec<Vec<Value>>>, ExecError> {
        loop {
            if let Some(batch) = self.current.take() {
                let rows: Vec<Vec<Value>> = batch
                    .selection()
                    .get(self.position..)
                    .unwrap_or_default()
                    .iter()
                    .map(|&row| self.output_row(&batch, row))
                    .collect();
                if !rows.is_empty() {
                    return Ok(Some(rows));
                }
            }
            if !self.pull()? {
                return Ok(None);
            }
        }
    }

    /// The notices of the statement's schema commands so far (taken: a
    /// second call returns only newer ones).
    pub fn take_notices(&self) -> Vec<crate::SchemaNotice> {
        std::mem::take(
            &mut *self
                .ctx
                .notices
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner()),
        )
    }

    /// Rows emitted so far by each operator of the plan (pre-order: an
    /// operator, its input, then an Optional's inner plan).
    pub fn operator_stats(&self) -> &[OperatorStats] {
        &self.ctx.stats
    }

    /// Fetches the next batch into `current`; false when exhausted.
    fn pull(&mut self) -> Result<bool, ExecError> {
        if self.finished {
            return Ok(false);
        }
        if let Err(stopped) = self.ctx.check_stop() {
            self.finished = true;
            return Err(stopped);
        }
        match self.root.next(&mut self.ctx) {
            Ok(Some(batch)) => {
                self.current = Some(batch);
                self.position = 0;
                Ok(true)
            }
            Ok(None) => {
                self.finished = true;
                Ok(false)
            }
            Err(error) => {
                self.finished = true;
                Err(error)
            }
        }
    }

    fn output_row(&self, batch: &Batch, row: usize) -> Vec<Value> {
        self.plan
            .outputs
            .iter()
            .map(|(_, slot)| batch.value(*slot, row).clone())
            .collect()
    }
}
