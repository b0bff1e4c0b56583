//! `NodeCountFromCountStore` and `RelationshipCountFromCountStore`: the
//! answer of `MATCH (n:L) RETURN count(n)` (and of the single-relationship
//! shape) read from the store's per-snapshot counts instead of a scan
//! (planner rule `count_from_store`).
//!
//! Like an aggregation without keys it emits exactly one row, holding the
//! count in `out` and null elsewhere. The count is the transaction's view:
//! its snapshot plus its own writes (`Txn::count_nodes` / `count_rels`),
//! read when the operator runs, after its input (the plan's `Argument`)
//! is drained.

use super::{drain, Operator};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_planner::Slot;
use nereid_values::Value;

/// What is counted.
pub(crate) enum Counted {
    /// Nodes carrying the label (all nodes for `None`).
    Nodes(Option<String>),
    /// Relationships of one of the types (all for an empty list).
    Rels(Vec<String>),
}

pub(crate) struct CountFromStore {
    input: Box<dyn Operator>,
    out: Slot,
    counted: Counted,
    done: bool,
}

impl CountFromStore {
    pub(crate) fn new(input: Box<dyn Operator>, out: Slot, counted: Counted) -> CountFromStore {
        CountFromStore {
            input,
            out,
            counted,
            done: false,
        }
    }

    fn count(&self, ctx: &ExecContext) -> u64 {
        match &self.counted {
            Counted::Nodes(label) => ctx.txn.count_nodes(label.as_deref()),
            Counted::Rels(types) if types.is_empty() => ctx.txn.count_rels(None),
            Counted::Rels(types) => {
                let mut distinct: Vec<&String> = types.iter().collect();
                distinct.sort();
                distinct.dedup();
                distinct
                    .into_iter()
                    .map(|t| ctx.txn.count_rels(Some(t)))
                    .sum()
            }
        }
    }
}

impl Operator for CountFromStore {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        if self.done {
            return Ok(None);
        }
        self.done = true;
        drain(self.input.as_mut(), ctx)?;
        let count = i64::try_from(self.count(ctx)).unwrap_or(i64::MAX);
        let mut row = ctx.null_row();
        if let Some(cell) = row.get_mut(self.out) {
            *cell = Value::Int(count);
        }
        Ok(Some(Batch::from_rows(ctx.slot_count, [row])))
    }
}
