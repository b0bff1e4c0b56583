//! `Unwind`: each input row once per element of a list.
//!
//! `UNWIND range(a, b[, s])` is streamed from a lazy integer sequence
//! instead of materialising the list, so its first rows cost one batch.

use super::flat_map::{Expander, Extensions};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use crate::eval::IntRange;
use nereid_planner::{Expr, ScalarFunction, Slot};
use nereid_values::Value;
use std::iter;

pub(crate) struct Unwind {
    expr: Expr,
    out: Slot,
    /// The expression (or the `range()` arguments) evaluated for the
    /// current batch's active rows: one entry per row.
    values: Vec<Vec<Value>>,
}

impl Unwind {
    pub(crate) fn new(expr: Expr, out: Slot) -> Unwind {
        Unwind {
            expr,
            out,
            values: Vec::new(),
        }
    }

    fn range_args(&self) -> Option<&[Expr]> {
        match &self.expr {
            Expr::Function {
                func: ScalarFunction::Range,
                args,
            } => Some(args),
            _ => None,
        }
    }
}

impl Expander for Unwind {
    fn start_batch(&mut self, batch: &Batch, ctx: &mut ExecContext) -> ExecResult<()> {
        let rows = batch.selection();
        let mut evaluator = ctx.evaluator();
        self.values = match self.range_args() {
            Some(args) => {
                let mut per_row = vec![Vec::with_capacity(args.len()); rows.len()];
                for arg in args {
                    let column = evaluator.eval(arg, batch, rows)?;
                    for (row_args, value) in per_row.iter_mut().zip(column) {
                        row_args.push(value);
                    }
                }
                per_row
            }
            None => evaluator
                .eval(&self.expr, batch, rows)?
                .into_iter()
                .map(|v| vec![v])
                .collect(),
        };
        Ok(())
    }

    fn expand(
        &mut self,
        _batch: &Batch,
        position: usize,
        _row: usize,
        _ctx: &mut ExecContext,
    ) -> ExecResult<Extensions> {
        let out = self.out;
        let values = self
            .values
            .get_mut(position)
            .map(std::mem::take)
            .unwrap_or_default();
        if self.range_args().is_some() {
            let range = IntRange::from_args(&values)?;
            return Ok(Box::new(
                range.map(move |i| smallvec::smallvec![(out, Value::Int(i))]),
            ));
        }
        Ok(
            match values.into_iter().next().unwrap_or_default().into_list() {
                Err(Value::Null) => Box::new(iter::empty()),
                Ok(items) => Box::new(
                    items
                        .into_iter()
                        .map(move |v| smallvec::smallvec![(out, v)]),
                ),
                Err(single) => Box::new(iter::once(smallvec::smallvec![(out, single)])),
            },
        )
    }
}
