//! `NodeByIdSeek`: each input row extended with the visible nodes whose
//! `id(n)` (or `elementId(n)`) is in a list evaluated for that row.
//!
//! The list's elements follow the `id(n) = x` comparison they replace: an
//! integer (or a float with an integral value, since `1 = 1.0`) names a
//! node by id, a string by element id; null, other types and unknown ids
//! name none; a node named twice is produced once.

use super::flat_map::{Expander, Extensions};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_planner::{Expr, Slot};
use nereid_values::{List, Value};

pub(crate) struct NodeIdSeek {
    ids: Expr,
    out: Slot,
    /// Element ids (strings) rather than integer ids.
    element: bool,
    /// The id list evaluated for the current batch's active rows.
    values: Vec<Value>,
}

impl NodeIdSeek {
    pub(crate) fn new(ids: Expr, out: Slot, element: bool) -> NodeIdSeek {
        NodeIdSeek {
            ids,
            out,
            element,
            values: Vec::new(),
        }
    }
}

/// The integer an id comparison would match, if any.
fn as_id(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Some(*f as i64),
        _ => None,
    }
}

impl Expander for NodeIdSeek {
    fn start_batch(&mut self, batch: &Batch, ctx: &mut ExecContext) -> ExecResult<()> {
        self.values = ctx.evaluator().eval(&self.ids, batch, batch.selection())?;
        Ok(())
    }

    fn expand(
        &mut self,
        _batch: &Batch,
        position: usize,
        _row: usize,
        ctx: &mut ExecContext,
    ) -> ExecResult<Extensions> {
        let list = match self.values.get_mut(position) {
            Some(Value::List(items)) => items.take(),
            _ => List::new(),
        };
        let mut found = Vec::new();
        for value in &list {
            let node = match value {
                Value::String(s) if self.element => ctx.txn.node_by_element_id(s),
                _ if self.element => None,
                other => as_id(other).and_then(|id| ctx.txn.node_by_external_id(id)),
            };
            if let Some(node) = node {
                if !found.contains(&node) {
                    found.push(node);
                }
            }
        }
        let out = self.out;
        Ok(Box::new(
            found
                .into_iter()
                .map(move |n| smallvec::smallvec![(out, Value::Node(n))]),
        ))
    }
}
