//! `ApplyInTransactions` (`CALL { ... } IN TRANSACTIONS`): the body runs
//! for `rows` input rows at a time, each batch in a transaction of its own
//! that is committed before the next batch begins, so an import or a mass
//! delete never holds more than one batch of changes.
//!
//! The input is read in the query's own transaction, whose snapshot the
//! inner commits do not change: what the input reads is what was there
//! when the query began, whatever the body writes. Each batch's
//! transaction begins on the latest committed state, so it sees the
//! batches before it.
//!
//! When a batch fails: `ON ERROR FAIL` fails the query (earlier batches
//! stay committed, as in Neo4j); `CONTINUE` rolls the batch back, passes
//! its rows on with null for what the body returns, and goes on; `BREAK`
//! does the same and runs no later batch, passing the remaining rows on
//! with nulls. A cancelled, timed-out or over-budget query fails whatever
//! the option says. `REPORT STATUS AS s` gives each row the outcome of its
//! batch: `{started, committed, transactionId, errorMessage}`.

use super::apply::returned_values;
use super::{build, Operator};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::{ExecError, ExecResult};
use crate::memory::Reservation;
use nereid_planner::{OnError, Op, OwnedPlan, Slot, TransactionBatches};
use nereid_values::Value;
use std::collections::{BTreeMap, VecDeque};

pub(crate) struct ApplyInTransactions {
    input: Box<dyn Operator>,
    inner: OwnedPlan,
    inner_first_id: usize,
    returned: Vec<Slot>,
    unit: bool,
    batches: TransactionBatches,
    /// Rows per batch, once evaluated.
    rows_per_batch: Option<usize>,
    /// Input rows not yet run, in order.
    waiting: VecDeque<Vec<Value>>,
    input_done: bool,
    /// `ON ERROR BREAK` stopped: no later batch runs.
    broken: bool,
    /// Finished rows not yet emitted, and what they hold of the budget.
    ready: VecDeque<Vec<Value>>,
    held: Option<Reservation>,
}

/// What `REPORT STATUS` shows for one batch.
struct Outcome {
    started: bool,
    committed: bool,
    transaction_id: Option<String>,
    error: Option<String>,
}

impl Outcome {
    fn value(&self) -> Value {
        let text = |s: &Option<String>| s.clone().map_or(Value::Null, Value::String);
        Value::Map(BTreeMap::from([
            ("started".to_string(), Value::Bool(self.started)),
            ("committed".to_string(), Value::Bool(self.committed)),
            ("transactionId".to_string(), text(&self.transaction_id)),
            ("errorMessage".to_string(), text(&self.error)),
        ]))
    }
}

impl ApplyInTransactions {
    pub(crate) fn new(
        input: Box<dyn Operator>,
        inner: Op,
        inner_first_id: usize,
        returned: Vec<Slot>,
        unit: bool,
        batches: TransactionBatches,
    ) -> ApplyInTransactions {
        ApplyInTransactions {
            input,
            inner: OwnedPlan::new(inner),
            inner_first_id,
            returned,
            unit,
            batches,
            rows_per_batch: None,
            waiting: VecDeque::new(),
            input_done: false,
            broken: false,
            ready: VecDeque::new(),
            held: None,
        }
    }

    /// `OF n ROWS`, evaluated on the first call: a positive integer.
    fn rows_per_batch(&mut self, ctx: &mut ExecContext) -> ExecResult<usize> {
        if let Some(n) = self.rows_per_batch {
            return Ok(n);
        }
        let one = Batch::from_rows(ctx.slot_count, [ctx.null_row()]);
        let value = ctx
            .evaluator()
            .eval(&self.batches.rows, &one, &[0])?
            .pop()
            .unwrap_or(Value::Null);
        let n = match value {
            Value::Int(n) if n > 0 => usize::try_from(n).unwrap_or(usize::MAX),
            other => {
                return Err(ExecError::Argument(format!(
                    "Invalid input. '{}' is not a valid value. Must be a positive integer.",
                    other
                )))
            }
        };
        self.rows_per_batch = Some(n);
        Ok(n)
    }

    /// Reads input until a whole batch waits (or the input ends).
    fn fill(&mut self, ctx: &mut ExecContext, n: usize) -> ExecResult<()> {
        while !self.input_done && self.waiting.len() < n {
            match self.input.next(ctx)? {
                Some(batch) => self.waiting.extend(batch.into_active_rows()),
                None => self.input_done = true,
            }
        }
        Ok(())
    }

