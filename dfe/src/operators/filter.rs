//! `Filter`: keeps rows whose predicate is `true` by narrowing the batch's
//! selection vector (no values are copied). When a batch fails, the rows
//! before the failing one that pass are emitted first and the failure
//! follows on the next call (`row_failure.rs`).

use super::row_failure::rows_before_failure;
use super::Operator;
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::{ExecError, ExecResult};
use nereid_planner::Expr;
use nereid_values::Value;

pub(crate) struct Filter {
    pub(crate) input: Box<dyn Operator>,
    pub(crate) predicate: Expr,
    /// A row's failure, reported after the rows before it were emitted.
    pub(crate) pending: Option<ExecError>,
}

impl Operator for Filter {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        while let Some(mut batch) = self.input.next(ctx)? {
            let tests = match ctx
                .evaluator()
                .eval(&self.predicate, &batch, batch.selection())
            {
                Ok(tests) => tests,
                Err(e) => return self.emit_prefix(ctx, batch, e),
            };
            let kept = passing(batch.selection(), &tests);
            if !kept.is_empty() {
                batch.set_selection(kept);
                return Ok(Some(batch));
            }
        }
        Ok(None)
    }
}

/// The rows of `rows` whose test is `true`.
fn passing(rows: &[usize], tests: &[Value]) -> Vec<usize> {
    rows.iter()
        .zip(tests)
        .filter(|(_, test)| matches!(test, Value::Bool(true)))
        .map(|(&row, _)| row)
        .collect()
}

impl Filter {
    /// After the batch failed with `e`: the passing rows before the first
    /// failing row, with that row's error kept for the next call.
    fn emit_prefix(
        &mut self,
        ctx: &mut ExecContext,
        mut batch: Batch,
        e: ExecError,
    ) -> ExecResult<Option<Batch>> {
        let (values, row_error) = rows_before_failure(ctx, &[&self.predicate], &batch, e)?;
        let tests: Vec<Value> = values.into_iter().flatten().collect();
        let kept = passing(&batch.selection()[..tests.len()], &tests);
        if kept.is_empty() {
            return Err(row_error);
        }
        batch.set_selection(kept);
        self.pending = Some(row_error);
        Ok(Some(batch))
    }
}
