//! `Filter`: keeps rows whose predicate is `true` by narrowing the batch's
//! selection vector (no values are copied).

use super::Operator;
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_planner::Expr;
use nereid_values::Value;

pub(crate) struct Filter {
    pub(crate) input: Box<dyn Operator>,
    pub(crate) predicate: Expr,
}

impl Operator for Filter {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        while let Some(mut batch) = self.input.next(ctx)? {
            let tests = ctx
                .evaluator()
                .eval(&self.predicate, &batch, batch.selection())?;
            let kept: Vec<usize> = batch
                .selection()
                .iter()
                .zip(&tests)
                .filter(|(_, test)| matches!(test, Value::Bool(true)))
                .map(|(&row, _)| row)
                .collect();
            if !kept.is_empty() {
                batch.set_selection(kept);
                return Ok(Some(batch));
            }
        }
        Ok(None)
    }
}
