//! The outer-row cursor shared by operators that do per-row work on their
//! input (flat maps, OPTIONAL MATCH, CALL subqueries): it walks the active
//! rows of the input batch by batch, skipping empty batches.
//!
//! Invariant: when `current` answers `Some`, `position` indexes the current
//! batch's selection and the row it names is active.

use super::{build, Operator};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_planner::Op;

pub(crate) struct RowCursor {
    input: Box<dyn Operator>,
    batch: Option<Batch>,
    /// Index into the current batch's selection.
    position: usize,
}

impl RowCursor {
    pub(crate) fn new(input: Box<dyn Operator>) -> RowCursor {
        RowCursor {
            input,
            batch: None,
            position: 0,
        }
    }

    /// The current batch, the row's index into its selection and the row's
    /// physical index; `None` before the first `advance` and after the end.
    pub(crate) fn current(&self) -> Option<(&Batch, usize, usize)> {
        let batch = self.batch.as_ref()?;
        let row = *batch.selection().get(self.position)?;
        Some((batch, self.position, row))
    }

    /// Moves to the next input row and instantiates `inner` (numbered from
    /// `first_id`) with that row as its argument: the per-row pipeline of
    /// OPTIONAL MATCH and CALL subqueries. `None` when the input is
    /// exhausted.
    pub(crate) fn advance_into(
        &mut self,
        ctx: &mut ExecContext,
        inner: &Op,
        first_id: usize,
    ) -> ExecResult<Option<Box<dyn Operator>>> {
        if !self.advance(ctx, |_, _| Ok(()))? {
            return Ok(None);
        }
        Ok(self
            .current()
            .map(|(batch, _, row)| build(inner, first_id, Some(batch.row(row)))))
    }

    /// Moves to the next active input row; `on_batch` sees every new
    /// non-empty batch before its first row. False when the input is
    /// exhausted.
    pub(crate) fn advance(
        &mut self,
        ctx: &mut ExecContext,
        mut on_batch: impl FnMut(&Batch, &mut ExecContext) -> ExecResult<()>,
    ) -> ExecResult<bool> {
        let has_next_in_batch = self
            .batch
            .as_ref()
            .is_some_and(|b| self.position + 1 < b.active_len());
        if has_next_in_batch {
            self.position += 1;
            return Ok(true);
        }
        loop {
            let Some(batch) = self.input.next(ctx)? else {
                self.batch = None;
                return Ok(false);
            };
            if batch.is_empty() {
                continue;
            }
            on_batch(&batch, ctx)?;
            self.batch = Some(batch);
            self.position = 0;
            return Ok(true);
        }
    }
}
