//! `ProcedureCall`: for each input row, the procedure's result rows with the
//! yielded columns written into their slots.

use super::flat_map::{Expander, Extensions};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::{ExecError, ExecResult};
use crate::procedures::{self, Procedure};
use nereid_planner::{Expr, Slot};

pub(crate) struct ProcedureCall {
    name: String,
    args: Vec<Expr>,
    yields: Vec<(String, Slot)>,
    /// The procedure and, per yield, its output column index; resolved on
    /// the first row so that an unknown name is reported as a query error.
    resolved: Option<(&'static Procedure, Vec<(usize, Slot)>)>,
}

impl ProcedureCall {
    pub(crate) fn new(name: String, args: Vec<Expr>, yields: Vec<(String, Slot)>) -> Self {
        ProcedureCall {
            name,
            args,
            yields,
            resolved: None,
        }
    }

    fn resolve(&mut self) -> ExecResult<(&'static Procedure, Vec<(usize, Slot)>)> {
        if let Some(resolved) = &self.resolved {
            return Ok(resolved.clone());
        }
        let procedure = procedures::lookup(&self.name)
            .ok_or_else(|| ExecError::ProcedureNotFound(self.name.clone()))?;
        if self.args.len() != procedure.arity {
            return Err(ExecError::Argument(format!(
                "Procedure call `{}` takes {} argument(s) but {} were given",
                procedure.name,
                procedure.arity,
                self.args.len()
            )));
        }
        let mut columns = Vec::with_capacity(self.yields.len());
        for (column, slot) in &self.yields {
            let index = procedure
                .outputs
                .iter()
                .position(|output| output == column)
                .ok_or_else(|| {
                    ExecError::Argument(format!(
                        "Unknown procedure output: `{column}` (`{}` yields {})",
                        procedure.name,
                        procedure.outputs.join(", ")
                    ))
                })?;
            columns.push((index, *slot));
        }
        self.resolved = Some((procedure, columns.clone()));
        Ok((procedure, columns))
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
        let (procedure, columns) = self.resolve()?;
        let mut args = Vec::with_capacity(self.args.len());
        for arg in &self.args {
            args.push(ctx.evaluator().eval_row(arg, batch, row)?);
        }
        let results = procedures::with_checkpoint_hook(ctx.checkpoint_hook.as_ref(), || {
            (procedure.body)(&ctx.txn, &args)
        })?;
        Ok(Box::new(results.into_iter().map(move |result| {
            columns
                .iter()
                .map(|&(index, slot)| (slot, result.get(index).cloned().unwrap_or_default()))
                .collect()
        })))
    }
}
