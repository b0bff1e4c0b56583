//! The shared engine of operators that turn each input row into zero or
//! more output rows (scans, expand, unwind, procedure calls).
//!
//! The per-row outputs are an iterator, consumed only as far as the current
//! output batch needs: a row that expands to a million rows costs one batch
//! of work per `next` call, not a million.

use super::row_cursor::RowCursor;
use super::Operator;
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_planner::Slot;
use nereid_values::Value;
use std::sync::Arc;

/// The slot values that extend the input row in one output row: inline up
/// to three (a scan's node, an expand's relationship and node), so
/// producing a row allocates nothing.
pub(crate) type Extension = smallvec::SmallVec<[(Slot, Value); 3]>;

/// The output rows of one input row, produced lazily.
pub(crate) type Extensions = Box<dyn Iterator<Item = Extension> + Send>;

/// The list a scan reads once, on its first input row, and shares with
/// later rows (`NodeScan`, `RelationshipTypeScan`, `NodePropertyScan`):
/// updating operators are eager, so nothing upstream writes once a scan
/// has started.
pub(crate) fn read_once<T>(
    cached: &mut Option<Arc<Vec<T>>>,
    read: impl FnOnce() -> ExecResult<Vec<T>>,
) -> ExecResult<Arc<Vec<T>>> {
    if let Some(list) = cached {
        return Ok(Arc::clone(list));
    }
    let list = Arc::new(read()?);
    *cached = Some(Arc::clone(&list));
    Ok(list)
}

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
    rows: RowCursor,
    expander: E,
    current: Option<Extensions>,
    /// Heap bytes of a copy of the current input row: every output row
    /// copies it, so `UNWIND` of a string-heavy row copies its strings once
    /// per element, which the query's memory budget must see (a list in a
    /// slot costs nothing: the copies share it).
    row_heap: usize,
    /// Per slot, true when the output rows leave it null instead of
    /// copying it from the input row (no operator above reads it); empty
    /// when every slot is copied.
    dropped: Vec<bool>,
    /// The current input batch's slots each output row copies
    /// (`Batch::copied_slots`: its written columns less `dropped`), found
    /// once per input batch rather than by visiting every slot per row.
    copied: Vec<usize>,
}

impl<E: Expander> FlatMap<E> {
    pub(crate) fn new(input: Box<dyn Operator>, expander: E) -> FlatMap<E> {
        FlatMap {
            rows: RowCursor::new(input),
            expander,
            current: None,
            row_heap: 0,
            dropped: Vec::new(),
            copied: Vec::new(),
        }
    }

    /// Leaves `slots` null in the output rows instead of copying them from
    /// the input row: slots the planner found no operator above reads
    /// (`Op::Unwind`'s `dead`), so a list unwound from a slot is not
    /// copied into each of its elements' rows.
    pub(crate) fn without_slots(mut self, slots: &[Slot]) -> FlatMap<E> {
        if let Some(&last) = slots.iter().max() {
            self.dropped = vec![false; last + 1];
            for &slot in slots {
                self.dropped[slot] = true;
            }
        }
        self
    }

    /// Moves to the next input row and computes its outputs; false when the
    /// input is exhausted.
    fn advance(&mut self, ctx: &mut ExecContext) -> ExecResult<bool> {
        let (expander, dropped, copied) = (&mut self.expander, &self.dropped, &mut self.copied);
        if !self.rows.advance(ctx, |batch, ctx| {
            *copied = batch.copied_slots(dropped);
            expander.start_batch(batch, ctx)
        })? {
            return Ok(false);
        }
        let Some((batch, position, row)) = self.rows.current() else {
            return Ok(false);
        };
        self.row_heap = batch.row_heap_footprint_of(row, &self.copied);
        self.current = Some(self.expander.expand(batch, position, row, ctx)?);
        Ok(true)
    }
}

impl<E: Expander> Operator for FlatMap<E> {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        let mut out = Batch::with_capacity(ctx.slot_count, ctx.batch_size);
        let mut copied_bytes = 0usize;
        while out.active_len() < ctx.batch_size {
            if let (Some(outputs), Some((batch, _, row))) = (&mut self.current, self.rows.current())
            {
                if let Some(mut extension) = outputs.next() {
                    if self.row_heap > 0 {
                        copied_bytes = copied_bytes.saturating_add(self.row_heap);
                        ctx.memory.check(copied_bytes)?;
                    }
                    out.push_extended_slots(batch, row, &self.copied, &mut extension);
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
