//! `AllNodesScan` and `NodeByLabelScan`: each input row extended with every
//! visible node (carrying the label, if any).
//!
//! The id list is fetched from the store once, on the first input row, and
//! shared by later rows: updating operators are eager, so nothing upstream
//! writes once this scan has started pulling rows. Rows are still emitted
//! batch by batch.

use super::flat_map::{read_once, Expander, Extensions};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_planner::Slot;
use nereid_values::{NodeId, Value};
use std::sync::Arc;

pub(crate) struct NodeScan {
    out: Slot,
    label: Option<String>,
    ids: Option<Arc<Vec<NodeId>>>,
}

impl NodeScan {
    pub(crate) fn new(out: Slot, label: Option<String>) -> NodeScan {
        NodeScan {
            out,
            label,
            ids: None,
        }
    }
}

impl Expander for NodeScan {
    fn expand(
        &mut self,
        _batch: &Batch,
        _position: usize,
        _row: usize,
        ctx: &mut ExecContext,
    ) -> ExecResult<Extensions> {
        let label = self.label.as_deref();
        let ids = read_once(&mut self.ids, || Ok(ctx.txn.scan_nodes(label)))?;
        Ok(node_rows(self.out, ids))
    }
}

/// One output row per node of `ids`, the node in `out`.
pub(crate) fn node_rows(out: Slot, ids: Arc<Vec<NodeId>>) -> Extensions {
    Box::new((0..ids.len()).filter_map(move |i| {
        ids.get(i)
            .map(|&id| smallvec::smallvec![(out, Value::Node(id))])
    }))
}
