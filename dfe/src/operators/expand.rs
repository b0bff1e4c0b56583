//! `Expand`: each input row extended with every relationship of the node in
//! `from` (and the relationship's other end). With `into`, the other end is
//! already bound and only relationships reaching it are kept.

use super::endpoints::endpoints;
use super::flat_map::{Expander, Extensions};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_planner::ExpandSpec;
use nereid_values::Value;

pub(crate) struct Expand {
    pub(crate) spec: ExpandSpec,
}

impl Expander for Expand {
    fn expand(
        &mut self,
        batch: &Batch,
        _position: usize,
        row: usize,
        ctx: &mut ExecContext,
    ) -> ExecResult<Extensions> {
        let spec = &self.spec;
        let Some((from, bound_to)) = endpoints(batch, row, spec.from, spec.to, spec.into)? else {
            return Ok(Box::new(std::iter::empty()));
        };
        let (rel_slot, to_slot) = (spec.rel, spec.to);
        let neighbours = match bound_to {
            Some(to) => ctx.txn.expand_into(from, to, spec.dir, &spec.types),
            None => ctx.txn.expand(from, spec.dir, &spec.types),
        };
        Ok(Box::new(neighbours.into_iter().map(move |(rel, other)| {
            smallvec::smallvec![
                (rel_slot, Value::Relationship(rel)),
                (to_slot, Value::Node(other)),
            ]
        })))
    }
}
