//! `NodeByPropertySeek`: each input row extended with the visible nodes
//! whose property `key` is the string the seek's value evaluates to for
//! that row, found through the store's index of string values
//! (`Txn::nodes_with_string_property`). When the value is not a string the
//! seek reads what the scan it replaced would have (every node, or every
//! node with the label): the equality filter above it decides in both
//! cases, so the rows are exactly the filter's.

use super::flat_map::{Expander, Extensions};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_planner::{Expr, Slot};
use nereid_values::Value;

pub(crate) struct NodePropertySeek {
    out: Slot,
    label: Option<String>,
    key: String,
    value: Expr,
    /// The value evaluated for the current batch's active rows.
    values: Vec<Value>,
}

impl NodePropertySeek {
    pub(crate) fn new(out: Slot, label: Option<String>, key: String, value: Expr) -> Self {
        NodePropertySeek {
            out,
            label,
            key,
            value,
            values: Vec::new(),
        }
    }
}

impl Expander for NodePropertySeek {
    fn start_batch(&mut self, batch: &Batch, ctx: &mut ExecContext) -> ExecResult<()> {
        self.values = ctx
            .evaluator()
            .eval(&self.value, batch, batch.selection())?;
        Ok(())
    }

    fn expand(
        &mut self,
        _batch: &Batch,
        position: usize,
        _row: usize,
        ctx: &mut ExecContext,
    ) -> ExecResult<Extensions> {
        let label = self.label.as_deref();
        let nodes = match self.values.get(position) {
            Some(Value::String(value)) => {
                ctx.txn.nodes_with_string_property(label, &self.key, value)
            }
            _ => ctx.txn.scan_nodes(label),
        };
        let out = self.out;
        Ok(Box::new(
            nodes
                .into_iter()
                .map(move |n| smallvec::smallvec![(out, Value::Node(n))]),
        ))
    }
}
