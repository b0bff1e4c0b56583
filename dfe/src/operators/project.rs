//! `Project`: evaluates expressions into slots. All items are evaluated
//! against the input row before any slot is written, so `WITH a AS b, b AS a`
//! swaps. When a batch fails, the rows before the failing one are emitted
//! first and the failure follows on the next call (`row_failure.rs`).

use super::row_failure::rows_before_failure;
use super::Operator;
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::{ExecError, ExecResult};
use nereid_planner::{Expr, Slot};
use nereid_values::Value;

pub(crate) struct Project {
    pub(crate) input: Box<dyn Operator>,
    pub(crate) items: Vec<(Slot, Expr)>,
    /// A row's failure, reported after the rows before it were emitted.
    pub(crate) pending: Option<ExecError>,
}

impl Operator for Project {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        let Some(mut batch) = self.input.next(ctx)? else {
            return Ok(None);
        };
        let columns = match self.evaluate(ctx, &batch) {
            Ok(columns) => columns,
            Err(e) => return self.emit_prefix(ctx, batch, e),
        };
        let rows = batch.selection().to_vec();
        for (slot, column) in columns {
            for (&row, value) in rows.iter().zip(column) {
                batch.set(slot, row, value);
            }
        }
        Ok(Some(batch))
    }
}

impl Project {
    fn evaluate(
        &self,
        ctx: &mut ExecContext,
        batch: &Batch,
    ) -> ExecResult<Vec<(Slot, Vec<Value>)>> {
        let mut columns = Vec::with_capacity(self.items.len());
        for (slot, expr) in &self.items {
            columns.push((*slot, ctx.evaluator().eval(expr, batch, batch.selection())?));
        }
        Ok(columns)
    }

    /// After the batch failed with `e`: the rows before the first failing
    /// row, projected, with that row's error kept for the next call.
    fn emit_prefix(
        &mut self,
        ctx: &mut ExecContext,
        mut batch: Batch,
        e: ExecError,
    ) -> ExecResult<Option<Batch>> {
        let exprs: Vec<&Expr> = self.items.iter().map(|(_, expr)| expr).collect();
        let (values, row_error) = rows_before_failure(ctx, &exprs, &batch, e)?;
        let rows = batch.selection()[..values.len()].to_vec();
        for (&row, values) in rows.iter().zip(values) {
            for ((slot, _), value) in self.items.iter().zip(values) {
                batch.set(*slot, row, value);
            }
        }
        batch.truncate_active(rows.len());
        self.pending = Some(row_error);
        Ok(Some(batch))
    }
}
