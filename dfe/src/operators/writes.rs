//! Shared machinery of the updating operators (Create, SetProperties,
//! Delete): they drain their whole input first (so the reads of this
//! statement never see its own writes half-way), apply the writes row by
//! row, then emit the rows.

use super::{drain, Operator};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::{ExecError, ExecResult};
use crate::memory::Reservation;
use std::collections::VecDeque;

/// The writes of one updating operator.
pub(crate) trait RowWriter: Send {
    /// Applies the writes for physical row `row`; may fill slots of the row.
    fn write_row(&mut self, batch: &mut Batch, row: usize, ctx: &mut ExecContext)
        -> ExecResult<()>;

    /// Called once after every row was written (e.g. for deferred deletes).
    fn finish(&mut self, _ctx: &mut ExecContext) -> ExecResult<()> {
        Ok(())
    }
}

/// An eager updating operator around a [`RowWriter`].
pub(crate) struct Updating<W: RowWriter> {
    input: Box<dyn Operator>,
    writer: W,
    /// `None` until the input is drained and written.
    output: Option<VecDeque<Batch>>,
    /// The drained batches' charge against the query's memory budget.
    held: Option<Reservation>,
}

impl<W: RowWriter> Updating<W> {
    pub(crate) fn new(input: Box<dyn Operator>, writer: W) -> Updating<W> {
        Updating {
            input,
            writer,
            output: None,
            held: None,
        }
    }
}

impl<W: RowWriter> Operator for Updating<W> {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        if self.output.is_none() {
            let (mut batches, held) = drain(self.input.as_mut(), ctx)?;
            for batch in &mut batches {
                let rows = batch.selection().to_vec();
                for row in rows {
                    self.writer.write_row(batch, row, ctx)?;
                }
            }
            self.writer.finish(ctx)?;
            self.output = Some(batches.into());
            self.held = Some(held);
        }
        Ok(self.output.as_mut().and_then(VecDeque::pop_front))
    }
}

/// Checks that a property value can be stored (null passes: it means "no
/// property" / "remove").
pub(crate) fn check_storable(key: &str, value: &nereid_values::Value) -> ExecResult<()> {
    if value.is_null() || value.is_storable() {
        Ok(())
    } else {
        Err(ExecError::Type(format!(
            "InvalidPropertyType: Property values can only be of primitive types or arrays thereof; cannot store a {} in property `{key}`",
            value.type_name()
        )))
    }
}
