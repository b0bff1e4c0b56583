//! The endpoints an expansion starts from and, with `into`, must reach:
//! shared by `Expand` and `VarExpand` so both treat nulls and non-nodes alike.

use crate::batch::Batch;
use crate::error::{type_mismatch, ExecResult};
use nereid_planner::Slot;
use nereid_values::{NodeId, Value};

/// `Ok(None)` when the row expands to nothing (a null start, or a null bound
/// end with `into`); otherwise the start node and, with `into`, the node the
/// expansion must end at. A non-node value is a type error.
pub(crate) fn endpoints(
    batch: &Batch,
    row: usize,
    from: Slot,
    to: Slot,
    into: bool,
) -> ExecResult<Option<(NodeId, Option<NodeId>)>> {
    let start = match batch.value(from, row) {
        Value::Null => return Ok(None),
        Value::Node(id) => *id,
        other => return Err(type_mismatch("Node", other)),
    };
    if !into {
        return Ok(Some((start, None)));
    }
    match batch.value(to, row) {
        Value::Node(id) => Ok(Some((start, Some(*id)))),
        Value::Null => Ok(None),
        other => Err(type_mismatch("Node", other)),
    }
}
