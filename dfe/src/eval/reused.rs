//! `Expr::Reused`: an expression evaluated once per run of consecutive
//! rows whose inputs hold the same values (rule `reuse_invariant`), e.g.
//! `startNode(r).id` in a filter over the rows an expand made from one
//! argument row, or `friend.id` above the expand from `friend`.
//!
//! Exact: the expression is repeatable (same inputs, same value, no side
//! effects), and inputs count as the same only when their equality is
//! identity (`1` and `1.0` are equal in Cypher but print differently).
//! The first row of each run is evaluated, all of them in one vectorised
//! call, so a batch without runs costs one comparison per row more than
//! the bare expression, and an error is the one the first failing row
//! would have raised.

use super::Evaluator;
use crate::batch::Batch;
use crate::error::ExecResult;
use nereid_planner::{Expr, Slot};
use nereid_values::Value;

impl Evaluator<'_> {
    pub(super) fn eval_reused(
        &mut self,
        expr: &Expr,
        reads: &[Slot],
        batch: &Batch,
        rows: &[usize],
    ) -> ExecResult<Vec<Value>> {
        // The first row of each run, and for each row its run's number.
        let mut firsts: Vec<usize> = Vec::new();
        let mut run_of = Vec::with_capacity(rows.len());
        for (i, &row) in rows.iter().enumerate() {
            let continues = i > 0 && {
                let previous = rows[i - 1];
                reads
                    .iter()
                    .all(|&s| same_input(batch.value(s, previous), batch.value(s, row)))
            };
            if !continues {
                firsts.push(row);
            }
            run_of.push(firsts.len() - 1);
        }
        if firsts.len() == rows.len() {
            return self.eval(expr, batch, rows);
        }
        let values = self.eval(expr, batch, &firsts)?;
        Ok(run_of.into_iter().map(|run| values[run].clone()).collect())
    }
}

/// Whether `a` and `b` are the same value, not merely equal: entity ids,
/// integers, strings, booleans and nulls (other kinds are never taken as
/// the same, and the expression is evaluated again).
fn same_input(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Node(x), Value::Node(y)) => x == y,
        (Value::Relationship(x), Value::Relationship(y)) => x == y,
        (Value::Int(x), Value::Int(y)) => x == y,
        (Value::String(x), Value::String(y)) => x == y,
        (Value::Bool(x), Value::Bool(y)) => x == y,
        (Value::Null, Value::Null) => true,
        _ => false,
    }
}
