//! `Optional` run once per input batch (the planner set its `origin`, see
//! `nereid_planner`'s `batch_optional`): the inner plan gets the whole
//! batch as its argument, so its operators see many rows at once (an
//! `Expand` reads the store set-at-a-time) and it is built once per batch
//! instead of once per row.
//!
//! Each argument row carries its position in the batch in the `origin`
//! slot. The inner plan is a chain that emits each argument row's outputs
//! together and in argument order (the planner checked it), so the output
//! is the row-by-row `Optional`'s: for each outer row in order, its inner
//! rows, or the outer row with the `nullable` slots null when it had none.

use super::argument::Leaf;
use super::build::build_on;
use super::Operator;
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::{ExecError, ExecResult};
use nereid_planner::{Op, OwnedPlan, Slot};
use nereid_values::Value;

pub(crate) struct BatchedOptional {
    input: Box<dyn Operator>,
    /// Owned, so dropped without recursion (`OwnedPlan`).
    inner: OwnedPlan,
    /// Statistics id of the inner plan's root (see `build`).
    inner_first_id: usize,
    nullable: Vec<Slot>,
    origin: Slot,
    current: Option<Run>,
}

/// One input batch being answered.
struct Run {
    outer: Batch,
    inner: Box<dyn Operator>,
    /// The first position of `outer`'s selection whose fate is not yet
    /// known (every earlier one has had its rows or its null row emitted).
    next: usize,
}

impl BatchedOptional {
    pub(crate) fn new(
        input: Box<dyn Operator>,
        inner: Op,
        inner_first_id: usize,
        nullable: Vec<Slot>,
        origin: Slot,
    ) -> BatchedOptional {
        BatchedOptional {
            input,
            inner: OwnedPlan::new(inner),
            inner_first_id,
            nullable,
            origin,
            current: None,
        }
    }

    /// Starts the inner plan over the next non-empty input batch; false
    /// when the input is exhausted.
    fn advance(&mut self, ctx: &mut ExecContext) -> ExecResult<bool> {
        loop {
            let Some(outer) = self.input.next(ctx)? else {
                return Ok(false);
            };
            if outer.is_empty() {
                continue;
            }
            let mut argument = outer.clone();
            for (position, &row) in outer.selection().iter().enumerate() {
                let position = i64::try_from(position).unwrap_or(i64::MAX);
                argument.set(self.origin, row, Value::Int(position));
            }
            let inner = build_on(&self.inner, self.inner_first_id, &Leaf::Batch(argument));
            self.current = Some(Run {
                outer,
                inner,
                next: 0,
            });
            return Ok(true);
        }
    }

    /// Emits the null-extended rows of the outer positions `run.next..to`
    /// (which had no inner rows) and moves `run.next` to `to`.
    fn nulls_until(&self, run: &mut Run, to: usize, out: &mut Batch) {
        let nulls: Vec<(Slot, Value)> = self.nullable.iter().map(|&s| (s, Value::Null)).collect();
        for position in run.next..to {
            let row = run.outer.selection()[position];
            out.push_extended(&run.outer, row, &nulls);
        }
        run.next = run.next.max(to);
    }
}

impl Operator for BatchedOptional {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        let mut out = Batch::new(ctx.slot_count);
        while out.active_len() < ctx.batch_size {
            let Some(mut run) = self.current.take() else {
                if !self.advance(ctx)? {
                    break;
                }
                continue;
            };
            let Some(inner_batch) = run.inner.next(ctx)? else {
                let end = run.outer.active_len();
                self.nulls_until(&mut run, end, &mut out);
                continue;
            };
            for &row in inner_batch.selection() {
                let position = match inner_batch.value(self.origin, row) {
                    Value::Int(p) => usize::try_from(*p).ok(),
                    _ => None,
                };
                // The planner let only chains that keep the slot and the
                // order through; anything else is a planner bug.
                let Some(position) = position.filter(|&p| p + 1 >= run.next) else {
                    return Err(ExecError::ExecutionFailed(
                        "batched OPTIONAL MATCH: inner rows out of argument order".into(),
                    ));
                };
                self.nulls_until(&mut run, position, &mut out);
                run.next = position + 1;
                out.push_extended(&inner_batch, row, &[(self.origin, Value::Null)]);
            }
            self.current = Some(run);
        }
        Ok((!out.is_empty()).then_some(out))
    }
}