    /// Runs one batch of rows in a transaction of its own, queueing its
    /// output rows; fails only when the query must fail.
    fn run_batch(&mut self, ctx: &mut ExecContext, rows: Vec<Vec<Value>>) -> ExecResult<()> {
        if self.broken {
            let outcome = Outcome {
                started: false,
                committed: false,
                transaction_id: None,
                error: None,
            };
            return self.pass_with_nulls(ctx, rows, &outcome);
        }
        let transactions = ctx.inner_transactions.clone().ok_or_else(|| {
            ExecError::ExecutionFailed(
                "CALL { ... } IN TRANSACTIONS needs a database that can commit its batches"
                    .to_string(),
            )
        })?;
        let (txn, id) = transactions.begin();
        txn.set_wait_limits(ctx.stop.wait_limits());
        let outer = std::mem::replace(&mut ctx.txn, txn);
        let ran = self.run_body(ctx, &rows);
        let txn = std::mem::replace(&mut ctx.txn, outer);
        let result = ran.and_then(|output| transactions.commit(&txn).map(|()| output));
        match result {
            Ok(output) => {
                let outcome = Outcome {
                    started: true,
                    committed: true,
                    transaction_id: Some(id),
                    error: None,
                };
                for row in output {
                    self.queue(ctx, row, &outcome)?;
                }
                Ok(())
            }
            Err(error) => {
                transactions.rollback(&txn);
                let fatal = matches!(
                    error,
                    ExecError::Cancelled
                        | ExecError::TimedOut { .. }
                        | ExecError::MemoryLimit { .. }
                );
                if fatal || self.batches.on_error == OnError::Fail {
                    return Err(error);
                }
                self.broken = self.batches.on_error == OnError::Break;
                let outcome = Outcome {
                    started: true,
                    committed: false,
                    transaction_id: Some(id),
                    error: Some(error.to_string()),
                };
                self.pass_with_nulls(ctx, rows, &outcome)
            }
        }
    }

    /// The body for each row of a batch, in the batch's transaction: the
    /// rows to emit (each input row extended with each inner row's
    /// returned values; a unit body's row once).
    fn run_body(&self, ctx: &mut ExecContext, rows: &[Vec<Value>]) -> ExecResult<Vec<Vec<Value>>> {
        let mut output = Vec::new();
        let mut held = ctx.reservation();
        for row in rows {
            let mut body = build(&self.inner, self.inner_first_id, Some(row.clone()));
            while let Some(inner) = body.next(ctx)? {
                if self.unit {
                    continue;
                }
                for &r in inner.selection() {
                    let mut extended = row.clone();
                    for (slot, value) in returned_values(&inner, r, &self.returned) {
                        extended[slot] = value;
                    }
                    held.grow_by_values(extended.iter())?;
                    output.push(extended);
                }
            }
            if self.unit {
                output.push(row.clone());
            }
        }
        Ok(output)
    }

    fn pass_with_nulls(
        &mut self,
        ctx: &ExecContext,
        rows: Vec<Vec<Value>>,
        outcome: &Outcome,
    ) -> ExecResult<()> {
        for mut row in rows {
            for &slot in &self.returned {
                row[slot] = Value::Null;
            }
            self.queue(ctx, row, outcome)?;
        }
        Ok(())
    }

    fn queue(
        &mut self,
        ctx: &ExecContext,
        mut row: Vec<Value>,
        outcome: &Outcome,
    ) -> ExecResult<()> {
        if let Some(slot) = self.batches.status {
            row[slot] = outcome.value();
        }
        self.held
            .get_or_insert_with(|| ctx.reservation())
            .grow_by_values(row.iter())?;
        self.ready.push_back(row);
        Ok(())
    }
}

impl Operator for ApplyInTransactions {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        let n = self.rows_per_batch(ctx)?;
        while self.ready.is_empty() {
            self.fill(ctx, n)?;
            if self.waiting.is_empty() {
                self.held = None;
                return Ok(None);
            }
            let take = n.min(self.waiting.len());
            let rows: Vec<Vec<Value>> = self.waiting.drain(..take).collect();
            self.run_batch(ctx, rows)?;
        }
        let take = ctx.batch_size.min(self.ready.len());
        let rows: Vec<Vec<Value>> = self.ready.drain(..take).collect();
        if self.ready.is_empty() {
            self.held = None;
        }
        Ok(Some(Batch::from_rows(ctx.slot_count, rows)))
    }
}
