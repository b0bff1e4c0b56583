//! The evaluator's side of the query's memory budget (see `memory.rs`):
//! values that can be large are checked against what the budget has left
//! before they are built, where their size is known in advance (a range, the
//! copies of a literal or parameter for every row, a concatenation), and
//! columns of built values (lists, maps, comprehensions, `reduce`) after,
//! so that growth step by step is stopped at the step that crosses it.

use super::range::IntRange;
use super::Evaluator;
use crate::error::ExecResult;
use crate::memory;
use nereid_planner::{BinaryOp, Expr};
use nereid_values::Value;
use std::mem::size_of;

impl Evaluator<'_> {
    /// Fails unless `bytes` more fit beside what the query holds.
    pub(super) fn check_memory(&self, bytes: usize) -> ExecResult<()> {
        match self.budget {
            Some(budget) => budget.check(bytes),
            None => Ok(()),
        }
    }

    /// `count` copies of `value` (a literal's or a parameter's column),
    /// checked before they are made: a large list times a batch of rows is
    /// a multiple of it.
    pub(super) fn copies(&self, value: &Value, count: usize) -> ExecResult<Vec<Value>> {
        self.check_memory(memory::copies(value, count))?;
        Ok(vec![value.clone(); count])
    }

    /// `range()` as a list per row, each checked before it is built.
    pub(super) fn range_lists(&self, rows_args: Vec<Vec<Value>>) -> ExecResult<Vec<Value>> {
        let mut planned = 0usize;
        let mut out = Vec::with_capacity(rows_args.len());
        for args in rows_args {
            let range = IntRange::from_args(&args)?;
            let length = usize::try_from(range.remaining()).unwrap_or(usize::MAX);
            planned = planned.saturating_add(length.saturating_mul(size_of::<Value>()));
            self.check_memory(planned)?;
            out.push(range.into_list()?);
        }
        Ok(out)
    }

    /// Before `a + b`: a concatenation of strings or lists allocates the
    /// size of both.
    pub(super) fn check_concatenation(&self, a: &Value, b: &Value) -> ExecResult<()> {
        let grows = |v: &Value| matches!(v, Value::String(_) | Value::List(_));
        if grows(a) || grows(b) {
            self.check_memory(a.footprint().saturating_add(b.footprint()))?;
        }
        Ok(())
    }

    /// After evaluating `expr`: the column it built, when it can build
    /// large values.
    pub(super) fn check_built(&self, expr: &Expr, column: &[Value]) -> ExecResult<()> {
        let builds = matches!(
            expr,
            Expr::List(_)
                | Expr::Map(_)
                | Expr::ListComprehension { .. }
                | Expr::Reduce { .. }
                | Expr::PatternList { .. }
                | Expr::MapProjection { .. }
                | Expr::Function { .. }
                | Expr::Binary {
                    op: BinaryOp::Add,
                    ..
                }
        );
        if builds && self.budget.is_some() {
            self.check_memory(memory::column(column))?;
        }
        Ok(())
    }
}
