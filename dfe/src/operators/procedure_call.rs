//! `ProcedureCall`: for each input row, the procedure's result rows with the
//! yielded columns written into their slots. A VOID procedure (no outputs)
//! passes each input row through once, as Neo4j does.

use super::flat_map::{Expander, Extension, Extensions};
use super::prefilter_terms::PrefilterTerms;
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::{ExecError, ExecResult};
use crate::procedures::{coerce_arguments, with_database_hook, with_tx_metadata, Resolved};
use nereid_planner::{Expr, ProcedureSignature, Slot};
use nereid_values::Value;
use std::sync::Arc;

pub(crate) struct ProcedureCall {
    name: String,
    args: Vec<Expr>,
    yields: Vec<(String, Slot)>,
    /// The `YIELD ... WHERE` predicate a candidate-filtering procedure
    /// tests on each candidate row (the input row with the candidate's
    /// columns in their slots).
    filter: Option<Expr>,
    /// The procedure, its signature and, per yield, its output column
    /// index; resolved on the first row from the database's registry.
    resolved: Option<ResolvedCall>,
}

#[derive(Clone)]
struct ResolvedCall {
    procedure: Resolved,
    signature: ProcedureSignature,
    columns: Vec<(usize, Slot)>,
    /// What the filter requires of the entity in the first output column
    /// (a vector query's node), for a pre-filtered search.
    prefilter: PrefilterTerms,
}

impl ProcedureCall {
    pub(crate) fn new(
        name: String,
        args: Vec<Expr>,
        yields: Vec<(String, Slot)>,
        filter: Option<Expr>,
    ) -> Self {
        ProcedureCall {
            name,
            args,
            yields,
            filter,
            resolved: None,
        }
    }

    /// The planner checked the call against the catalog; these checks
    /// repeat it against the registry the plan runs with.
    fn resolve(&mut self, ctx: &ExecContext) -> ExecResult<ResolvedCall> {
        if let Some(resolved) = &self.resolved {
            return Ok(resolved.clone());
        }
        let procedure = ctx
            .procedures
            .resolve(&self.name)
            .ok_or_else(|| ExecError::ProcedureNotFound(self.name.clone()))?;
        let signature = procedure.signature();
        if self.args.len() != signature.inputs.len() {
            return Err(ExecError::Argument(format!(
                "InvalidNumberOfArguments: Procedure call `{}` takes {} argument(s) but {} were given",
                signature.name,
                signature.inputs.len(),
                self.args.len()
            )));
        }
        let mut columns = Vec::with_capacity(self.yields.len());
        for (column, slot) in &self.yields {
            let index = signature
                .outputs
                .iter()
                .position(|output| &output.name == column)
                .ok_or_else(|| {
                    ExecError::Argument(format!(
                        "Unknown procedure output: `{column}` (`{}` yields {})",
                        signature.name,
                        signature.output_names().join(", ")
                    ))
                })?;
            columns.push((index, *slot));
        }
        let entity = columns.iter().find(|(index, _)| *index == 0);
        let prefilter = match (&self.filter, entity) {
            (Some(filter), Some(&(_, slot))) => {
                let written: Vec<Slot> = columns.iter().map(|&(_, slot)| slot).collect();
                PrefilterTerms::of(filter, slot, &written)
            }
            _ => PrefilterTerms::default(),
        };
        let resolved = ResolvedCall {
            procedure,
            signature,
            columns,
            prefilter,
        };
        self.resolved = Some(resolved.clone());
        Ok(resolved)
    }
}

impl Expander for ProcedureCall {
    fn expand(
        &mut self,
        batch: &Batch,
        _position: usize,
        row: usize,
        ctx: &mut ExecContext,
    ) -> ExecResult<Extensions> {
        let call = self.resolve(ctx)?;
        let mut args = Vec::with_capacity(self.args.len());
        for arg in &self.args {
            args.push(ctx.evaluator().eval_row(arg, batch, row)?);
        }
        let args = coerce_arguments(&call.signature, args)?;
        let results = match &self.filter {
            None => {
                let txn = &ctx.txn;
                with_database_hook(
                    ctx.database_hook.as_ref(),
                    &ctx.stop,
                    &ctx.notices,
                    txn,
                    || {
                        with_tx_metadata(ctx.tx_metadata.as_ref(), || {
                            ctx.procedures.call(&call.procedure, &ctx.txn, &args)
                        })
                    },
                )?
            }
            Some(filter) => call_filtering(&call, filter, &args, batch, row, ctx)?,
        };
        if call.signature.is_void() {
            return Ok(Box::new(std::iter::once(Extension::new())));
        }
        let columns = call.columns;
        Ok(Box::new(results.into_iter().map(move |result| {
            columns
                .iter()
                .map(|&(index, slot)| (slot, result.get(index).cloned().unwrap_or(Value::Null)))
                .collect()
        })))
    }
}

/// Calls a candidate-filtering procedure with `filter` as its test: each
/// candidate row is written over a copy of input row `row` and the
/// predicate evaluated there (true passes; false and null do not).
fn call_filtering(
    call: &ResolvedCall,
    filter: &Expr,
    args: &[Value],
    batch: &Batch,
    row: usize,
    ctx: &mut ExecContext,
) -> ExecResult<Vec<Vec<Value>>> {
    let txn = Arc::clone(&ctx.txn);
    let procedures = Arc::clone(&ctx.procedures);
    let hook = ctx.database_hook.clone();
    let metadata = ctx.tx_metadata.clone();
    let stop = ctx.stop.clone();
    let notices = Arc::clone(&ctx.notices);
    let mut evaluator = ctx.evaluator();
    let prefilter = call.prefilter.evaluate(&mut evaluator, batch, row)?;
    // One copy of the input row; each candidate's columns overwrite their
    // slots in it.
    let mut one = Batch::with_capacity(batch.slot_count(), 1);
    one.push_extended(batch, row, &[]);
    let mut test = |candidate: &[Value]| -> ExecResult<bool> {
        for &(index, slot) in &call.columns {
            one.set(
                slot,
                0,
                candidate.get(index).cloned().unwrap_or(Value::Null),
            );
        }
        Ok(matches!(
            evaluator.eval_row(filter, &one, 0)?,
            Value::Bool(true)
        ))
    };
    with_database_hook(hook.as_ref(), &stop, &notices, &txn, || {
        with_tx_metadata(metadata.as_ref(), || {
            procedures.call_filtered(&call.procedure, &txn, args, &mut test, &prefilter)
        })
    })
}
