//! Expressions that bind a local variable: list comprehensions, the list
//! predicates (all/any/none/single) and reduce.
//!
//! The planner gives each local variable its own slot. To evaluate the body
//! for the elements of a row's list, the row's slots the body reads are
//! copied once per element into a scratch batch with the element in that
//! slot (the lists of several rows share one scratch batch); the body is
//! then evaluated vectorised over the scratch batch.

use super::Evaluator;
use crate::batch::Batch;
use crate::error::{type_mismatch, ExecResult};
use nereid_planner::{Expr, Quantifier, Slot};
use nereid_values::Value;

/// The list a comprehension ranges over: `None` for null (the result is
/// null), an error for anything that is not a list.
fn as_list(value: Value) -> ExecResult<Option<Vec<Value>>> {
    match value.into_list() {
        Ok(items) => Ok(Some(items.into_vec())),
        Err(Value::Null) => Ok(None),
        Err(other) => Err(type_mismatch("List", &other)),
    }
}

/// Elements gathered into one scratch batch before the body is evaluated
/// over them: the lists of several rows share a batch, so a body holding a
/// pattern (`[p IN posts WHERE (p)-[:HAS_TAG]->()<-[:HAS_INTEREST]-(u)]`,
/// SNB IC10) runs its nested plan once per scratch batch instead of once
/// per row (see `pattern_batch`). A row's list is never split; one longer
/// than this makes a scratch batch of its own, as before.
const ELEMENTS_PER_SCRATCH: usize = 1024;

/// A gathered list: its output index and its elements' rows in the
/// scratch batch.
type Owner = (usize, std::ops::Range<usize>);

/// The elements of several rows' lists, each a copy of its row with the
/// element in the local variable's slot, and which output row owns which.
/// A copy holds only the slots the body reads (`slots`): the rest of a wide
/// row (a nested plan's rows are as wide as the whole statement's, and may
/// carry the very list being ranged over) would be copied once per element
/// for nothing (SNB IC10 ranges over every post of each candidate).
struct Scratch {
    var: Slot,
    slots: Vec<usize>,
    elements: Batch,
    owners: Vec<Owner>,
}

impl Scratch {
    /// A scratch batch as wide as `batch`, whose copies keep the slots
    /// read by `body` (the local variable is written, not copied).
    fn new(batch: &Batch, var: Slot, body: &[&Expr]) -> Self {
        let mut slots = Vec::new();
        for expr in body {
            nereid_planner::slots_of(expr, &mut slots);
        }
        slots.sort_unstable();
        slots.dedup();
        slots.retain(|&slot| slot != var && slot < batch.slot_count());
        Scratch {
            var,
            slots,
            elements: Batch::new(batch.slot_count()),
            owners: Vec::new(),
        }
    }

    /// Adds the elements of `batch`'s row `row`'s list, owned by output `at`.
    fn push(&mut self, at: usize, batch: &Batch, row: usize, items: Vec<Value>) {
        let first = self.elements.physical_len();
        for item in items {
            let mut element = [(self.var, item)];
            self.elements
                .push_extended_slots(batch, row, &self.slots, &mut element);
        }
        self.owners.push((at, first..self.elements.physical_len()));
    }

    fn is_full(&self) -> bool {
        self.elements.physical_len() >= ELEMENTS_PER_SCRATCH
    }

    /// The gathered elements as one batch, and their owners; `self` is
    /// left empty.
    fn take(&mut self) -> (Batch, Vec<Owner>) {
        let empty = Batch::new(self.elements.slot_count());
        (
            std::mem::replace(&mut self.elements, empty),
            std::mem::take(&mut self.owners),
        )
    }
}

