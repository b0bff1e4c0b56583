//! `Sort`: a stable sort of all input rows by the ORDER BY keys.
//!
//! Ascending order is [`compare_for_order`] (nulls last); a descending key
//! reverses it (nulls first).

use super::{Operator, RowEmitter};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_planner::SortKey;
use nereid_values::{compare_for_order, Value};
use std::cmp::Ordering;

pub(crate) struct Sort {
    input: Box<dyn Operator>,
    keys: Vec<SortKey>,
    output: Option<RowEmitter>,
}

impl Sort {
    pub(crate) fn new(input: Box<dyn Operator>, keys: Vec<SortKey>) -> Sort {
        Sort {
            input,
            keys,
            output: None,
        }
    }
}

/// Compares two rows' evaluated sort keys; `ascending[i]` is key i's direction.
pub(crate) fn compare_keys(a: &[Value], b: &[Value], ascending: &[bool]) -> Ordering {
    for ((x, y), &asc) in a.iter().zip(b).zip(ascending) {
        let order = compare_for_order(x, y);
        let order = if asc { order } else { order.reverse() };
        if order != Ordering::Equal {
            return order;
        }
    }
    Ordering::Equal
}

/// Evaluates the sort keys of every active row of `batch`: one
/// `(keys, row values)` pair per row.
pub(crate) fn keyed_rows(
    batch: &Batch,
    keys: &[SortKey],
    ctx: &mut ExecContext,
) -> ExecResult<Vec<(Vec<Value>, Vec<Value>)>> {
    let rows = batch.selection();
    let mut columns = Vec::with_capacity(keys.len());
    for key in keys {
        columns.push(ctx.evaluator().eval(&key.expr, batch, rows)?.into_iter());
    }
    Ok(rows
        .iter()
        .map(|&row| {
            let key_values = columns
                .iter_mut()
                .map(|c| c.next().unwrap_or_default())
                .collect();
            (key_values, batch.row(row))
        })
        .collect())
}

impl Operator for Sort {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        if self.output.is_none() {
            let ascending: Vec<bool> = self.keys.iter().map(|k| k.ascending).collect();
            let mut keyed = Vec::new();
            while let Some(batch) = self.input.next(ctx)? {
                keyed.extend(keyed_rows(&batch, &self.keys, ctx)?);
            }
            // `sort_by` is stable: equal keys keep their input order.
            keyed.sort_by(|(a, _), (b, _)| compare_keys(a, b, &ascending));
            self.output = Some(RowEmitter::new(
                keyed.into_iter().map(|(_, row)| row).collect(),
            ));
        }
        Ok(self.output.as_mut().and_then(|o| o.next_batch(ctx)))
    }
}
