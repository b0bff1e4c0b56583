//! `Argument`: the leaf that emits the rows a nested plan runs with: the
//! enclosing operator's current outer row, a whole batch of them (a batched
//! `Optional`), or, at the top of a plan, a row of nulls.

use super::Operator;
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_values::Value;

/// What an `Argument` leaf emits.
#[derive(Clone)]
pub(crate) enum Leaf {
    /// One row of nulls (the top of a plan).
    Nulls,
    /// One outer row.
    Row(Vec<Value>),
    /// A batch of outer rows (its active rows).
    Batch(Batch),
}

pub(crate) struct Argument {
    /// Taken by the first `next`.
    leaf: Option<Leaf>,
}

impl Argument {
    pub(crate) fn new(leaf: Leaf) -> Argument {
        Argument { leaf: Some(leaf) }
    }
}

impl Operator for Argument {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        Ok(match self.leaf.take() {
            None => None,
            Some(Leaf::Nulls) => Some(Batch::from_rows(ctx.slot_count, [ctx.null_row()])),
            Some(Leaf::Row(row)) => Some(Batch::from_rows(ctx.slot_count, [row])),
            Some(Leaf::Batch(batch)) => Some(batch),
        })
    }
}
