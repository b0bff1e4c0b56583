//! The pre-test of an `Expand` whose other end filters above it compare
//! by a property with a literal or parameter (planner rule
//! `far_end_where`): each neighbour's stored value is tested with the
//! executor's own comparison (`pushed_test::is_true`) before its row is
//! built, so only neighbours for which every comparison is `true` become
//! rows. The filters stay above and decide the rows that are built; the
//! constants' errors (a missing parameter) are theirs too: when evaluating
//! a constant fails, every neighbour is admitted.

use super::pushed_test::is_true;
use crate::batch::Batch;
use crate::context::ExecContext;
use nereid_planner::{BinaryOp, PropertyPredicate, PropertyTest};
use nereid_storage::Txn;
use nereid_values::{NodeId, RelId, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

pub(crate) struct FarEndWhere {
    predicates: Vec<PropertyPredicate>,
    /// `(key, op, constant)` of each comparison: literals and parameters,
    /// the same for every row, so evaluated at the first row seen; `None`
    /// until then; an empty list when evaluating one failed.
    tests: Option<WhereTests>,
}

/// Neighbours tested before the share kept decides whether testing goes
/// on.
const TRIAL: usize = 2048;

/// The evaluated comparisons, shared with the neighbours' iterators, and
/// how many neighbours they tested and kept (the pre-test reads a kept
/// neighbour's value once more than the filter's own read does; where
/// most are kept, it only costs).
#[derive(Clone)]
pub(crate) struct WhereTests(Arc<(Vec<Comparison>, Counts)>);

/// `(key, op, constant)`: `stored key <op> constant` must be `true`.
type Comparison = (String, BinaryOp, Value);

#[derive(Default)]
struct Counts {
    tested: AtomicUsize,
    kept: AtomicUsize,
}

impl FarEndWhere {
    pub(crate) fn new(predicates: Vec<PropertyPredicate>) -> FarEndWhere {
        FarEndWhere {
            predicates,
            tests: None,
        }
    }

    /// The comparisons, their constants evaluated once, on the first
    /// `row` of a `batch` seen; `None` once the first [`TRIAL`] neighbours
    /// tested kept more than half (the filters above decide alone then).
    pub(crate) fn tests(
        &mut self,
        batch: &Batch,
        row: usize,
        ctx: &mut ExecContext,
    ) -> Option<WhereTests> {
        if let Some(tests) = &self.tests {
            let counts = &tests.0 .1;
            let tested = counts.tested.load(Ordering::Relaxed);
            let kept = counts.kept.load(Ordering::Relaxed);
            return (tested < TRIAL || kept.saturating_mul(2) <= tested).then(|| tests.clone());
        }
        let mut tests = Vec::with_capacity(self.predicates.len());
        for p in &self.predicates {
            let PropertyTest::Compare { op, value } = &p.test else {
                continue;
            };
            match ctx.evaluator().eval_row(value, batch, row) {
                Ok(constant) => tests.push((p.key.clone(), *op, constant)),
                Err(_) => {
                    tests.clear();
                    break;
                }
            }
        }
        let tests = WhereTests(Arc::new((tests, Counts::default())));
        self.tests = Some(tests.clone());
        Some(tests)
    }
}

impl WhereTests {
    /// The pairs whose other end makes every comparison `true` (an absent
    /// property is null, and no comparison with null is `true`), in their
    /// order; each key's values read as one column.
    pub(crate) fn retain(
        &self,
        txn: &Txn,
        mut pairs: Vec<(RelId, NodeId)>,
    ) -> Vec<(RelId, NodeId)> {
        let (tests, counts) = &*self.0;
        counts.tested.fetch_add(pairs.len(), Ordering::Relaxed);
        let mut done: Vec<&str> = Vec::new();
        for (key, _, _) in tests {
            if pairs.is_empty() || done.contains(&key.as_str()) {
                continue;
            }
            done.push(key);
            let ids: Vec<NodeId> = pairs.iter().map(|&(_, other)| other).collect();
            let values = txn.node_property_column(&ids, key);
            let mut kept = values.into_iter().map(|stored| {
                let stored = stored.unwrap_or(Value::Null);
                tests
                    .iter()
                    .filter(|(k, _, _)| k == key)
                    .all(|(_, op, constant)| is_true(*op, &stored, constant))
            });
            pairs.retain(|_| kept.next().unwrap_or(false));
        }
        counts.kept.fetch_add(pairs.len(), Ordering::Relaxed);
        pairs
    }
}
