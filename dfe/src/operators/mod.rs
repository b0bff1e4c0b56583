//! Physical operators: one per file, pull-based and pipelined.
//!
//! Every operator implements [`Operator::next`], returning the next
//! non-empty batch or `None` when exhausted; the call is dynamically
//! dispatched once per batch, never per row. Operators that must see all of
//! their input first (sort, aggregation, eager, updates) drain it on their
//! first call and then emit batch by batch.

mod aggregate;
mod apply;
mod apply_in_transactions;
mod argument;
mod build;
mod count_from_store;
mod create;
mod delete;
mod distinct;
mod eager;
mod endpoints;
mod expand;
mod expand_into_table;
mod expand_row_ranges;
mod far_end_adjacent;
mod far_end_in;
mod far_end_where;
mod filter;
mod flat_map;
mod gather;
mod hash_join;
mod id_seek;
mod index_query;
mod limit;
mod load_csv;
mod merge;
mod node_index_min_max;
mod node_index_seek;
mod node_property_scan;
mod optional;
mod optional_batched;
mod prefilter_terms;
mod procedure_call;
mod project;
mod property_seek;
mod pushed_test;
mod rel_index_seek;
mod rel_type_scan;
mod row_cursor;
mod row_failure;
mod scan;
mod set;
mod shortest_path;
mod skip;
mod sort;
mod top;
mod union;
mod unresolved;
mod unwind;
mod var_expand;
mod writes;

pub(crate) use build::{build, build_on_batch, calls_procedures, plan_stats};

use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::{ExecError, ExecResult};
use crate::memory::Reservation;
use nereid_planner::Expr;
use nereid_values::Value;

/// A pipelined operator.
pub trait Operator: Send {
    /// The next batch with at least one active row, or `None` when done.
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>>;
}

/// Counts the rows an operator emits into [`ExecContext`]'s statistics.
struct Counted {
    id: usize,
    inner: Box<dyn Operator>,
}

impl Operator for Counted {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        // Every operator is counted, so this is the one place pulling
        // recursion needs a guard (a pipeline may be thousands deep) and
        // the one place a cancelled or timed-out query stops, between any
        // two batches.
        ctx.check_stop()?;
        let measured = ctx
            .profiling
            .then(|| (std::time::Instant::now(), ctx.txn.db_hits()));
        let batch = nereid_stack::deeper(|| self.inner.next(ctx))?;
        if let Some((started, hits)) = measured {
            let time = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
            ctx.record_work(self.id, ctx.txn.db_hits() - hits, time);
        }
        if let Some(batch) = &batch {
            ctx.record_rows(self.id, batch.active_len());
        }
        Ok(batch)
    }
}

/// Dropping a pipeline drops its input first, recursively: guarded like
/// pulling, so a pipeline thousands deep is dropped without overflowing.
impl Drop for Counted {
    fn drop(&mut self) {
        let inner = std::mem::replace(&mut self.inner, Box::new(Exhausted));
        nereid_stack::deeper(|| drop(inner));
    }
}

/// What a dropped [`Counted`] holds for the instant it takes to drop its
/// real operator (a zero-sized box: no allocation).
struct Exhausted;

impl Operator for Exhausted {
    fn next(&mut self, _: &mut ExecContext) -> ExecResult<Option<Batch>> {
        Ok(None)
    }
}

/// Pulls every remaining batch of `input`, charging each to the query's
/// memory budget as it arrives; the reservation holds them for as long as
/// the caller keeps it beside the batches.
fn drain(input: &mut dyn Operator, ctx: &mut ExecContext) -> ExecResult<(Vec<Batch>, Reservation)> {
    let mut held = ctx.reservation();
    let mut batches = Vec::new();
    while let Some(batch) = input.next(ctx)? {
        held.grow(batch.footprint())?;
        batches.push(batch);
    }
    Ok((batches, held))
}

/// Emits buffered rows in batches of the context's batch size.
struct RowEmitter {
    rows: std::vec::IntoIter<Vec<Value>>,
}

impl RowEmitter {
    fn new(rows: Vec<Vec<Value>>) -> RowEmitter {
        RowEmitter {
            rows: rows.into_iter(),
        }
    }

    fn next_batch(&mut self, ctx: &ExecContext) -> Option<Batch> {
        let batch = Batch::from_rows(ctx.slot_count, self.rows.by_ref().take(ctx.batch_size));
        (!batch.is_empty()).then_some(batch)
    }
}

/// Evaluates a SKIP / LIMIT / Top count once, without reading any input row:
/// it must be a non-negative integer.
fn evaluate_count(expr: &Expr, clause: &str, ctx: &mut ExecContext) -> ExecResult<usize> {
    let row = Batch::from_rows(ctx.slot_count, [ctx.null_row()]);
    let value = ctx.evaluator().eval_row(expr, &row, 0)?;
    match value {
        Value::Int(n) if n >= 0 => Ok(usize::try_from(n).unwrap_or(usize::MAX)),
        // Neo4j's text: the clause, then the value quoted once.
        other => {
            let detail = match other {
                Value::Int(_) => "NegativeIntegerArgument",
                _ => "InvalidArgumentType",
            };
            let shown = match &other {
                Value::String(text) => text.clone(),
                value => value.to_string(),
            };
            Err(ExecError::Argument(format!(
                "{detail}: {clause}: Invalid input. '{shown}' is not a valid value. Must be a non-negative integer."
            )))
        }
    }
}

#[cfg(test)]
mod tests;
