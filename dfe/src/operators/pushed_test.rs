//! The test a scan with a pushed property predicate hands the store
//! (`RelationshipTypeScan`, `NodePropertyScan`): the executor's own
//! comparison (module `eval::compare`), so the rows are exactly those the
//! filter it replaces keeps (true keeps; false and null drop), plus the
//! part of it the store can decide on stored bits ([`ValueTest`]).

use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use crate::eval::compare;
use nereid_planner::{BinaryOp, PropertyPredicate, PropertyTest};
use nereid_storage::apl::{Comparison, ValueTest};
use nereid_values::Value;
use std::cmp::Ordering;

/// The executor's test of a stored property value.
pub(crate) type StoredValueTest = Box<dyn Fn(&Value) -> bool>;

/// The store's and the executor's forms of `predicate`, its constant
/// evaluated for `row` of `batch` (a literal or parameter: the same for
/// every row).
pub(crate) fn pushed_test(
    predicate: &PropertyPredicate,
    batch: &Batch,
    row: usize,
    ctx: &mut ExecContext,
) -> ExecResult<(Option<ValueTest>, StoredValueTest)> {
    Ok(match &predicate.test {
        PropertyTest::IsNotNull => (None, Box::new(|_| true)),
        PropertyTest::Compare { op, value } => {
            let constant = ctx.evaluator().eval_row(value, batch, row)?;
            let op = *op;
            let fast = decided_in_store(op, &constant);
            (fast, Box::new(move |stored| is_true(op, stored, &constant)))
        }
    })
}

/// The part of `stored <op> constant` the store decides on stored bits: a
/// stored value of the constant's own type (integer or float) compares as
/// `is_true` would compare it; anything else still goes through `is_true`.
fn decided_in_store(op: BinaryOp, constant: &Value) -> Option<ValueTest> {
    let comparison = match op {
        BinaryOp::Less => Comparison::Less,
        BinaryOp::LessEqual => Comparison::LessEqual,
        BinaryOp::Greater => Comparison::Greater,
        BinaryOp::GreaterEqual => Comparison::GreaterEqual,
        BinaryOp::Equal => Comparison::Equal,
        _ => return None,
    };
    match constant {
        Value::Int(c) => Some(ValueTest::Int(comparison, *c)),
        Value::Float(c) => Some(ValueTest::Float(comparison, *c)),
        _ => None,
    }
}

/// `stored <op> constant` is `true` (the only outcome a filter keeps).
pub(crate) fn is_true(op: BinaryOp, stored: &Value, constant: &Value) -> bool {
    let outcome = match op {
        BinaryOp::Equal => compare::equal(stored, constant),
        BinaryOp::NotEqual => compare::not_equal(stored, constant),
        BinaryOp::Less => compare::ordering(stored, constant, Ordering::is_lt),
        BinaryOp::LessEqual => compare::ordering(stored, constant, Ordering::is_le),
        BinaryOp::Greater => compare::ordering(stored, constant, Ordering::is_gt),
        BinaryOp::GreaterEqual => compare::ordering(stored, constant, Ordering::is_ge),
        // The planner pushes only the comparisons above.
        _ => Value::Null,
    };
    outcome == Value::Bool(true)
}
