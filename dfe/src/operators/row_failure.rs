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

/// The outcome of evaluating `exprs` row by row over a batch's active rows.
pub(crate) struct Prefix {
    /// Per active row before the failing one, each expression's value.
    pub(crate) values: Vec<Vec<Value>>,
    /// The first failing row's error; `None` when every row succeeded on
    /// its own (the batch failed for a reason that is not any row's: the
    /// caller reports the batch's own error).
    pub(crate) error: Option<ExecError>,
}

/// Evaluates `exprs` for each active row of `batch` in turn, stopping at the
/// first row where one fails.
pub(crate) fn evaluate_rows(ctx: &mut ExecContext, exprs: &[&Expr], batch: &Batch) -> Prefix {
    let mut values = Vec::new();
    for &row in batch.selection() {
        let mut row_values = Vec::with_capacity(exprs.len());
        for expr in exprs {
            match ctx.evaluator().eval_row(expr, batch, row) {
                Ok(value) => row_values.push(value),
                Err(e) => {
                    return Prefix {
                        values,
                        error: Some(e),
                    }
                }
            }
        }
        values.push(row_values);
    }
    Prefix {
        values,
        error: None,
    }
}

/// Whether a batch failure is worth locating row by row: a cancelled or
/// timed-out query stops now, whatever rows were computed.
pub(crate) fn is_row_failure(e: &ExecError) -> bool {
    !matches!(e, ExecError::Cancelled | ExecError::TimedOut { .. })
}
