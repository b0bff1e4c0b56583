//! What the executor builds for an operator that leaves a choice open
//! (`Op::unresolved`): a plan that skipped the planner's last rule,
//! `choose_operators`. It fails the query rather than guess the choice.

use super::Operator;
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::{ExecError, ExecResult};

pub(crate) struct Unresolved(pub(crate) &'static str);

impl Operator for Unresolved {
    fn next(&mut self, _: &mut ExecContext) -> ExecResult<Option<Batch>> {
        Err(ExecError::ExecutionFailed(format!(
            "the plan holds {}: plans are run after the planner's rule choose_operators",
            self.0
        )))
    }
}
