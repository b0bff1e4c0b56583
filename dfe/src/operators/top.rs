//! `Top`: ORDER BY with LIMIT, keeping only the best `limit` rows in a
//! bounded max-heap (memory O(limit), time O(n log limit)). Ties keep input
//! order, exactly as a stable sort followed by a limit would.
//!
//! The first key is evaluated for every row; the others only for a row
//! that may enter the heap (it is not full, or the row's first key is not
//! worse than the worst kept row's): a later key that reads the store
//! (`ORDER BY m.creationDate DESC, m.id`, after `project_after_top`) is
//! read for the few rows that tie or win, not for every row.
//!
//! With `admit` (rule `top_admits_filter`: the filters under it moved
//! in), a row is kept only when the predicate is true, and the predicate
//! is evaluated only for a row that may enter the heap: a row no better
//! than the worst kept one is not kept whatever the predicate says, and
//! the moved predicates cannot fail, so leaving them unevaluated on such
//! rows changes nothing. Most rows of a large input are such (IC9 tests
//! `message:Message` on ~124,000 messages for 20 kept).

use super::sort::{compare_keys, row_keys};
use super::{drain, evaluate_count, Operator, RowEmitter};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_planner::{Expr, SortKey};
use nereid_values::Value;
use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::sync::Arc;

pub(crate) struct Top {
    input: Box<dyn Operator>,
    keys: Vec<SortKey>,
    limit: Expr,
    admit: Option<Expr>,
    output: Option<RowEmitter>,
    /// The input holds an updating operator: run it even when no row is
    /// wanted (`LIMIT 0`), since its writes must happen.
    drain_input: bool,
}

impl Top {
    pub(crate) fn new(
        input: Box<dyn Operator>,
        keys: Vec<SortKey>,
        limit: Expr,
        admit: Option<Expr>,
        drain_input: bool,
    ) -> Top {
        Top {
            input,
            keys,
            limit,
            admit,
            output: None,
            drain_input,
        }
    }

    fn best_rows(&mut self, ctx: &mut ExecContext) -> ExecResult<Vec<Vec<Value>>> {
        let limit = evaluate_count(&self.limit, "LIMIT", ctx)?;
        if limit == 0 {
            if self.drain_input {
                drain(self.input.as_mut(), ctx)?;
            }
            return Ok(Vec::new());
        }
        let ascending: Arc<[bool]> = self.keys.iter().map(|k| k.ascending).collect();
        let mut heap = BinaryHeap::new();
        let mut sequence = 0u64;
        let (first, rest) = self.keys.split_at(1.min(self.keys.len()));
        while let Some(batch) = self.input.next(ctx)? {
            let keyed = row_keys(&batch, first, ctx)?;
            for (mut keys, &row) in keyed.into_iter().zip(batch.selection()) {
                sequence += 1;
                if heap.len() >= limit
                    && heap.peek().is_some_and(|worst: &Entry| {
                        compare_keys(&keys, &worst.keys[..keys.len()], &ascending)
                            == Ordering::Greater
                    })
                {
                    continue;
                }
                if let Some(admit) = &self.admit {
                    let admitted = ctx.evaluator().eval_row(admit, &batch, row)?;
                    if admitted != Value::Bool(true) {
                        continue;
                    }
                }
                for key in rest {
                    keys.push(ctx.evaluator().eval_row(&key.expr, &batch, row)?);
                }
                let mut entry = Entry {
                    keys,
                    sequence: sequence - 1,
                    row: Vec::new(),
                    ascending: Arc::clone(&ascending),
                };
                // A row no better than the worst of a full heap is not
                // copied: most rows of a large input are such.
                if heap.len() >= limit && heap.peek().is_some_and(|worst| entry >= *worst) {
                    continue;
                }
                entry.row = batch.row(row);
                heap.push(entry);
                if heap.len() > limit {
                    heap.pop();
                }
            }
        }
        Ok(heap.into_sorted_vec().into_iter().map(|e| e.row).collect())
    }
}

/// A candidate row; the heap's maximum is the worst row kept so far.
struct Entry {
    keys: Vec<Value>,
    /// Input position: among equal keys the earlier row is better.
    sequence: u64,
    row: Vec<Value>,
    ascending: Arc<[bool]>,
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        compare_keys(&self.keys, &other.keys, &self.ascending)
            .then_with(|| self.sequence.cmp(&other.sequence))
    }
}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Entry {}

impl Operator for Top {
    fn next(&mut self, ctx: &mut ExecContext) -> ExecResult<Option<Batch>> {
        if self.output.is_none() {
            let rows = self.best_rows(ctx)?;
            self.output = Some(RowEmitter::new(rows));
        }
        Ok(self.output.as_mut().and_then(|o| o.next_batch(ctx)))
    }
}
