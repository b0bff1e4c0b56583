//! Expressions that bind a local variable: list comprehensions, the list
//! predicates (all/any/none/single) and reduce.
//!
//! The planner gives each local variable its own slot. To evaluate the body
//! for the elements of one row's list, the row is copied once per element
//! into a scratch batch with the element in that slot; the body is then
//! evaluated vectorised over the scratch batch.

use super::Evaluator;
use crate::batch::Batch;
use crate::error::{type_mismatch, ExecResult};
use nereid_planner::{Expr, Quantifier, Slot};
use nereid_values::Value;

/// The list a comprehension ranges over: `None` for null (the result is
/// null), an error for anything that is not a list.
fn as_list(value: Value) -> ExecResult<Option<Vec<Value>>> {
    match value.into_list() {
        Ok(items) => Ok(Some(items.into_vec())),
        Err(Value::Null) => Ok(None),
        Err(other) => Err(type_mismatch("List", &other)),
    }
}

/// One copy of `batch`'s row `row` per element, with the element in `var`.
fn scratch(batch: &Batch, row: usize, var: Slot, items: Vec<Value>) -> Batch {
    let base = batch.row(row);
    Batch::from_rows(
        batch.slot_count(),
        items.into_iter().map(|item| {
            let mut copy = base.clone();
            if let Some(cell) = copy.get_mut(var) {
                *cell = item;
            }
            copy
        }),
    )
}

impl Evaluator<'_> {
    pub(super) fn eval_list_comprehension(
        &mut self,
        var: Slot,
        list: &Expr,
        predicate: Option<&Expr>,
        projection: Option<&Expr>,
        batch: &Batch,
        rows: &[usize],
    ) -> ExecResult<Vec<Value>> {
        let lists = self.eval(list, batch, rows)?;
        let mut out = Vec::with_capacity(rows.len());
        for (&row, list) in rows.iter().zip(lists) {
            let Some(items) = as_list(list)? else {
                out.push(Value::Null);
                continue;
            };
            let elements = scratch(batch, row, var, items);
            let mut kept: Vec<usize> = (0..elements.physical_len()).collect();
            if let Some(predicate) = predicate {
                let tests = self.eval(predicate, &elements, &kept)?;
                kept = kept
                    .into_iter()
                    .zip(tests)
                    .filter(|(_, t)| matches!(t, Value::Bool(true)))
                    .map(|(r, _)| r)
                    .collect();
            }
            let values = match projection {
                Some(projection) => self.eval(projection, &elements, &kept)?,
                None => kept
                    .iter()
                    .map(|&r| elements.value(var, r).clone())
                    .collect(),
            };
            out.push(Value::List(values.into()));
        }
        Ok(out)
    }

    pub(super) fn eval_quantifier(
        &mut self,
        kind: Quantifier,
        var: Slot,
        list: &Expr,
        predicate: &Expr,
        batch: &Batch,
        rows: &[usize],
    ) -> ExecResult<Vec<Value>> {
        let lists = self.eval(list, batch, rows)?;
        let mut out = Vec::with_capacity(rows.len());
        for (&row, list) in rows.iter().zip(lists) {
            let Some(items) = as_list(list)? else {
                out.push(Value::Null);
                continue;
            };
            let elements = scratch(batch, row, var, items);
            let all: Vec<usize> = (0..elements.physical_len()).collect();
            let tests = self.eval(predicate, &elements, &all)?;
            let trues = tests.iter().filter(|t| **t == Value::Bool(true)).count();
            let falses = tests.iter().filter(|t| **t == Value::Bool(false)).count();
            let unknown = tests.len() - trues - falses > 0;
            let result = match kind {
                Quantifier::All if falses > 0 => Some(false),
                Quantifier::Any | Quantifier::None if trues > 0 => Some(kind == Quantifier::Any),
                Quantifier::Single if trues > 1 => Some(false),
                _ if unknown => None,
                Quantifier::All => Some(true),
                Quantifier::Any => Some(false),
                Quantifier::None => Some(true),
                Quantifier::Single => Some(trues == 1),
            };
            out.push(result.map(Value::Bool).unwrap_or_default());
        }
        Ok(out)
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn eval_reduce(
        &mut self,
        acc: Slot,
        init: &Expr,
        var: Slot,
        list: &Expr,
        step: &Expr,
        batch: &Batch,
        rows: &[usize],
    ) -> ExecResult<Vec<Value>> {
        let inits = self.eval(init, batch, rows)?;
        let lists = self.eval(list, batch, rows)?;
        let mut out = Vec::with_capacity(rows.len());
        for ((&row, init), list) in rows.iter().zip(inits).zip(lists) {
            let Some(items) = as_list(list)? else {
                out.push(Value::Null);
                continue;
            };
            let mut scratch_row = Batch::from_rows(batch.slot_count(), [batch.row(row)]);
            let mut accumulator = init;
            for item in items {
                // One step per element: a long list is a loop a RESET or a
                // client that left must be able to stop.
                self.check_cancelled()?;
                scratch_row.set(acc, 0, accumulator);
                scratch_row.set(var, 0, item);
                accumulator = self.eval_row(step, &scratch_row, 0)?;
            }
            out.push(accumulator);
        }
        Ok(out)
    }
}
