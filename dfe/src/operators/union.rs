//! `Union` (UNION ALL): every row of the first part, then every row of each
//! following part, in order. All parts write the same result slots; UNION's
//! duplicate removal is a `Distinct` above this operator.
//!
//! The plan is a left-deep chain of binary `Union`s (`q1 UNION q2 UNION q3`
//! is `Union(Union(q1, q2), q3)`); the executor runs a whole chain as one
//! operator over its parts. Run as nested binary operators, each batch of
//! the first part climbed through every level of the chain: quadratic in
//! the number of parts (8,000 parts took seconds).

use super::Operator;
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use std::ops::Range;

pub(crate) struct Union {
    /// The parts in output order.
    parts: Vec<Box<dyn Operator>>,
    /// The part being read.
    current: usize,
    /// The plan ids of the chain's `Union` operators, top first: a batch of
    /// part `i` counts as a row of levels `0..levels_above(i)` (PROFILE's
    /// row counts stay those of the nested binary operators).
    levels: Range<usize>,
}

impl Union {
    /// `levels` holds one id per `Union` of the chain: `parts.len() - 1`.
    pub(crate) fn new(parts: Vec<Box<dyn Operator>>, levels: Range<usize>) -> Union {
        debug_assert_eq!(levels.len() + 1, parts.len());
        Union {
            parts,
            current: 0,
            levels,
        }
    }

    /// The ids of the unions whose subtree holds part `part`: every level
    /// down to the one whose other branch it is (the first part is under
    /// all of them).
    fn counted_levels(&self, part: usize) -> Range<usize> {
        let depth = self.levels.len();
        let deepest = depth - part.max(1);
        self.levels.start..self.levels.start + deepest + 1
    }
}

impl Operator for Union {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        while let Some(part) = self.parts.get_mut(self.current) {
            if let Some(batch) = part.next(ctx)? {
                let levels = self.counted_levels(self.current);
                ctx.record_rows_in(levels, batch.active_len());
                return Ok(Some(batch));
            }
            self.current += 1;
        }
        Ok(None)
    }
}
