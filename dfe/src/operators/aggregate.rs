//! `Aggregate`: groups rows by key values and computes aggregates per group.
//!
//! Output rows hold only the key and aggregate slots. Groups are emitted in
//! the order they were first seen. Without grouping keys there is always
//! exactly one output row, even for empty input (`count(*)` = 0).

use super::{Operator, RowEmitter};
use crate::accumulator::Accumulator;
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use crate::memory::Reservation;
use nereid_planner::{Aggregate as AggregateCall, Expr, Slot};
use nereid_values::Value;
use std::collections::HashMap;

pub(crate) struct Aggregate {
    input: Box<dyn Operator>,
    keys: Vec<(Slot, Expr)>,
    aggregates: Vec<(Slot, AggregateCall)>,
    output: Option<RowEmitter>,
    /// The groups' keys and kept values, charged to the query's memory
    /// budget until the operator is dropped.
    held: Option<Reservation>,
}

/// One group: its key values and one accumulator per aggregate.
struct Group {
    key: Vec<Value>,
    accumulators: Vec<Accumulator>,
}

impl Aggregate {
    pub(crate) fn new(
        input: Box<dyn Operator>,
        keys: Vec<(Slot, Expr)>,
        aggregates: Vec<(Slot, AggregateCall)>,
    ) -> Aggregate {
        Aggregate {
            input,
            keys,
            aggregates,
            output: None,
            held: None,
        }
    }

    fn new_group(&self, key: Vec<Value>) -> Group {
        Group {
            key,
            accumulators: self
                .aggregates
                .iter()
                .map(|(_, call)| Accumulator::new(call.func, call.distinct))
                .collect(),
        }
    }

    /// Consumes the whole input into groups.
    fn group_input(&mut self, ctx: &mut ExecContext) -> ExecResult<Vec<Group>> {
        // foldhash, randomly seeded (keys are user data): grouping hashes
        // every input row's key, where SipHash showed in profiles.
        let mut index: HashMap<Vec<Value>, usize, foldhash::fast::RandomState> = HashMap::default();
        let mut groups: Vec<Group> = Vec::new();
        let mut held = ctx.reservation();
        while let Some(batch) = self.input.next(ctx)? {
            // Charged once per batch: new groups' keys, and the values that
            // accumulators keep.
            let mut bytes = 0usize;
            let rows = batch.selection();
            let mut key_columns = Vec::with_capacity(self.keys.len());
            for (_, expr) in &self.keys {
                key_columns.push(ctx.evaluator().eval(expr, &batch, rows)?.into_iter());
            }
            let mut arg_columns = Vec::with_capacity(self.aggregates.len());
            for (_, call) in &self.aggregates {
                arg_columns.push(match &call.arg {
                    Some(arg) => Some(ctx.evaluator().eval(arg, &batch, rows)?.into_iter()),
                    None => None,
                });
            }
            let mut percentile_columns = Vec::with_capacity(self.aggregates.len());
            for (_, call) in &self.aggregates {
                percentile_columns.push(match &call.percentile {
                    Some(p) => Some(ctx.evaluator().eval(p, &batch, rows)?.into_iter()),
                    None => None,
                });
            }
            // One key buffer for every row: only a new group keeps a copy
            // (most rows fall into a group seen before).
            let mut key: Vec<Value> = Vec::with_capacity(self.keys.len());
            for _ in rows {
                key.clear();
                key.extend(key_columns.iter_mut().map(|c| c.next().unwrap_or_default()));
                let group_index = match index.get(&key) {
                    Some(&i) => i,
                    None => {
                        bytes = bytes.saturating_add(
                            2 * crate::memory::column(&key)
                                + self.aggregates.len() * std::mem::size_of::<Accumulator>(),
                        );
                        index.insert(key.clone(), groups.len());
                        groups.push(self.new_group(key.clone()));
                        groups.len() - 1
                    }
                };
                let Some(group) = groups.get_mut(group_index) else {
                    continue;
                };
                for ((accumulator, column), percentiles) in group
                    .accumulators
                    .iter_mut()
                    .zip(&mut arg_columns)
                    .zip(&mut percentile_columns)
                {
                    if let Some(percentiles) = percentiles {
                        accumulator.set_percentile(&percentiles.next().unwrap_or_default())?;
                    }
                    // count(*) has no argument: every row counts.
                    let value = match column {
                        Some(values) => values.next().unwrap_or_default(),
                        None => Value::Bool(true),
                    };
                    if accumulator.keeps_values() {
                        bytes = bytes.saturating_add(value.footprint());
                    }
                    accumulator.update(value)?;
                }
            }
            held.grow(bytes)?;
        }
        self.held = Some(held);
        if self.keys.is_empty() && groups.is_empty() {
            groups.push(self.new_group(Vec::new()));
        }
        Ok(groups)
    }
}

impl Operator for Aggregate {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        if self.output.is_none() {
            let groups = self.group_input(ctx)?;
            let mut rows = Vec::with_capacity(groups.len());
            for group in groups {
                let mut row = ctx.null_row();
                let cells = self
                    .keys
                    .iter()
                    .map(|(slot, _)| *slot)
                    .zip(group.key)
                    .chain(
                        self.aggregates
                            .iter()
                            .map(|(slot, _)| *slot)
                            .zip(group.accumulators.into_iter().map(Accumulator::finish)),
                    );
                for (slot, value) in cells {
                    if let Some(cell) = row.get_mut(slot) {
                        *cell = value;
                    }
                }
                rows.push(row);
            }
            self.output = Some(RowEmitter::new(rows));
        }
        Ok(self.output.as_mut().and_then(|o| o.next_batch(ctx)))
    }
}
