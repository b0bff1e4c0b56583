//! `Eager`: materialises all input before emitting anything, so reads that
//! precede a write in the plan never observe that write.

use super::{drain, Operator};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use crate::memory::Reservation;
use std::collections::VecDeque;

pub(crate) struct Eager {
    input: Box<dyn Operator>,
    /// `None` until the input has been drained.
    buffered: Option<VecDeque<Batch>>,
    /// The buffered batches' charge against the query's memory budget.
    held: Option<Reservation>,
}

impl Eager {
    pub(crate) fn new(input: Box<dyn Operator>) -> Eager {
        Eager {
            input,
            buffered: None,
            held: None,
        }
    }
}

impl Operator for Eager {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        if self.buffered.is_none() {
            let (batches, held) = drain(self.input.as_mut(), ctx)?;
            self.buffered = Some(batches.into());
            self.held = Some(held);
        }
        Ok(self.buffered.as_mut().and_then(VecDeque::pop_front))
    }
}
