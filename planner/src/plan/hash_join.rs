//! What a hash join asks for ([`super::Op::HashJoin`]): the keys of each
//! side, the slots the other side contributes, and which side is hashed.
//! Boxed in the operator, as large payloads are.

use crate::expr::{Expr, Slot};

/// Rows of the operator's `input` (the left side) joined with the rows of
/// its `right` plan (built on the same `Argument` as the join) where every
/// `left_keys[i]` equals `right_keys[i]` under Cypher's `=` (a null never
/// matches anything; `1` matches `1.0`). An output row is the left row
/// with `right_slots` taken from the right row.
#[derive(Clone, Debug, PartialEq)]
pub struct HashJoinSpec {
    /// Evaluated on the left (input) rows.
    pub left_keys: Vec<Expr>,
    /// Evaluated on the right rows, pairwise with `left_keys`.
    pub right_keys: Vec<Expr>,
    /// The slots the right side binds, copied into the output rows.
    pub right_slots: Vec<Slot>,
    /// Left outer join (OPTIONAL MATCH): a left row without a match is
    /// kept once, with `right_slots` null.
    pub outer: bool,
    /// Hash the left side and stream the right (chosen when the left is
    /// estimated smaller; inner joins only). Otherwise the right side is
    /// hashed and the left streams, which keeps the left side's row order.
    pub build_left: bool,
    /// The planner's estimate of the rows the join emits (EXPLAIN).
    pub estimated_rows: u64,
}
