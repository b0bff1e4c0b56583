//! `Limit`: passes at most `count` rows, and stops pulling its input as
//! soon as it has them (so upstream work stops too) — unless the input
//! writes: then it is drained all the same, because the writes of a
//! statement happen whether or not their rows are returned (`CREATE ...
//! WITH * LIMIT 0` still creates).

use super::{drain, evaluate_count, Operator};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_planner::Expr;

pub(crate) struct Limit {
    input: Box<dyn Operator>,
    count: Expr,
    /// Rows still allowed through; `None` until the count is evaluated.
    remaining: Option<usize>,
    /// The input holds an updating operator and must run to its end.
    drain_input: bool,
}

impl Limit {
    pub(crate) fn new(input: Box<dyn Operator>, count: Expr, drain_input: bool) -> Limit {
        Limit {
            input,
            count,
            remaining: None,
            drain_input,
        }
    }
}

impl Operator for Limit {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        let remaining = match self.remaining {
            Some(n) => n,
            None => evaluate_count(&self.count, "LIMIT", ctx)?,
        };
        self.remaining = Some(remaining);
        if remaining == 0 {
            if self.drain_input {
                drain(self.input.as_mut(), ctx)?;
                self.drain_input = false;
            }
            return Ok(None);
        }
        let Some(mut batch) = self.input.next(ctx)? else {
            self.remaining = Some(0);
            return Ok(None);
        };
        batch.truncate_active(remaining);
        self.remaining = Some(remaining - batch.active_len());
        Ok(Some(batch))
    }
}
