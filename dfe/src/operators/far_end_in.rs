//! The pre-test of an `Expand` whose other end a filter above it tests
//! with `to IN list` (planner rule `far_end_in`): the list, evaluated once
//! per input row, is turned into the set of node ids it holds, and the
//! expand builds rows only for neighbours in that set. The filter stays
//! above and decides the rows that are built (nulls in the list, a value
//! that is not a list and its error), so this only leaves out neighbours
//! whose test could not be `true`: a node is in a list only when the list
//! holds that node, and nothing is `IN null`.

use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_planner::Expr;
use nereid_values::{List, NodeId, Value};
use std::sync::Arc;

/// Which neighbours of one input row may become rows.
#[derive(Clone)]
pub(crate) enum Admitted {
    /// All of them: no pre-test, or the list is not a list (the filter
    /// above reports that).
    All,
    /// None: the list is null.
    Nothing,
    /// Those whose id is in the sorted, deduplicated ids.
    Only(Arc<Vec<u64>>),
}

impl Admitted {
    pub(crate) fn admits(&self, node: NodeId) -> bool {
        match self {
            Admitted::All => true,
            Admitted::Nothing => false,
            Admitted::Only(ids) => ids.binary_search(&node.0).is_ok(),
        }
    }
}

pub(crate) struct FarEndIn {
    list: Expr,
    /// The list's value per active position of the current batch; `None`
    /// when evaluating it failed (every neighbour is then admitted and the
    /// filter above meets the same failure on the rows it sees).
    lists: Option<Vec<Value>>,
    /// The ids of the last list turned into a set: rows of one batch often
    /// share one list (an aggregated `collect` repeated per expanded row).
    last: Option<(List, Arc<Vec<u64>>)>,
}

impl FarEndIn {
    pub(crate) fn new(list: Expr) -> FarEndIn {
        FarEndIn {
            list,
            lists: None,
            last: None,
        }
    }

    pub(crate) fn start_batch(&mut self, batch: &Batch, ctx: &mut ExecContext) -> ExecResult<()> {
        self.lists = ctx
            .evaluator()
            .eval(&self.list, batch, batch.selection())
            .ok();
        Ok(())
    }

    /// The neighbours the `position`-th active row of the batch may keep.
    pub(crate) fn admitted(&mut self, position: usize) -> Admitted {
        let Some(value) = self.lists.as_ref().and_then(|l| l.get(position)) else {
            return Admitted::All;
        };
        match value {
            Value::Null => Admitted::Nothing,
            Value::List(list) => {
                if let Some((seen, ids)) = &self.last {
                    if seen.ptr_eq(list) {
                        return Admitted::Only(Arc::clone(ids));
                    }
                }
                let mut ids: Vec<u64> = list
                    .iter()
                    .filter_map(|v| match v {
                        Value::Node(id) => Some(id.0),
                        _ => None,
                    })
                    .collect();
                ids.sort_unstable();
                ids.dedup();
                let ids = Arc::new(ids);
                self.last = Some((list.clone(), Arc::clone(&ids)));
                Admitted::Only(ids)
            }
            _ => Admitted::All,
        }
    }
}
