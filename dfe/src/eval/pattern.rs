//! Pattern expressions and pattern comprehensions: a nested plan run once
//! per row.
//!
//! The nested pipeline is instantiated afresh for every row with that row as
//! its `Argument` (as `Optional` does), under an execution context of its
//! own over the same transaction snapshot. Its operator statistics are not
//! reported: the nested plan is part of an expression, not of the operator
//! tree.

use super::{Evaluator, StatementTime};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::{ExecError, ExecResult};
use crate::operators::{build, plan_stats};
use crate::procedures::ProcedureRegistry;
use nereid_planner::{Expr, Op};
use nereid_storage::Txn;
use nereid_values::Value;
use std::sync::Arc;

/// What an evaluator needs to run a nested plan.
#[derive(Clone)]
pub struct SubplanEnv {
    pub(crate) txn: Arc<Txn>,
    pub(crate) batch_size: usize,
    pub(crate) statement_time: StatementTime,
    /// The statement's procedures: a `CALL` inside `EXISTS { }` or
    /// `COUNT { }` resolves against the same database as one outside.
    pub(crate) procedures: Arc<ProcedureRegistry>,
    /// The statement's cancel flag and deadline: nested plans stop with it.
    pub(crate) stop: crate::stop::StopSignals,
    /// The statement's parameters, shared rather than copied per row.
    pub(crate) params: Arc<crate::Params>,
    /// The statement's memory budget: a nested plan's buffers count too.
    pub(crate) memory: Arc<crate::MemoryBudget>,
}

impl Evaluator<'_> {
    /// Per row: the projections of the nested plan's rows, or with `exists`
    /// whether it has any row (it stops at the first).
    pub(super) fn eval_pattern_list(
        &mut self,
        plan: &Op,
        projection: &Expr,
        exists: bool,
        batch: &Batch,
        rows: &[usize],
    ) -> ExecResult<Vec<Value>> {
        let Some(env) = self.subplans.clone() else {
            return Err(ExecError::Semantic(
                "A pattern expression cannot be evaluated outside a query".into(),
            ));
        };
        let mut ctx = ExecContext::new(
            env.txn,
            env.params,
            batch.slot_count(),
            env.batch_size,
            plan_stats(plan),
        );
        ctx.statement_time = env.statement_time;
        ctx.procedures = env.procedures;
        ctx.stop = env.stop;
        ctx.memory = env.memory;
        let mut out = Vec::with_capacity(rows.len());
        for &row in rows {
            let mut pipeline = build(plan, 0, Some(batch.row(row)));
            let mut values = Vec::new();
            let mut matched = false;
            while let Some(inner) = pipeline.next(&mut ctx)? {
                matched = true;
                if exists {
                    break;
                }
                let selection = inner.selection().to_vec();
                values.extend(ctx.evaluator().eval(projection, &inner, &selection)?);
            }
            out.push(if exists {
                Value::Bool(matched)
            } else {
                Value::List(values)
            });
        }
        Ok(out)
    }
}
