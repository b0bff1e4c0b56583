//! `Sort`: a stable sort of all input rows by the ORDER BY keys.
//!
//! Ascending order is [`compare_for_order`] (nulls last); a descending key
//! reverses it (nulls first).

use super::{Operator, RowEmitter};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use crate::memory::Reservation;
use nereid_planner::SortKey;
use nereid_values::{compare_for_order, Value};
use std::cmp::Ordering;

pub(crate) struct Sort {
    input: Box<dyn Operator>,
    keys: Vec<SortKey>,
    output: Option<RowEmitter>,
    /// The buffered rows' charge against the query's memory budget.
    held: Option<Reservation>,
}

impl Sort {
    pub(crate) fn new(input: Box<dyn Operator>, keys: Vec<SortKey>) -> Sort {
        Sort {
            input,
            keys,
            output: None,
            held: None,
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
    Ok(row_keys(batch, keys, ctx)?
        .into_iter()
        .zip(batch.selection())
        .map(|(key_values, &row)| (key_values, batch.row(row)))
        .collect())
}

/// The sort keys of every active row of `batch`, one list per row (its
/// values not yet copied: `Top` copies only the rows it keeps).
pub(crate) fn row_keys(
    batch: &Batch,
    keys: &[SortKey],
    ctx: &mut ExecContext,
) -> ExecResult<Vec<Vec<Value>>> {
    let rows = batch.selection();
    let mut columns = Vec::with_capacity(keys.len());
    for key in keys {
        columns.push(ctx.evaluator().eval(&key.expr, batch, rows)?.into_iter());
    }
    Ok(rows
        .iter()
        .map(|_| {
            columns
                .iter_mut()
                .map(|c| c.next().unwrap_or_default())
                .collect()
        })
        .collect())
}

/// Bytes of keyed rows (keys and values), for the query's memory budget.
pub(crate) fn keyed_footprint(rows: &[(Vec<Value>, Vec<Value>)]) -> usize {
    rows.iter()
        .map(|(keys, values)| {
            crate::memory::column(keys).saturating_add(crate::memory::column(values))
        })
        .fold(0usize, usize::saturating_add)
}

impl Operator for Sort {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        if self.output.is_none() {
            let ascending: Vec<bool> = self.keys.iter().map(|k| k.ascending).collect();
            let mut keyed = Vec::new();
            let mut held = ctx.reservation();
            while let Some(batch) = self.input.next(ctx)? {
                let rows = keyed_rows(&batch, &self.keys, ctx)?;
                held.grow(keyed_footprint(&rows))?;
                keyed.extend(rows);
            }
            self.held = Some(held);
            // `sort_by` is stable: equal keys keep their input order.
            keyed.sort_by(|(a, _), (b, _)| compare_keys(a, b, &ascending));
            self.output = Some(RowEmitter::new(
                keyed.into_iter().map(|(_, row)| row).collect(),
            ));
        }
        Ok(self.output.as_mut().and_then(|o| o.next_batch(ctx)))
    }
}
