//! `NodeIndexSeek` (and the other node index operators EXPLAIN names by
//! the query's shape: `NodeUniqueIndexSeek`, `NodeIndexSeekByRange`,
//! `NodeIndexScan`, `NodeIndexContainsScan`, `NodeIndexEndsWithScan`):
//! each input row extended with the nodes a property index finds for the
//! query's values evaluated for that row (`Txn::seek_nodes`), in the
//! index's key order when the plan asks for it.
//!
//! The store's answer is exact, in this transaction's view, own writes
//! included. When it has none (the index was dropped after planning, or a
//! range over values its keys do not order) the operator reads what the
//! label scan it replaced would have and tests the same conditions
//! (module `index_query`), so the rows are the same either way.

use super::flat_map::{Expander, Extensions};
use super::index_query::{answer, evaluate, seeks, through_index};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_planner::{IndexQuery, Slot};
use nereid_values::Value;

pub(crate) struct NodeIndexSeek {
    out: Slot,
    query: IndexQuery,
    /// The query's values for the current batch's active rows.
    columns: Vec<Vec<Value>>,
}

impl NodeIndexSeek {
    pub(crate) fn new(out: Slot, query: IndexQuery) -> Self {
        NodeIndexSeek {
            out,
            query,
            columns: Vec::new(),
        }
    }
}

impl Expander for NodeIndexSeek {
    fn start_batch(&mut self, batch: &Batch, ctx: &mut ExecContext) -> ExecResult<()> {
        self.columns = evaluate(&self.query, batch, ctx)?;
        Ok(())
    }

    fn expand(
        &mut self,
        _batch: &Batch,
        position: usize,
        _row: usize,
        ctx: &mut ExecContext,
    ) -> ExecResult<Extensions> {
        let seeks = seeks(&self.query, &self.columns, position)?;
        let index = &self.query.index;
        let txn = &ctx.txn;
        let nodes =
            through_index(&seeks, |seek| txn.seek_nodes(&index.name, seek)).unwrap_or_else(|| {
                // Not answerable through the index: the label scan and the
                // filter's test, for every seek at once.
                let candidates = txn.scan_nodes(Some(&index.label)).into_iter().map(|n| {
                    let values = index.keys.iter().map(|k| txn.node_property(n, k));
                    (n, values.collect())
                });
                answer(&self.query, &seeks, candidates)
            });
        let out = self.out;
        Ok(Box::new(
            nodes
                .into_iter()
                .map(move |n| smallvec::smallvec![(out, Value::Node(n))]),
        ))
    }
}