impl Evaluator<'_> {
    pub(super) fn eval_list_comprehension(
        &mut self,
        var: Slot,
        list: &Expr,
        predicate: Option<&Expr>,
        projection: Option<&Expr>,
        batch: &Batch,
        rows: &[usize],
    ) -> ExecResult<Vec<Value>> {
        let body: Vec<&Expr> = predicate.into_iter().chain(projection).collect();
        self.over_elements(
            var,
            list,
            &body,
            batch,
            rows,
            |this, elements, owners, out| {
                this.comprehend(elements, owners, var, predicate, projection, out)
            },
        )
    }

    /// Gathers the elements of `list`'s value in each of `rows` into
    /// scratch batches and hands each to `body`, which evaluates
    /// `body_exprs` over them and writes the answers of the lists it owns
    /// into the output (left null for a null list).
    fn over_elements(
        &mut self,
        var: Slot,
        list: &Expr,
        body_exprs: &[&Expr],
        batch: &Batch,
        rows: &[usize],
        mut body: impl FnMut(&mut Self, &Batch, &[Owner], &mut [Value]) -> ExecResult<()>,
    ) -> ExecResult<Vec<Value>> {
        let lists = self.eval(list, batch, rows)?;
        let mut out = vec![Value::Null; rows.len()];
        let mut scratch = Scratch::new(batch, var, body_exprs);
        for (at, (&row, list)) in rows.iter().zip(lists).enumerate() {
            if let Some(items) = as_list(list)? {
                scratch.push(at, batch, row, items);
            }
            if scratch.is_full() || at + 1 == rows.len() {
                let (elements, owners) = scratch.take();
                body(self, &elements, &owners, &mut out)?;
            }
        }
        Ok(out)
    }

    /// Evaluates a comprehension's body over gathered `elements` and puts
    /// each owner's list into `out`.
    fn comprehend(
        &mut self,
        elements: &Batch,
        owners: &[Owner],
        var: Slot,
        predicate: Option<&Expr>,
        projection: Option<&Expr>,
        out: &mut [Value],
    ) -> ExecResult<()> {
        let mut kept: Vec<usize> = (0..elements.physical_len()).collect();
        if let Some(predicate) = predicate {
            let tests = self.eval(predicate, elements, &kept)?;
            kept = kept
                .into_iter()
                .zip(tests)
                .filter(|(_, t)| matches!(t, Value::Bool(true)))
                .map(|(r, _)| r)
                .collect();
        }
        let mut values = match projection {
            Some(projection) => self.eval(projection, elements, &kept)?,
            None => kept
                .iter()
                .map(|&r| elements.value(var, r).clone())
                .collect(),
        }
        .into_iter();
        // `kept` is ascending and the owners' ranges follow one another.
        let mut kept = kept.into_iter().peekable();
        for (at, range) in owners {
            let mut list = Vec::new();
            while kept.next_if(|r| range.contains(r)).is_some() {
                list.extend(values.next());
            }
            out[*at] = Value::List(list.into());
        }
        Ok(())
    }

    pub(super) fn eval_quantifier(
        &mut self,
        kind: Quantifier,
        var: Slot,
        list: &Expr,
        predicate: &Expr,
        batch: &Batch,
        rows: &[usize],
    ) -> ExecResult<Vec<Value>> {
        self.over_elements(
            var,
            list,
            &[predicate],
            batch,
            rows,
            |this, elements, owners, out| {
                let all: Vec<usize> = (0..elements.physical_len()).collect();
                let tests = this.eval(predicate, elements, &all)?;
                for (at, range) in owners {
                    out[*at] = quantified(kind, &tests[range.clone()]);
                }
                Ok(())
            },
        )
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn eval_reduce(
        &mut self,
        acc: Slot,
        init: &Expr,
        var: Slot,
        list: &Expr,
        step: &Expr,
        batch: &Batch,
        rows: &[usize],
    ) -> ExecResult<Vec<Value>> {
        let inits = self.eval(init, batch, rows)?;
        let lists = self.eval(list, batch, rows)?;
        let mut out = Vec::with_capacity(rows.len());
        for ((&row, init), list) in rows.iter().zip(inits).zip(lists) {
            let Some(items) = as_list(list)? else {
                out.push(Value::Null);
                continue;
            };
            let mut scratch_row = Batch::from_rows(batch.slot_count(), [batch.row(row)]);
            let mut accumulator = init;
            for item in items {
                // One step per element: a long list is a loop a RESET or a
                // client that left must be able to stop.
                self.check_cancelled()?;
                scratch_row.set(acc, 0, accumulator);
                scratch_row.set(var, 0, item);
                accumulator = self.eval_row(step, &scratch_row, 0)?;
            }
            out.push(accumulator);
        }
        Ok(out)
    }
}

/// `kind`'s answer over one list's element tests (true, false or null
/// each): null when the known tests do not decide it.
fn quantified(kind: Quantifier, tests: &[Value]) -> Value {
    let trues = tests.iter().filter(|t| **t == Value::Bool(true)).count();
    let falses = tests.iter().filter(|t| **t == Value::Bool(false)).count();
    let unknown = tests.len() - trues - falses > 0;
    let result = match kind {
        Quantifier::All if falses > 0 => Some(false),
        Quantifier::Any | Quantifier::None if trues > 0 => Some(kind == Quantifier::Any),
        Quantifier::Single if trues > 1 => Some(false),
        _ if unknown => None,
        Quantifier::All => Some(true),
        Quantifier::Any => Some(false),
        Quantifier::None => Some(true),
        Quantifier::Single => Some(trues == 1),
    };
    result.map(Value::Bool).unwrap_or_default()
}
