//! `Distinct`: drops rows whose values in the key slots were seen before
//! (grouping equality: `null` equals `null`, `1` equals `1.0`).

use super::Operator;
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use crate::memory::Reservation;
use nereid_planner::Slot;
use nereid_values::Value;
use std::collections::HashSet;

pub(crate) struct Distinct {
    input: Box<dyn Operator>,
    slots: Vec<Slot>,
    seen: HashSet<Vec<Value>>,
    /// The kept keys' charge against the query's memory budget.
    held: Option<Reservation>,
}

impl Distinct {
    pub(crate) fn new(input: Box<dyn Operator>, slots: Vec<Slot>) -> Distinct {
        Distinct {
            input,
            slots,
            seen: HashSet::new(),
            held: None,
        }
    }
}

impl Operator for Distinct {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        while let Some(mut batch) = self.input.next(ctx)? {
            let mut kept = Vec::new();
            for &row in batch.selection() {
                let key: Vec<Value> = self
                    .slots
                    .iter()
                    .map(|&slot| batch.value(slot, row).clone())
                    .collect();
                let bytes = crate::memory::column(&key);
                if self.seen.insert(key) {
                    self.held
                        .get_or_insert_with(|| ctx.reservation())
                        .grow(bytes)?;
                    kept.push(row);
                }
            }
            if !kept.is_empty() {
                batch.set_selection(kept);
                return Ok(Some(batch));
            }
        }
        Ok(None)
    }
}
