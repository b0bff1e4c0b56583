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
//!
//! When every value is a literal or a parameter (`(:Country {name:
//! $countryName})` placed over many rows by rule `expand_into_known`), every
//! row asks the same question: in a statement that writes nothing (whose
//! snapshot cannot change under it, `ExecContext::memo`), the nodes found
//! for the first row answer the others, instead of one index seek per row.

use super::flat_map::{Expander, Extensions};
use super::index_query::{answer, evaluate, seeks, through_index};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_planner::{Expr, IndexQuery, Slot};
use nereid_values::{NodeId, Value};
use std::sync::Arc;

pub(crate) struct NodeIndexSeek {
    out: Slot,
    query: IndexQuery,
    /// The query's values for the current batch's active rows.
    columns: Vec<Vec<Value>>,
    /// Whether every value is a literal or a parameter (the same for
    /// every row).
    fixed: bool,
    /// With `fixed`, in a statement that writes nothing: the nodes found,
    /// once found.
    found: Option<Arc<Vec<NodeId>>>,
}

impl NodeIndexSeek {
    pub(crate) fn new(out: Slot, query: IndexQuery) -> Self {
        let fixed = query
            .expressions()
            .iter()
            .all(|e| matches!(e, Expr::Literal(_) | Expr::Param(_)));
        NodeIndexSeek {
            out,
            query,
            columns: Vec::new(),
            fixed,
            found: None,
        }
    }

    /// The nodes the index finds for the row at `position`.
    fn nodes(&self, position: usize, ctx: &ExecContext) -> ExecResult<Vec<NodeId>> {
        let seeks = seeks(&self.query, &self.columns, position)?;
        let index = &self.query.index;
        let txn = &ctx.txn;
        Ok(
            through_index(&seeks, |seek| txn.seek_nodes(&index.name, seek)).unwrap_or_else(|| {
                // Not answerable through the index: the label scan and the
                // filter's test, for every seek at once.
                let candidates = txn.scan_nodes(Some(&index.label)).into_iter().map(|n| {
                    let values = index.keys.iter().map(|k| txn.node_property(n, k));
                    (n, values.collect())
                });
                answer(&self.query, &seeks, candidates)
            }),
        )
    }
}

impl Expander for NodeIndexSeek {
    fn start_batch(&mut self, batch: &Batch, ctx: &mut ExecContext) -> ExecResult<()> {
        if self.found.is_none() {
            self.columns = evaluate(&self.query, batch, ctx)?;
        }
        Ok(())
    }

    fn expand(
        &mut self,
        _batch: &Batch,
        position: usize,
        _row: usize,
        ctx: &mut ExecContext,
    ) -> ExecResult<Extensions> {
        let nodes = match &self.found {
            Some(found) => Arc::clone(found),
            None => {
                let nodes = Arc::new(self.nodes(position, ctx)?);
                if self.fixed && ctx.memo.is_some() {
                    self.found = Some(Arc::clone(&nodes));
                }
                nodes
            }
        };
        let out = self.out;
        Ok(Box::new((0..nodes.len()).map(move |i| {
            smallvec::smallvec![(out, Value::Node(nodes[i]))]
        })))
    }
}
