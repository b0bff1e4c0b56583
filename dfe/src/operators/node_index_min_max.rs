//! `NodeIndexScan` for `min(n.p)` / `max(n.p)`, one or several in one row
//! (planner rule `min_max_from_index`): each answer read from one end of a
//! range index when the values there decide it, else the aggregate over
//! the label scan the rule replaced (one scan for all such answers), so the
//! row is always the scan's.
//!
//! The index lists values in key order, which is `ORDER BY`'s order
//! (`compare_for_order`, what `min`/`max` compare by) for numbers,
//! strings, booleans and byte arrays, and within them puts values that
//! compare equal together (numbers by their `f64` value: `1`, `1.0`, `0.0`
//! and `-0.0` share a group). Classes are ranked as `ORDER BY` ranks them,
//! so the first visible value from the end is in the class that holds the
//! answer. The index answers when that value is of one of those classes
//! and every value of its group is identical to it: then every visible
//! value is on one side of it and any scan order keeps that value. A group
//! of unlike values (`1` and `1.0`, an integer beyond 2^53 and a float
//! equal to it) or a first value of another class (lists, temporals,
//! durations, points, whose keys are not `ORDER BY`'s order) falls back to
//! the scan, where `min`/`max` keep the first of equal values in scan
//! order, as the aggregation would.

use super::{drain, Operator};
use crate::accumulator::Accumulator;
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_planner::{AggregateFunction, IndexDescriptor, Slot};
use nereid_storage::EntityKind;
use nereid_values::{compare_for_order, Value};
use std::cmp::Ordering;

/// Nodes whose property values are read per store call on the scan path.
const CHUNK: usize = 1024;

pub(crate) struct NodeIndexMinMax {
    input: Box<dyn Operator>,
    /// `(out, max)` per aggregate.
    extremes: Vec<(Slot, bool)>,
    index: IndexDescriptor,
    done: bool,
}

impl NodeIndexMinMax {
    pub(crate) fn new(
        input: Box<dyn Operator>,
        extremes: Vec<(Slot, bool)>,
        index: IndexDescriptor,
    ) -> NodeIndexMinMax {
        NodeIndexMinMax {
            input,
            extremes,
            index,
            done: false,
        }
    }

    /// The answer from the index's high (`max`) or low end; `None` when the
    /// index cannot decide it (or is gone).
    fn answer_from_index(&self, ctx: &ExecContext, max: bool) -> Option<Value> {
        let mut first: Option<Value> = None;
        let mut decided = true;
        ctx.txn
            .index_from_end(&self.index.name, EntityKind::Node, max, &mut |values| {
                let Some(value) = values.first() else {
                    return true;
                };
                match &first {
                    None if ordered_class(value) => {
                        first = Some(value.clone());
                        true
                    }
                    None => {
                        decided = false;
                        false
                    }
                    Some(f) if same_group(value, f) => {
                        decided = identical(value, f);
                        decided
                    }
                    Some(_) => false,
                }
            })?;
        decided.then(|| first.unwrap_or(Value::Null))
    }

    /// The aggregates (`max` or not, each) over one label scan, in the
    /// scan's order.
    fn answers_from_scan(&self, ctx: &ExecContext, maxes: &[bool]) -> ExecResult<Vec<Value>> {
        let mut accumulators: Vec<Accumulator> = maxes
            .iter()
            .map(|max| {
                let func = if *max {
                    AggregateFunction::Max
                } else {
                    AggregateFunction::Min
                };
                Accumulator::new(func, false)
            })
            .collect();
        let key = &self.index.keys[0];
        let nodes = ctx.txn.scan_nodes(Some(&self.index.label));
        for chunk in nodes.chunks(CHUNK) {
            ctx.check_stop()?;
            for value in ctx
                .txn
                .node_property_column(chunk, key)
                .into_iter()
                .flatten()
            {
                if value.is_null() {
                    continue;
                }
                if let Some((last, rest)) = accumulators.split_last_mut() {
                    for accumulator in rest {
                        accumulator.update(value.clone())?;
                    }
                    last.update(value)?;
                }
            }
        }
        Ok(accumulators.into_iter().map(Accumulator::finish).collect())
    }
}

impl Operator for NodeIndexMinMax {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        if self.done {
            return Ok(None);
        }
        self.done = true;
        drain(self.input.as_mut(), ctx)?;
        let mut answers: Vec<Option<Value>> = self
            .extremes
            .iter()
            .map(|(_, max)| self.answer_from_index(ctx, *max))
            .collect();
        let undecided: Vec<usize> = (0..answers.len())
            .filter(|i| answers[*i].is_none())
            .collect();
        if !undecided.is_empty() {
            let maxes: Vec<bool> = undecided.iter().map(|i| self.extremes[*i].1).collect();
            for (i, value) in undecided
                .into_iter()
                .zip(self.answers_from_scan(ctx, &maxes)?)
            {
                answers[i] = Some(value);
            }
        }
        let mut row = ctx.null_row();
        for ((out, _), value) in self.extremes.iter().zip(answers) {
            if let Some(cell) = row.get_mut(*out) {
                *cell = value.unwrap_or(Value::Null);
            }
        }
        Ok(Some(Batch::from_rows(ctx.slot_count, [row])))
    }
}

/// Whether the index orders `value`'s class as `ORDER BY` does.
fn ordered_class(value: &Value) -> bool {
    matches!(
        value,
        Value::Int(_) | Value::Float(_) | Value::String(_) | Value::Bool(_) | Value::Bytes(_)
    )
}

/// Whether `value` is in `first`'s seek group: numbers of the same `f64`
/// value (NaNs together), other values equal under `compare_for_order`.
fn same_group(value: &Value, first: &Value) -> bool {
    match (as_f64(value), as_f64(first)) {
        (Some(a), Some(b)) => a == b || (a.is_nan() && b.is_nan()),
        (None, None) => compare_for_order(value, first) == Ordering::Equal,
        _ => false,
    }
}

fn as_f64(value: &Value) -> Option<f64> {
    match value {
        Value::Int(i) => Some(*i as f64),
        Value::Float(f) => Some(*f),
        _ => None,
    }
}

/// The same value exactly: the same kind, and for floats the same bits
/// (`0.0` is not `-0.0`).
fn identical(value: &Value, first: &Value) -> bool {
    match (value, first) {
        (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
        (Value::Int(a), Value::Int(b)) => a == b,
        (Value::Int(_), _) | (_, Value::Int(_)) | (Value::Float(_), _) | (_, Value::Float(_)) => {
            false
        }
        _ => value == first,
    }
}
