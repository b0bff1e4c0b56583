//! `Expand`: each input row extended with every relationship of the node in
//! `from` (and the relationship's other end). With `into`, the other end is
//! already bound and only relationships reaching it are kept.

use super::endpoints::endpoints;
use super::flat_map::{Expander, Extensions};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_planner::Slot;
use nereid_values::{Direction, Value};

pub(crate) struct Expand {
    pub(crate) from: Slot,
    pub(crate) rel: Slot,
    pub(crate) to: Slot,
    pub(crate) dir: Direction,
    pub(crate) types: Vec<String>,
    pub(crate) into: bool,
}

impl Expander for Expand {
    fn expand(
        &mut self,
        batch: &Batch,
        _position: usize,
        row: usize,
        ctx: &mut ExecContext,
    ) -> ExecResult<Extensions> {
        let Some((from, bound_to)) = endpoints(batch, row, self.from, self.to, self.into)? else {
            return Ok(Box::new(std::iter::empty()));
        };
        let (rel_slot, to_slot) = (self.rel, self.to);
        let neighbours = match bound_to {
            Some(to) => ctx.txn.expand_into(from, to, self.dir, &self.types),
            None => ctx.txn.expand(from, self.dir, &self.types),
        };
        Ok(Box::new(neighbours.into_iter().map(move |(rel, other)| {
            smallvec::smallvec![
                (rel_slot, Value::Relationship(rel)),
                (to_slot, Value::Node(other)),
            ]
        })))
    }
}
