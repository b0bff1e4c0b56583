//! `ExpandInto` towards a node that many rows share: the relationships are
//! read once from that node's side into a table sorted by their other end,
//! and each row looks its start node up in it, instead of a binary search
//! in every start node's adjacency in the store.
//!
//! Why: when the planner pins an expand's end to one node known before the
//! expand (rule `expand_into_known`, SNB IC6's known tag), every row asks
//! for the same end: a table of that node's relationships (a few thousand
//! for a popular tag) answers each row with a lookup in memory, and
//! reading it costs less than the first few dozen store probes.
//!
//! When: after [`BUILD_AFTER`] consecutive rows with the same end, and
//! once the rows that asked are enough to pay for reading the table: at
//! most [`ENTRIES_PER_ROW`] of the end's relationships (an upper bound read
//! from its adjacency lists' lengths, `Txn::degree_bound`) per row so far.
//! An end with tens of thousands of relationships of which the rows reach
//! a few (SNB IC11's country, `IS_LOCATED_IN` from every message located
//! in it, asked by ~1,500 companies) is then probed row by row instead of
//! read whole for every query. The
//! table is kept across batches only in a statement that writes nothing
//! (the one that may remember pattern answers: `ExecContext::memo`), whose
//! snapshot cannot change under it; otherwise it lives for one batch. A
//! row whose start is its end (a self-loop) is asked of the store, which
//! decides how often a loop counts.

use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_planner::ExpandSpec;
use nereid_values::{NodeId, RelId};

/// Consecutive rows with the same end after which its table is read.
pub(crate) const BUILD_AFTER: usize = 32;

/// Most table entries read per row that asked for the end: a probe of
/// the store per row costs a binary search in the start's adjacency, about
/// what reading and sorting this many table entries costs.
const ENTRIES_PER_ROW: u64 = 4;

#[derive(Default)]
pub(crate) struct IntoTable {
    /// The end the current run of rows asks for, and how many asked.
    end: Option<NodeId>,
    repeats: usize,
    /// `(other end, relationship)` of `end`'s relationships, by other end.
    table: Option<Vec<(NodeId, RelId)>>,
    /// The bound of `end`'s relationships, once asked.
    bound: Option<u64>,
}

impl IntoTable {
    /// At a new input batch: forgets the table unless the statement's
    /// snapshot is fixed.
    pub(crate) fn start_batch(&mut self, ctx: &ExecContext) {
        if ctx.memo.is_none() {
            *self = IntoTable::default();
        }
    }

    /// The relationships of `from` (as `spec` asks) that reach `to`, each
    /// `(relationship, to)`.
    pub(crate) fn expand_into(
        &mut self,
        from: NodeId,
        to: NodeId,
        spec: &ExpandSpec,
        ctx: &mut ExecContext,
    ) -> ExecResult<Vec<(RelId, NodeId)>> {
        if self.end != Some(to) {
            *self = IntoTable {
                end: Some(to),
                ..IntoTable::default()
            };
        }
        self.repeats += 1;
        if self.table.is_none() && self.repeats > BUILD_AFTER && self.pays(to, spec, ctx) {
            let mut table: Vec<(NodeId, RelId)> = ctx
                .txn
                .expand(to, spec.dir.reversed(), &spec.types)
                .into_iter()
                .map(|(rel, other)| (other, rel))
                .collect();
            ctx.memory.check(
                table
                    .len()
                    .saturating_mul(std::mem::size_of::<(NodeId, RelId)>()),
            )?;
            table.sort_by_key(|&(other, _)| other);
            self.table = Some(table);
        }
        match &self.table {
            Some(table) if from != to => {
                let start = table.partition_point(|&(other, _)| other < from);
                let len = table[start..].partition_point(|&(other, _)| other == from);
                Ok(table[start..start + len]
                    .iter()
                    .map(|&(_, rel)| (rel, to))
                    .collect())
            }
            _ => Ok(ctx.txn.expand_into(from, to, spec.dir, &spec.types)),
        }
    }

    /// Whether the rows that asked for `to` so far pay for reading its
    /// table (its bound read once per end).
    fn pays(&mut self, to: NodeId, spec: &ExpandSpec, ctx: &ExecContext) -> bool {
        let bound = *self
            .bound
            .get_or_insert_with(|| ctx.txn.degree_bound(to, spec.dir.reversed()));
        (self.repeats as u64).saturating_mul(ENTRIES_PER_ROW) >= bound
    }
}
