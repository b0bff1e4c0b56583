//! `NodePropertyScan`: each input row extended with every visible node
//! (of the label, if any) whose property passes the pushed predicate, the
//! store testing the stored values (`Apl::nodes_with_property`) with the
//! executor's own comparison (module `pushed_test`): exactly the rows the
//! filter it replaces would keep.
//!
//! The nodes are read once, on the first input row, and shared by later
//! rows, as `NodeScan` does: updating operators are eager, so nothing
//! upstream writes once the scan has started.

use super::flat_map::{Expander, Extensions};
use super::pushed_test::pushed_test;
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_planner::{PropertyPredicate, Slot};
use nereid_values::{NodeId, Value};
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
        let nodes = match &self.nodes {
            Some(nodes) => Arc::clone(nodes),
            None => {
                let (fast, test) = pushed_test(&self.predicate, batch, row, ctx)?;
                let mut found = Vec::new();
                ctx.txn.apl().nodes_with_property(
                    self.label.as_deref(),
                    &self.predicate.key,
                    fast,
                    test,
                    |n| found.push(n),
                );
                let found = Arc::new(found);
                self.nodes = Some(Arc::clone(&found));
                found
            }
        };
        let out = self.out;
        Ok(Box::new((0..nodes.len()).filter_map(move |i| {
            nodes
                .get(i)
                .map(|&n| smallvec::smallvec![(out, Value::Node(n))])
        })))
    }
}
