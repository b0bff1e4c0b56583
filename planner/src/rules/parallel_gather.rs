//! Rule `parallel_gather`: runs the streaming operators under an operator
//! that drains its whole input (aggregation, DISTINCT, ORDER BY, Top) on
//! several threads when the estimate says the work pays for them
//! (docs/adr/0139-morsel-driven-parallel-segments.md; the work bar:
//! docs/adr/0158-parallel-gather-needs-estimated-work.md).
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
//! more than one query thread, and only when the producer's rows, the
//! chain's output rows and the chain's work (the rows all its operators
//! emit) are estimated large enough: a short OLTP query stays on one
//! thread with no coordination.
//!
//! Why the work as well as the output: the estimate takes filters to keep
//! every row, so a short chain of a label test and an expand (SNB IC4:
//! 1,839 messages, 9,197 estimated rows out, 266 real) looked as large as
//! the chains that gain, and ran slower on two threads than on one. The
//! rows every working operator of the chain emits separate the two
//! (benches/RESULTS.md, helper q24c).

use super::RewriteRule;
use crate::expr::Expr;
use crate::plan::Op;
use crate::row_estimate::{work, Estimator};
use crate::Catalog;

pub(crate) struct ParallelGather;

/// Fewest estimated producer rows worth splitting (fewer: one morsel).
const MIN_PRODUCER_ROWS: f64 = 16.0;
/// Fewest estimated chain output rows worth the threads' start and the
/// hand-over of morsels (several milliseconds of serial work: an SNB IC chain does a few
/// thousand rows per 10 ms).
const MIN_CHAIN_ROWS: f64 = 5_000.0;
/// Fewest estimated rows emitted by all the chain's operators together
/// (an optional match counting its inner plan's work once per input row,
/// a projection that only copies slots nothing): SNB IC4's chain (a label
/// test and an expand over 2,412 estimated messages) is estimated at
/// 11,600, the shortest chain that gains from a second thread (IC5's
/// memberships, really 74,000 rows) at 25,000, the others (IC3, IC5's
/// optional match, IC6, IC9, IC10, IC12) at 34,000 and far more.
const MIN_CHAIN_WORK: f64 = 18_000.0;

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
    if !expands
        || estimator.rows(input) < MIN_CHAIN_ROWS
        || chain_work(&streaming[..chain], &estimator, catalog) < MIN_CHAIN_WORK
    {
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

/// The rows the chain's operators emit together, an optional match adding
/// its inner plan's work once per row it receives (the inner plan is the
/// bulk of such a chain, and its rows are not the optional match's own),
/// and a projection that only copies slots counting nothing (it reads no
/// store and evaluates nothing).
fn chain_work(chain: &[&Op], estimator: &Estimator, catalog: &dyn Catalog) -> f64 {
    chain
        .iter()
        .map(|op| match op {
            Op::Optional { input, inner, .. } => {
                estimator.rows(op) + estimator.rows(input) * work(inner, catalog)
            }
            Op::Project { items, .. } if items.iter().all(|(_, e)| matches!(e, Expr::Slot(_))) => {
                0.0
            }
            _ => estimator.rows(op),
        })
        .sum()
}
