//! The shared engine of operators that turn each input row into zero or
//! more output rows (scans, expand, unwind, procedure calls).
//!
//! The per-row outputs are an iterator, consumed only as far as the current
//! output batch needs: a row that expands to a million rows costs one batch
//! of work per `next` call, not a million.

use super::Operator;
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_planner::Slot;
use nereid_values::Value;

/// The slot values that extend the input row in one output row.
pub(crate) type Extension = Vec<(Slot, Value)>;

/// The output rows of one input row, produced lazily.
pub(crate) type Extensions = Box<dyn Iterator<Item = Extension> + Send>;

/// What a flat-map operator does with each input row.
pub(crate) trait Expander: Send {
    /// Called once per input batch before any of its rows, so expression
    /// arguments can be evaluated for the whole batch at once.
    fn start_batch(&mut self, _batch: &Batch, _ctx: &mut ExecContext) -> ExecResult<()> {
        Ok(())
    }

    /// The outputs of the `position`-th active row (physical index `row`).
    fn expand(
        &mut self,
        batch: &Batch,
        position: usize,
        row: usize,
        ctx: &mut ExecContext,
    ) -> ExecResult<Extensions>;
}

/// Runs an [`Expander`] over the rows of its input.
pub(crate) struct FlatMap<E: Expander> {
    input: Box<dyn Operator>,
    expander: E,
    batch: Option<Batch>,
    /// Index into the current batch's selection.
    position: usize,
    current: Option<Extensions>,
}

impl<E: Expander> FlatMap<E> {
    pub(crate) fn new(input: Box<dyn Operator>, expander: E) -> FlatMap<E> {
        FlatMap {
            input,
            expander,
            batch: None,
            position: 0,
            current: None,
        }
    }

    /// Moves to the next input row and computes its outputs; false when the
    /// input is exhausted.
    fn advance(&mut self, ctx: &mut ExecContext) -> ExecResult<bool> {
        let has_next_in_batch = self
            .batch
            .as_ref()
            .is_some_and(|b| self.position + 1 < b.active_len());
        if has_next_in_batch {
            self.position += 1;
        } else {
            loop {
                let Some(batch) = self.input.next(ctx)? else {
                    self.batch = None;
                    return Ok(false);
                };
                if batch.is_empty() {
                    continue;
                }
                self.expander.start_batch(&batch, ctx)?;
                self.batch = Some(batch);
                self.position = 0;
                break;
            }
        }
        let Some(batch) = &self.batch else {
            return Ok(false);
        };
        let Some(&row) = batch.selection().get(self.position) else {
            return Ok(false);
        };
        self.current = Some(self.expander.expand(batch, self.position, row, ctx)?);
        Ok(true)
    }
}

impl<E: Expander> Operator for FlatMap<E> {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        let mut out = Batch::new(ctx.slot_count);
        while out.active_len() < ctx.batch_size {
            if let (Some(outputs), Some(batch)) = (&mut self.current, &self.batch) {
                if let Some(extension) = outputs.next() {
                    let row = batch.selection().get(self.position).copied().unwrap_or(0);
                    out.push_extended(batch, row, &extension);
                    continue;
                }
                self.current = None;
            }
            if !self.advance(ctx)? {
                break;
            }
        }
        Ok((!out.is_empty()).then_some(out))
    }
}
