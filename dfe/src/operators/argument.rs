//! `Argument`: the leaf that emits one row, the enclosing `Optional`'s
//! current outer row or, at the top of a plan, a row of nulls.

use super::Operator;
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_values::Value;

pub(crate) struct Argument {
    /// The outer row; `None` means a row of nulls.
    row: Option<Vec<Value>>,
    done: bool,
}

impl Argument {
    pub(crate) fn new(row: Option<Vec<Value>>) -> Argument {
        Argument { row, done: false }
    }
}

impl Operator for Argument {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        if self.done {
            return Ok(None);
        }
        self.done = true;
        let row = self.row.take().unwrap_or_else(|| ctx.null_row());
        Ok(Some(Batch::from_rows(ctx.slot_count, [row])))
    }
}
