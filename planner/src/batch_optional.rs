//! Batched `OPTIONAL MATCH`: which `Optional`s the executor may run once per
//! input batch instead of once per input row (the pass behind
//! [`Op::Optional`]'s `origin`).
//!
//! Why: run per row, an `Optional` builds its inner pipeline afresh for
//! every outer row and each of its operators sees one row (or the few that
//! row expands to) at a time, so nothing inside can work set-at-a-time (an
//! `Expand` reads the store once per row) and the per-row set-up dominates
//! (SNB IC5 runs its inner plan for ~9,000 forums).
//!
//! When: the inner plan is a chain of operators that turn each row into
//! zero or more rows extending it, in input order, and copy every slot they
//! do not write (`Filter`, `Project`, `Expand`, `VarExpand`, `Unwind`) down
//! to its `Argument`. Run over a batch of argument rows, such a chain
//! emits each argument row's outputs together and in argument order, so
//! writing each argument row's position into a scratch slot tells, for
//! every output row, which outer row it belongs to, and which outer rows
//! had none (those get the null-extended row, as row by row).
//!
//! How: one scratch slot past the plan's slots, shared by every batched
//! `Optional` (an eligible inner plan holds no `Optional`, and an
//! `Optional` writes the slot afresh into its own argument rows, so an
//! earlier one's positions never reach a later one's reading).

use crate::plan::{Op, PhysicalPlan};

/// Sets `origin` on every `Optional` of `plan` (nested plans included, but
/// not those of pattern expressions, which the evaluator runs row by row)
/// whose inner plan is a row-by-row chain, and widens the plan by the slot.
pub(crate) fn mark_batched_optionals(plan: &mut PhysicalPlan) {
    let slot = plan.slot_count;
    if mark(&mut plan.root, slot) {
        plan.slot_count += 1;
    }
}

/// Marks the eligible `Optional`s under `op`; true when it marked one.
fn mark(op: &mut Op, slot: usize) -> bool {
    let mut marked = false;
    let mut current = Some(op);
    while let Some(op) = current {
        if let Op::Optional { inner, origin, .. } = op {
            if row_by_row_chain(inner) {
                *origin = Some(slot);
                marked = true;
            }
        }
        if let Some(nested) = op.nested_mut() {
            marked |= nereid_stack::deeper(|| mark(nested, slot));
        }
        current = op.input_mut();
    }
    marked
}

/// Whether `op` is a chain down to `Argument` of operators that extend
/// each row in input order and copy the slots they do not write.
fn row_by_row_chain(op: &Op) -> bool {
    let mut current = op;
    loop {
        match current {
            Op::Argument => return true,
            Op::Filter { input, .. }
            | Op::Project { input, .. }
            | Op::Expand { input, .. }
            | Op::VarExpand { input, .. }
            | Op::Unwind { input, .. } => current = input,
            _ => return false,
        }
    }
}
