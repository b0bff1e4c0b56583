//! `RelationshipTypeScan`: each input row extended with every visible
//! relationship of the scan's types, read by type through the store's
//! access-pattern layer instead of scanning nodes and expanding each.
//!
//! With a pushed predicate the store tests the property's stored value
//! (`Apl::edges_with_property`) with the executor's own comparison
//! (module `eval::compare`), so only matching relationships become rows and
//! the answer is exactly the filter's: true keeps, false and null drop.
//!
//! The relationships are read once, on the first input row, and shared by
//! later rows, as `NodeScan` does: updating operators are eager, so nothing
//! upstream writes once the scan has started.

use super::flat_map::{Expander, Extension, Extensions};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use crate::eval::compare;
use nereid_planner::{BinaryOp, PropertyTest, RelPropertyPredicate, Slot};
use nereid_storage::apl::{Comparison, EdgeMatch, EdgePattern, Endpoint, ModeChoice, ValueTest};
use nereid_values::{Direction, Value};
use std::cmp::Ordering;
use std::sync::Arc;

pub(crate) struct RelTypeScan {
    pub(crate) from: Slot,
    pub(crate) rel: Slot,
    pub(crate) to: Slot,
    pub(crate) dir: Direction,
    pub(crate) types: Vec<String>,
    pub(crate) predicate: Option<Box<RelPropertyPredicate>>,
    pub(crate) edges: Option<Arc<Vec<EdgeMatch>>>,
}

impl RelTypeScan {
    fn read(&self, batch: &Batch, row: usize, ctx: &mut ExecContext) -> ExecResult<Vec<EdgeMatch>> {
        let mut edges = Vec::new();
        let Some(predicate) = &self.predicate else {
            let pattern = EdgePattern {
                src: Endpoint::Any,
                types: &self.types,
                dst: Endpoint::Any,
            };
            ctx.txn
                .apl()
                .edges(&pattern, None, ModeChoice::Auto, |m| edges.push(m));
            return Ok(edges);
        };
        let (fast, test): (Option<ValueTest>, StoredValueTest) = match &predicate.test {
            PropertyTest::IsNotNull => (None, Box::new(|_| true)),
            PropertyTest::Compare { op, value } => {
                let constant = ctx.evaluator().eval_row(value, batch, row)?;
                let op = *op;
                let fast = decided_in_store(op, &constant);
                (fast, Box::new(move |stored| is_true(op, stored, &constant)))
            }
        };
        ctx.txn
            .apl()
            .edges_with_property(&self.types, &predicate.key, fast, test, |m| edges.push(m));
        Ok(edges)
    }
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

/// The executor's test of a stored property value.
type StoredValueTest = Box<dyn Fn(&Value) -> bool>;

/// `stored <op> constant` is `true` (the only outcome a filter keeps).
fn is_true(op: BinaryOp, stored: &Value, constant: &Value) -> bool {
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

impl Expander for RelTypeScan {
    fn expand(
        &mut self,
        batch: &Batch,
        _position: usize,
        row: usize,
        ctx: &mut ExecContext,
    ) -> ExecResult<Extensions> {
        let edges = match &self.edges {
            Some(edges) => Arc::clone(edges),
            None => {
                let edges = Arc::new(self.read(batch, row, ctx)?);
                self.edges = Some(Arc::clone(&edges));
                edges
            }
        };
        let (from, rel, to, dir) = (self.from, self.rel, self.to, self.dir);
        let row_of = move |rel_id, a, b| -> Extension {
            smallvec::smallvec![
                (from, Value::Node(a)),
                (rel, Value::Relationship(rel_id)),
                (to, Value::Node(b)),
            ]
        };
        Ok(Box::new((0..edges.len()).flat_map(move |i| {
            let m = edges[i];
            let (first, second) = match dir {
                Direction::Outgoing => (Some((m.src, m.dst)), None),
                Direction::Incoming => (Some((m.dst, m.src)), None),
                // Both ways, a self-loop once (as Expand reports it).
                Direction::Both => (
                    Some((m.src, m.dst)),
                    (m.src != m.dst).then_some((m.dst, m.src)),
                ),
            };
            first
                .into_iter()
                .chain(second)
                .map(move |(a, b)| row_of(m.rel, a, b))
        })))
    }
}
