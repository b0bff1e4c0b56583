//! `Project`: evaluates expressions into slots. All items are evaluated
//! against the input row before any slot is written, so `WITH a AS b, b AS a`
//! swaps.

use super::Operator;
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_planner::{Expr, Slot};

pub(crate) struct Project {
    pub(crate) input: Box<dyn Operator>,
    pub(crate) items: Vec<(Slot, Expr)>,
}

impl Operator for Project {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        let Some(mut batch) = self.input.next(ctx)? else {
            return Ok(None);
        };
        let mut columns = Vec::with_capacity(self.items.len());
        for (slot, expr) in &self.items {
            columns.push((
                *slot,
                ctx.evaluator().eval(expr, &batch, batch.selection())?,
            ));
        }
        let rows = batch.selection().to_vec();
        for (slot, column) in columns {
            for (&row, value) in rows.iter().zip(column) {
                batch.set(slot, row, value);
            }
        }
        Ok(Some(batch))
    }
}
