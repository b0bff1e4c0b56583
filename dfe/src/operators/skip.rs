//! `Skip`: drops the first `count` rows.

use super::{evaluate_count, Operator};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_planner::Expr;

pub(crate) struct Skip {
    input: Box<dyn Operator>,
    count: Expr,
    /// Rows still to drop; `None` until the count is evaluated.
    remaining: Option<usize>,
}

impl Skip {
    pub(crate) fn new(input: Box<dyn Operator>, count: Expr) -> Skip {
        Skip {
            input,
            count,
            remaining: None,
        }
    }
}

impl Operator for Skip {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        let mut remaining = match self.remaining {
            Some(n) => n,
            None => evaluate_count(&self.count, "SKIP", ctx)?,
        };
        let result = loop {
            let Some(mut batch) = self.input.next(ctx)? else {
                break None;
            };
            let dropped = remaining.min(batch.active_len());
            batch.skip_active(dropped);
            remaining -= dropped;
            if !batch.is_empty() {
                break Some(batch);
            }
        };
        self.remaining = Some(remaining);
        Ok(result)
    }
}
