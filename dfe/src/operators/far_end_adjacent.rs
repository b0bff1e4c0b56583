//! The pre-test of an `Expand` whose other end an `ExpandInto` above it
//! tests against a node bound before the expand (planner rule
//! `far_end_adjacent`, SNB IC6's known tag): once rows keep asking about
//! the same node, that node's relationships (of the `ExpandInto`'s types,
//! seen from the other end) are read once into a sorted set of their other
//! ends, and the expand builds rows only for neighbours in it. The
//! `ExpandInto` above still builds every row it keeps; this only leaves out
//! neighbours it would find nothing for.
//!
//! Until [`BUILD_AFTER`] consecutive rows asked about one node, or their
//! start nodes had [`BUILD_AFTER_REACHED`] relationships, and those
//! relationships number at least a [`SET_ENTRIES_PER_REACHED`]th of the
//! node's (an upper bound read from its adjacency lists' lengths,
//! `Txn::degree_bound`), every neighbour is admitted: a node few rows ask about may have more relationships than
//! those rows reach (and rows of many relationships each, IC6's friends
//! with hundreds of posts, reach the second bound first). A null node
//! admits nothing (the
//! `ExpandInto` builds no row for it); a value that is not a node admits
//! everything (the `ExpandInto` reports it). The set is kept across
//! batches only where `IntoTable`'s table is: in a statement that writes
//! nothing, whose snapshot cannot change under it.

use super::expand_into_table::BUILD_AFTER;
use super::far_end_in::Admitted;
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_planner::AdjacentTo;
use nereid_values::{NodeId, Value};
use std::sync::Arc;

/// Relationships reached from rows asking about one node after which its
/// set is read.
const BUILD_AFTER_REACHED: usize = 1024;

/// Most set entries read per relationship reached so far: a neighbour the
/// set leaves out saves its row and the tests above it, about what reading
/// this many entries costs. A node with tens of thousands of
/// relationships of which the rows reach a few hundred (SNB IC11's
/// country, known by name, under every friend's employers) is not read.
const SET_ENTRIES_PER_REACHED: u64 = 4;

pub(crate) struct FarEndAdjacent {
    test: AdjacentTo,
    /// The node the current run of rows asks about, how many asked, and
    /// how many relationships their start nodes had.
    node: Option<NodeId>,
    repeats: usize,
    reached: usize,
    /// The other ends of `node`'s relationships, sorted, once read.
    set: Option<Arc<Vec<u64>>>,
    /// The bound of `node`'s relationships, once asked.
    bound: Option<u64>,
}

impl FarEndAdjacent {
    pub(crate) fn new(test: AdjacentTo) -> FarEndAdjacent {
        FarEndAdjacent {
            test,
            node: None,
            repeats: 0,
            reached: 0,
            set: None,
            bound: None,
        }
    }

    /// At a new input batch: forgets the set unless the statement's
    /// snapshot is fixed.
    pub(crate) fn start_batch(&mut self, ctx: &ExecContext) {
        if ctx.memo.is_none() {
            self.forget(None);
        }
    }

    fn forget(&mut self, node: Option<NodeId>) {
        self.node = node;
        self.repeats = 0;
        self.reached = 0;
        self.set = None;
        self.bound = None;
    }

    /// Whether the relationships reached so far pay for reading the set
    /// of `id` (its bound read once per node).
    fn pays(&mut self, id: NodeId, ctx: &ExecContext) -> bool {
        let bound = *self
            .bound
            .get_or_insert_with(|| ctx.txn.degree_bound(id, self.test.dir.reversed()));
        (self.reached as u64).saturating_mul(SET_ENTRIES_PER_REACHED) >= bound
    }

    /// Notes that the row last asked about had `relationships` (before the
    /// test).
    pub(crate) fn reached(&mut self, relationships: usize) {
        self.reached = self.reached.saturating_add(relationships);
    }

    /// The neighbours input row `row` of `batch` may keep.
    pub(crate) fn admitted(
        &mut self,
        batch: &Batch,
        row: usize,
        ctx: &mut ExecContext,
    ) -> ExecResult<Admitted> {
        let id = match batch.value(self.test.node, row) {
            Value::Null => return Ok(Admitted::Nothing),
            Value::Node(id) => *id,
            _ => return Ok(Admitted::All),
        };
        if self.node != Some(id) {
            self.forget(Some(id));
        }
        self.repeats += 1;
        let worth_it = self.repeats > BUILD_AFTER || self.reached >= BUILD_AFTER_REACHED;
        if self.set.is_none() && worth_it && self.pays(id, ctx) {
            let mut ids: Vec<u64> = ctx
                .txn
                .expand(id, self.test.dir.reversed(), &self.test.types)
                .into_iter()
                .map(|(_, other)| other.0)
                .collect();
            ctx.memory
                .check(ids.len().saturating_mul(std::mem::size_of::<u64>()))?;
            ids.sort_unstable();
            ids.dedup();
            self.set = Some(Arc::new(ids));
        }
        Ok(self.set.clone().map_or(Admitted::All, Admitted::Only))
    }
}
