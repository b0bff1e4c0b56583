//! `Apply` (a `CALL { ... }` subquery): for each input row, the inner
//! pipeline runs with that row as its argument. A returning subquery emits
//! the input row extended with the `returned` slots of each inner row (none
//! when the inner plan has no row); a unit subquery (no RETURN) drains the
//! inner plan for its writes and emits the input row once.
//!
//! Only the `returned` slots are taken from the inner rows, so an
//! aggregation or DISTINCT inside the body (which builds rows of its own)
//! never loses the outer row's other variables. The inner pipeline is
//! instantiated afresh per outer row, so each row's body sees the writes of
//! the rows before it.

use super::row_cursor::RowCursor;
use super::Operator;
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_planner::{Op, OwnedPlan, Slot};
use nereid_values::Value;

pub(crate) struct Apply {
    rows: RowCursor,
    /// Owned, so dropped without recursion (`OwnedPlan`).
    inner: OwnedPlan,
    /// Statistics id of the inner plan's root (see `build`).
    inner_first_id: usize,
    returned: Vec<Slot>,
    unit: bool,
    /// The inner pipeline of the current outer row.
    current: Option<Box<dyn Operator>>,
}

impl Apply {
    pub(crate) fn new(
        input: Box<dyn Operator>,
        inner: Op,
        inner_first_id: usize,
        returned: Vec<Slot>,
        unit: bool,
    ) -> Apply {
        Apply {
            rows: RowCursor::new(input),
            inner: OwnedPlan::new(inner),
            inner_first_id,
            returned,
            unit,
            current: None,
        }
    }

    /// Moves to the next outer row and starts its inner pipeline; false when
    /// the input is exhausted.
    fn advance(&mut self, ctx: &mut ExecContext) -> ExecResult<bool> {
        self.current = self
            .rows
            .advance_into(ctx, &self.inner, self.inner_first_id)?;
        Ok(self.current.is_some())
    }
}

impl Operator for Apply {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        let mut out = Batch::new(ctx.slot_count);
        while out.active_len() < ctx.batch_size {
            if let (Some(inner), Some((outer, _, outer_row))) =
                (&mut self.current, self.rows.current())
            {
                if self.unit {
                    while inner.next(ctx)?.is_some() {}
                    out.push_extended(outer, outer_row, &[]);
                    self.current = None;
                } else if let Some(inner_batch) = inner.next(ctx)? {
                    for &row in inner_batch.selection() {
                        let values = returned_values(&inner_batch, row, &self.returned);
                        out.push_extended(outer, outer_row, &values);
                    }
                    continue;
                } else {
                    self.current = None;
                }
            }
            if !self.advance(ctx)? {
                break;
            }
        }
        Ok((!out.is_empty()).then_some(out))
    }
}

/// What one inner row gives its outer row: the values of the `returned`
/// slots, nothing else (shared by `Apply` and `ApplyInTransactions`, so both
/// extend outer rows the same way).
pub(super) fn returned_values(inner: &Batch, row: usize, returned: &[Slot]) -> Vec<(Slot, Value)> {
    returned
        .iter()
        .map(|&slot| (slot, inner.value(slot, row).clone()))
        .collect()
}
