//! Finding the row a batch-wide evaluation failed on.
//!
//! Expressions evaluate a batch at a time, so one failing row (`10 / x`
//! with `x = 0`) used to fail the whole batch, and the rows before it never
//! reached the client. Neo4j streams those rows first and then fails, and
//! drivers (testkit's `test_recover_from_fail_on_streaming`) rely on it. So
//! when a batch evaluation fails, `Project` and `Filter` evaluate the batch
//! again row by row, in order, emit the rows before the first one that
//! fails, and report that row's error on their next call. Only failures pay
//! for this.

use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecError;
use nereid_planner::Expr;
use nereid_values::Value;

/// After `exprs` failed with `e` over `batch`'s active rows: each
/// expression's value for the rows before the first failing row (at least
/// one), and that row's error, to report next. `Err` with the error to
/// report now when no row comes first: the first row fails, the query was
/// stopped, or no single row fails on its own (the batch failed for a
/// reason that is not any row's).
pub(crate) fn rows_before_failure(
    ctx: &mut ExecContext,
    exprs: &[&Expr],
    batch: &Batch,
    e: ExecError,
) -> Result<(Vec<Vec<Value>>, ExecError), ExecError> {
    if matches!(e, ExecError::Cancelled | ExecError::TimedOut { .. }) {
        return Err(e);
    }
    let mut values = Vec::new();
    for &row in batch.selection() {
        let mut row_values = Vec::with_capacity(exprs.len());
        for expr in exprs {
            match ctx.evaluator().eval_row(expr, batch, row) {
                Ok(value) => row_values.push(value),
                Err(row_error) if values.is_empty() => return Err(row_error),
                Err(row_error) => return Ok((values, row_error)),
            }
        }
        values.push(row_values);
    }
    Err(e)
}
