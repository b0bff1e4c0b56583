//! `Optional` (OPTIONAL MATCH): for each input row, the rows of the inner
//! pipeline run with that row as its argument, or, when it produces none,
//! the input row with the `nullable` slots set to null.
//!
//! The inner pipeline is instantiated afresh for every outer row (its
//! `Argument` leaf holds the row), so no operator needs a reset protocol.
//! Rows of consecutive outer rows are packed into shared output batches.

use super::row_cursor::RowCursor;
use super::Operator;
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_planner::{Op, OwnedPlan, Slot};
use nereid_values::Value;

pub(crate) struct Optional {
    rows: RowCursor,
    /// Owned, so dropped without recursion (`OwnedPlan`).
    inner: OwnedPlan,
    /// Statistics id of the inner plan's root (see `build`).
    inner_first_id: usize,
    nullable: Vec<Slot>,
    /// The inner pipeline for the current outer row and whether it has
    /// produced a row yet.
    current: Option<(Box<dyn Operator>, bool)>,
}

impl Optional {
    pub(crate) fn new(
        input: Box<dyn Operator>,
        inner: Op,
        inner_first_id: usize,
        nullable: Vec<Slot>,
    ) -> Optional {
        Optional {
            rows: RowCursor::new(input),
            inner: OwnedPlan::new(inner),
            inner_first_id,
            nullable,
            current: None,
        }
    }

    /// Moves to the next outer row and starts its inner pipeline; false when
    /// the input is exhausted.
    fn advance(&mut self, ctx: &mut ExecContext) -> ExecResult<bool> {
        self.current = self
            .rows
            .advance_into(ctx, &self.inner, self.inner_first_id)?
            .map(|inner| (inner, false));
        Ok(self.current.is_some())
    }
}

impl Operator for Optional {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        let mut out = Batch::new(ctx.slot_count);
        while out.active_len() < ctx.batch_size {
            if let Some((inner, produced)) = &mut self.current {
                if let Some(inner_batch) = inner.next(ctx)? {
                    *produced = true;
                    for &row in inner_batch.selection() {
                        out.push_extended(&inner_batch, row, &[]);
                    }
                    continue;
                }
                let produced = *produced;
                self.current = None;
                if !produced {
                    if let Some((batch, _, row)) = self.rows.current() {
                        let nulls: Vec<(Slot, Value)> =
                            self.nullable.iter().map(|&s| (s, Value::Null)).collect();
                        out.push_extended(batch, row, &nulls);
                    }
                }
            }
            if !self.advance(ctx)? {
                break;
            }
        }
        Ok((!out.is_empty()).then_some(out))
    }
}
