//! Pattern expressions and pattern comprehensions: a nested plan run once
//! per row.
//!
//! The nested pipeline is instantiated afresh for every row with that row as
//! its `Argument` (as `Optional` does), under an execution context of its
//! own over the same transaction snapshot. Its operator statistics are not
//! reported: the nested plan is part of an expression, not of the operator
//! tree.

use super::pattern_batch::{batchable, run_batched, BATCHED_MIN_ROWS};
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
use std::collections::HashMap;
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
    /// Whether the evaluator runs inside a nested plan, whose label tests
    /// use `memo` (see `label_memo.rs`).
    pub(crate) nested: bool,
}

impl Evaluator<'_> {
    /// Per row: the projections of the nested plan's rows, or with `exists`
    /// whether it has any row. Rows whose answer is remembered take it;
    /// the others run the nested plan over all of them at once when it is
    /// a row-by-row chain (`pattern_batch.rs`), else once per row (with
    /// `exists`, stopping at the first row).
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
        let plan_id = plan as *const Op as usize;
        // The memo, unless this plan's arguments rarely come back; the
        // keys are still made, for the rows that ask what another asks.
        let memo = env
            .memo
            .as_ref()
            .filter(|memo| memo.worthwhile(plan_id, exists));
        let mut out: Vec<Option<Value>> = Vec::with_capacity(rows.len());
        let mut keys = Vec::with_capacity(rows.len());
        for &row in rows {
            let key = env
                .memo
                .as_ref()
                .and_then(|_| key_of(reads.iter().map(|&s| batch.value(s, row).clone()).collect()));
            let known = match (memo, &key) {
                (Some(memo), Some(key)) => memo.get(plan_id, exists, key),
                _ => None,
            };
            out.push(known);
            keys.push(key);
        }
        // Rows asking what an earlier row asks are answered with its answer
        // (hashed with foldhash, sized up front: thousands of keys per call
        // in IC10, where SipHash and rehashing showed in profiles).
        let mut first_asker: HashMap<&[Value], usize, foldhash::fast::RandomState> =
            HashMap::with_capacity_and_hasher(rows.len(), Default::default());
        let mut twin_of = vec![None; rows.len()];
        let mut missing = Vec::new();
        for (i, key) in keys.iter().enumerate() {
            if out[i].is_some() {
                continue;
            }
            match key.as_deref().map(|k| (k, first_asker.get(k))) {
                Some((_, Some(&j))) => twin_of[i] = Some(j),
                Some((k, None)) => {
                    first_asker.insert(k, i);
                    missing.push(i);
                }
                None => missing.push(i),
            }
        }
        drop(first_asker);
        if missing.len() >= BATCHED_MIN_ROWS && batchable(plan, exists) {
            let started = env.memo.as_ref().map_or(0, |memo| memo.start());
            let arguments: Vec<usize> = missing.iter().map(|&i| rows[i]).collect();
            let mut ctx = nested_context(&env, plan, batch.slot_count() + 1);
            let answers =
                run_batched(plan, projection, exists, batch, &arguments, reads, &mut ctx)?;
            for (&i, answer) in missing.iter().zip(answers) {
                if let (Some(memo), Some(answer)) = (memo, &answer) {
                    if let Some(key) = keys[i].take() {
                        memo.put(plan_id, exists, key, answer, started);
                    }
                }
                out[i] = answer;
            }
            // Unless `rand()` ran: then each row gets its own answer.
            if env
                .memo
                .as_ref()
                .is_some_and(|memo| memo.start() == started)
            {
                for i in 0..rows.len() {
                    if let Some(j) = twin_of[i] {
                        out[i] = out[j].clone();
                    }
                }
            }
        }
        if out.iter().all(Option::is_some) {
            return Ok(out.into_iter().flatten().collect());
        }
        let mut ctx = nested_context(&env, plan, batch.slot_count());
        for (i, &row) in rows.iter().enumerate() {
            if out[i].is_some() {
                continue;
            }
            let remembered = match (memo, &keys[i]) {
                (Some(memo), Some(key)) if twin_of[i].is_some() => memo.get(plan_id, exists, key),
                _ => None,
            };
            if remembered.is_some() {
                out[i] = remembered;
                continue;
            }
            let started = env.memo.as_ref().map_or(0, |memo| memo.start());
            let argument = batch.row_of(row, reads);
            let answer = run_once(plan, projection, exists, argument, &mut ctx)?;
            if let (Some(memo), Some(key)) = (memo, keys[i].take()) {
                memo.put(plan_id, exists, key, &answer, started);
            }
            out[i] = Some(answer);
        }
        Ok(out.into_iter().map(|v| v.unwrap_or(Value::Null)).collect())
    }
}

/// An execution context for a nested plan of rows `slot_count` wide, over
/// the statement's transaction, parameters, procedures, limits and memo.
fn nested_context(env: &SubplanEnv, plan: &Op, slot_count: usize) -> ExecContext {
    let mut ctx = ExecContext::new(
        env.txn.clone(),
        env.params.clone(),
        slot_count,
        env.batch_size,
        plan_stats(plan),
    );
    ctx.statement_time = env.statement_time;
    ctx.procedures = env.procedures.clone();
    ctx.stop = env.stop.clone();
    ctx.memory = env.memory.clone();
    ctx.memo = env.memo.clone();
    ctx.nested = true;
    ctx
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
        values.extend(run_once_rows(projection, &inner, ctx)?);
    }
    Ok(if exists {
        Value::Bool(matched)
    } else {
        Value::List(values.into())
    })
}

/// `projection` over the active rows of a batch of the nested plan's rows.
pub(super) fn run_once_rows(
    projection: &Expr,
    inner: &Batch,
    ctx: &mut ExecContext,
) -> ExecResult<Vec<Value>> {
    let selection = inner.selection().to_vec();
    ctx.evaluator().eval(projection, inner, &selection)
}
