//! Pattern expressions and pattern comprehensions: a nested plan run once
//! per row.
//!
//! The nested pipeline is instantiated afresh for every row with that row as
//! its `Argument` (as `Optional` does), under an execution context of its
//! own over the same transaction snapshot. Its operator statistics are not
//! reported: the nested plan is part of an expression, not of the operator
//! tree.

use super::pattern_memo::{key_of, PatternMemo};
use super::{Evaluator, StatementTime};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::{ExecError, ExecResult};
use crate::operators::{build, plan_stats};
use crate::procedures::ProcedureRegistry;
use nereid_planner::{Expr, Op, Slot};
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
    /// The statement's remembered answers; `None` when it may not have
    /// one (see `pattern_memo.rs`).
    pub(crate) memo: Option<Arc<PatternMemo>>,
}

impl Evaluator<'_> {
    /// Per row: the projections of the nested plan's rows, or with `exists`
    /// whether it has any row (it stops at the first).
    pub(super) fn eval_pattern_list(
        &mut self,
        plan: &Op,
        projection: &Expr,
        exists: bool,
        reads: &[Slot],
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
        ctx.memo = env.memo.clone();
        let plan_id = plan as *const Op as usize;
        let mut out = Vec::with_capacity(rows.len());
        for &row in rows {
            let key = env
                .memo
                .as_ref()
                .and_then(|_| key_of(reads.iter().map(|&s| batch.value(s, row).clone()).collect()));
            if let (Some(memo), Some(key)) = (&env.memo, &key) {
                if let Some(answer) = memo.get(plan_id, exists, key) {
                    out.push(answer);
                    continue;
                }
            }
            let started = env.memo.as_ref().map_or(0, |memo| memo.start());
            let argument = batch.row_of(row, reads);
            let answer = run_once(plan, projection, exists, argument, &mut ctx)?;
            if let (Some(memo), Some(key)) = (&env.memo, key) {
                memo.put(plan_id, exists, key, &answer, started);
            }
            out.push(answer);
        }
        Ok(out)
    }
}

/// The answer of the nested plan for one argument row: the list of its
/// rows' projections, or with `exists` whether it has a row.
fn run_once(
    plan: &Op,
    projection: &Expr,
    exists: bool,
    argument: Vec<Value>,
    ctx: &mut ExecContext,
) -> ExecResult<Value> {
    let mut pipeline = build(plan, 0, Some(argument));
    let mut values = Vec::new();
    let mut matched = false;
    while let Some(inner) = pipeline.next(ctx)? {
        matched = true;
        if exists {
            break;
        }
        let selection = inner.selection().to_vec();
        values.extend(ctx.evaluator().eval(projection, &inner, &selection)?);
    }
    Ok(if exists {
        Value::Bool(matched)
    } else {
        Value::List(values.into())
    })
}
