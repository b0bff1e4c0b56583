//! `NodePropertyScan`: each input row extended with every visible node
//! (of the label, if any) whose property passes the pushed predicate, the
//! store testing the stored values (`Apl::nodes_with_property`) with the
//! executor's own comparison (module `pushed_test`): exactly the rows the
//! filter it replaces would keep.
//!
//! The nodes are read once, on the first input row, and shared by later
//! rows, as `NodeScan` does (`flat_map::read_once`).

use super::flat_map::{read_once, Expander, Extensions};
use super::pushed_test::pushed_test;
use super::scan::node_rows;
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_planner::{PropertyPredicate, Slot};
use nereid_values::NodeId;
use std::sync::Arc;

pub(crate) struct NodePropertyScan {
    pub(crate) out: Slot,
    pub(crate) label: Option<String>,
    pub(crate) predicate: PropertyPredicate,
    pub(crate) nodes: Option<Arc<Vec<NodeId>>>,
}

impl Expander for NodePropertyScan {
    fn expand(
        &mut self,
        batch: &Batch,
        _position: usize,
        row: usize,
        ctx: &mut ExecContext,
    ) -> ExecResult<Extensions> {
        let (label, predicate) = (self.label.as_deref(), &self.predicate);
        let nodes = read_once(&mut self.nodes, || {
            let (fast, test) = pushed_test(predicate, batch, row, ctx)?;
            let mut found = Vec::new();
            ctx.txn
                .apl()
                .nodes_with_property(label, &predicate.key, fast, test, |n| found.push(n));
            Ok(found)
        })?;
        Ok(node_rows(self.out, nodes))
    }
}
