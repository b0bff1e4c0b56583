//! `Union` (UNION ALL): every row of the input, then every row of the other
//! branch. Both branches write the same result slots; UNION's duplicate
//! removal is a `Distinct` above this operator.

use super::Operator;
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;

pub(crate) struct Union {
    input: Box<dyn Operator>,
    other: Box<dyn Operator>,
    input_done: bool,
}

impl Union {
    pub(crate) fn new(input: Box<dyn Operator>, other: Box<dyn Operator>) -> Union {
        Union {
            input,
            other,
            input_done: false,
        }
    }
}

impl Operator for Union {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        if !self.input_done {
            if let Some(batch) = self.input.next(ctx)? {
                return Ok(Some(batch));
            }
            self.input_done = true;
        }
        self.other.next(ctx)
    }
}
