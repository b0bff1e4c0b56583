//! A pattern expression's nested plan run once over many rows instead of
//! once per row (a semi-join for `exists`, set-at-a-time for pattern
//! comprehensions and `COUNT { }`).
//!
//! Why: run per row, the nested plan is built afresh for every row and each
//! of its operators sees one row, so an `Expand` reads the store once per
//! row and the set-up dominates cheap patterns (SNB IC10 tests
//! `(p)-[:HAS_TAG]->()<-[:HAS_INTEREST]-(person)` for every post of every
//! candidate friend; IC14 lists a three-hop pattern per path relationship).
//!
//! How: when the nested plan is a chain that extends each row in input
//! order ([`batchable`]; the planner's test for a batched `Optional`, plus
//! the scans and seeks, which the executor runs as flat maps too),
//! the argument rows go in as one batch, each carrying its position in a
//! scratch slot past the row's width; the chain emits each argument's rows
//! together and in argument order, so the position tells whose row each
//! output is, and a position never seen had no rows.
//!
//! `exists` needs only a first row per argument, which the batch cannot
//! stop at: a chain with a variable-length expand (whose paths can be
//! exponentially many) is never batched for it, and once the batch has
//! produced [`EXISTS_ROWS_PER_ARGUMENT`] rows per argument, the arguments
//! not reached yet are left undecided (`None`) for the caller to run row
//! by row, so a batch never costs much more than the per-row plans would.

use super::pattern::run_once_rows;
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::{ExecError, ExecResult};
use crate::operators::build_on_batch;
use nereid_planner::{Expr, Op, Slot};
use nereid_values::Value;

/// Fewest rows to answer for which one batched run beats a run per row.
pub(super) const BATCHED_MIN_ROWS: usize = 2;

/// Rows per argument an `exists` batch may produce before it stops.
const EXISTS_ROWS_PER_ARGUMENT: usize = 64;

/// Whether `plan` may run over a batch of arguments: a chain down to its
/// `Argument` of operators that turn each input row into zero or more rows
/// extending it, in input order, copying the slots they do not write
/// (filters, projections, unwinds, and the scans, seeks and expands, which
/// the executor runs as flat maps over their input), or a union of such
/// chains; for `exists`, without a variable-length expand or a union.
pub(super) fn batchable(plan: &Op, exists: bool) -> bool {
    let mut current = plan;
    loop {
        let extends = match current {
            Op::Argument => return true,
            Op::Filter { .. } | Op::Project { .. } | Op::Unwind { .. } => true,
            Op::VarExpand { .. } => !exists,
            Op::ShortestPath { .. } => false,
            // Each part runs over the whole batch, one after the other:
            // an argument's rows come from both, so they are not together,
            // which a list gathered by position does not mind and an
            // `exists` batch (stopping at a position reached) does.
            Op::Union { input, other } => {
                return !exists && batchable(input, exists) && batchable(other, exists)
            }
            other => other.matches_entities(),
        };
        match current.input() {
            Some(input) if extends => current = input,
            _ => return false,
        }
    }
}

/// The answer for each of `arguments` (rows of `batch`, of which the
/// nested plan reads `reads`; `ctx.slot_count` is one slot wider, for the
/// position): as `run_once` gives it, or `None` when an `exists` batch
/// stopped before reaching that argument.
///
/// The argument batch is built column by column from the read slots alone:
/// an argument row as wide as the statement's would be allocated and
/// written in full, nulls included, for each of thousands of arguments
/// (IC10 asks its pattern for every post of every candidate).
pub(super) fn run_batched(
    plan: &Op,
    projection: &Expr,
    exists: bool,
    batch: &Batch,
    arguments: &[usize],
    reads: &[Slot],
    ctx: &mut ExecContext,
) -> ExecResult<Vec<Option<Value>>> {
    let origin = ctx.slot_count - 1;
    let count = arguments.len();
    let mut rows = Batch::with_capacity(ctx.slot_count, count);
    for (position, &row) in arguments.iter().enumerate() {
        let mut at = [(
            origin,
            Value::Int(i64::try_from(position).unwrap_or(i64::MAX)),
        )];
        rows.push_extended_slots(batch, row, reads, &mut at);
    }
    let mut pipeline = build_on_batch(plan, rows);
    let mut matched = vec![false; count];
    let mut lists: Vec<Vec<Value>> = vec![Vec::new(); if exists { 0 } else { count }];
    let cap = count.saturating_mul(EXISTS_ROWS_PER_ARGUMENT);
    let mut produced = 0usize;
    // Every position below `reached` has had all its rows.
    let mut reached = 0usize;
    while let Some(inner) = pipeline.next(ctx)? {
        let positions: Vec<usize> = inner
            .selection()
            .iter()
            .map(|&row| match inner.value(origin, row) {
                Value::Int(p) => usize::try_from(*p).ok().filter(|&p| p < count),
                _ => None,
            })
            .collect::<Option<_>>()
            // The chain keeps the slot (`batchable`): anything else is a
            // planner or executor bug.
            .ok_or_else(|| {
                ExecError::ExecutionFailed("batched pattern: a row lost its argument".into())
            })?;
        for &p in &positions {
            matched[p] = true;
            reached = reached.max(p);
        }
        if exists {
            produced += positions.len();
            if produced > cap {
                return Ok(decided(matched, reached));
            }
            continue;
        }
        let values = run_once_rows(projection, &inner, ctx)?;
        for (p, value) in positions.into_iter().zip(values) {
            lists[p].push(value);
        }
    }
    Ok(if exists {
        matched.into_iter().map(|m| Some(Value::Bool(m))).collect()
    } else {
        lists
            .into_iter()
            .map(|l| Some(Value::List(l.into())))
            .collect()
    })
}

/// The answers of an `exists` batch stopped after position `reached` had
/// a row: those before it are final, the rest undecided.
fn decided(matched: Vec<bool>, reached: usize) -> Vec<Option<Value>> {
    matched
        .into_iter()
        .enumerate()
        .map(|(p, m)| (m || p < reached).then_some(Value::Bool(m)))
        .collect()
}
