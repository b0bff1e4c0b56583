//! Rule `parallel_gather`: runs the streaming operators under an operator
//! that drains its whole input (aggregation, DISTINCT, ORDER BY, Top) on
//! several threads when the estimate says the work pays for them
//! (docs/adr/0139-morsel-driven-parallel-segments.md).
//!
//! The chain is a run of expands, filters, projections and optional
//! matches under that consumer, down to the deepest one whose input (the
//! producer) is estimated at enough rows to cut into morsels; the
//! producer keeps running on the calling thread and hands its rows out in
//! morsels. The executor gives the chain's rows back in the producer's
//! order, so the consumer sees exactly the rows and order of a serial run
//! (`collect()`, float sums and sort ties included): the rule changes
//! speed, never results.
//!
//! It fires only for a read-only plan (no writes, procedure calls, LOAD
//! CSV or batched transactions anywhere), only when the catalog allows
//! more than one query thread, and only when both the producer's rows and
//! the chain's output rows are estimated large enough: a short OLTP query
//! stays on one thread with no coordination.

use super::RewriteRule;
use crate::plan::Op;
use crate::row_estimate::Estimator;
use crate::Catalog;

pub(crate) struct ParallelGather;

/// Fewest estimated producer rows worth splitting (fewer: one morsel).
const MIN_PRODUCER_ROWS: f64 = 16.0;
/// Fewest estimated chain output rows worth the threads' start and the
/// hand-over of morsels (several milliseconds of serial work: an SNB IC chain does a few
/// thousand rows per 10 ms).
const MIN_CHAIN_ROWS: f64 = 5_000.0;

impl RewriteRule for ParallelGather {
    fn name(&self) -> &'static str {
        "parallel_gather"
    }

    fn rewrite(&self, plan: Op, catalog: &dyn Catalog) -> Op {
        let workers = catalog.query_threads();
        if workers < 2 || !read_only(&plan) {
            return plan;
        }
        along_inputs(plan, &|op| gather_under(op, workers, catalog))
    }
}

/// Applies `f` to every operator on the plan's spine of inputs, inputs
/// first; nested plans (an `Optional`'s inner plan runs per outer row, or
/// per batch) are left alone: threads started per row would never pay.
fn along_inputs(mut plan: Op, f: &dyn Fn(Op) -> Op) -> Op {
    if let Some(input) = plan.input_mut() {
        let taken = std::mem::replace(input, Op::Argument);
        *input = nereid_stack::deeper(|| along_inputs(taken, f));
    }
    f(plan)
}

/// Whether nothing in the plan writes, calls a procedure, reads a file or
/// commits: only such plans may run their operators on other threads
/// (and, for rule `hash_join`, have their rows read ahead of another
/// part's).
pub(super) fn read_only(op: &Op) -> bool {
    let own = !matches!(
        op,
        Op::Create { .. }
            | Op::SetProperties { .. }
            | Op::Delete { .. }
            | Op::Merge { .. }
            | Op::ProcedureCall { .. }
            | Op::LoadCsv { .. }
            | Op::Apply { .. }
            | Op::Gather { .. }
    );
    own && op
        .input()
        .into_iter()
        .chain(op.nested())
        .all(|child| nereid_stack::deeper(|| read_only(child)))
}

/// An operator that reads its whole input before emitting (so the
/// producer is drained to its end whatever the chain's speed).
fn drains_input(op: &Op) -> bool {
    matches!(
        op,
        Op::Aggregate { .. } | Op::Distinct { .. } | Op::Sort { .. } | Op::Top { .. }
    )
}

/// An operator a worker can run over any morsel of its input: its rows
/// for a row depend on that row alone.
fn streams(op: &Op) -> bool {
    matches!(
        op,
        Op::Expand { .. }
            | Op::Filter { .. }
            | Op::Project { .. }
            | Op::VarExpand { .. }
            | Op::Optional { .. }
    )
}

/// `op` with a `Gather` between it and its input when `op` drains its
/// input, a chain worth running in parallel lies under it, and the
/// estimates say so. The chain ends at the deepest operator whose input
/// (the producer) is estimated at enough rows to cut into morsels: under
/// a seek of one node, the first expand stays with the producer.
fn gather_under(mut op: Op, workers: usize, catalog: &dyn Catalog) -> Op {
    if !drains_input(&op) {
        return op;
    }
    let Some(input) = op.input() else {
        return op;
    };
    // One estimator for every candidate producer and the chain: each
    // estimate reuses those of the operators below it.
    let estimator = Estimator::new(catalog);
    let mut streaming = Vec::new();
    let mut below = input;
    while streams(below) {
        streaming.push(below);
        below = below.input().expect("a streaming operator has an input");
    }
    let Some(chain) = (1..=streaming.len()).rev().find(|&len| {
        let producer = streaming[len - 1]
            .input()
            .expect("a streaming operator has an input");
        estimator.rows(producer) >= MIN_PRODUCER_ROWS
    }) else {
        return op;
    };
    let expands = streaming[..chain]
        .iter()
        .any(|o| !matches!(o, Op::Filter { .. } | Op::Project { .. }));
    if !expands || estimator.rows(input) < MIN_CHAIN_ROWS {
        return op;
    }
    let slot = op.input_mut().expect("checked above");
    let taken = std::mem::replace(slot, Op::Argument);
    *slot = Op::Gather {
        input: Box::new(taken),
        workers,
        chain,
    };
    op
}
