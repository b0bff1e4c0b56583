//! Answers of pattern expressions and comprehensions remembered per
//! argument, for one read-only statement.
//!
//! Why: a pattern comprehension runs its nested plan once per row, and rows
//! often repeat the values it reads. LDBC IC14 weighs each relationship of
//! every shortest path with two comprehensions; the paths share most of
//! their relationships, so the same nested plans ran for the same
//! relationship up to a hundred times (2.3 s for 99 paths). Like a SQL
//! engine's spool over a correlated subquery, the first answer for an
//! argument is kept and later rows with the same argument reuse it.
//!
//! Exact because, within a statement that writes nothing, a nested plan's
//! answer depends only on the outer slots it reads (`Expr::PatternList`'s
//! `reads`, the argument) and on the statement's snapshot, parameters and
//! time, which do not change while it runs. Two things could still make an
//! answer unrepeatable, and both are excluded: `rand()` (an answer whose
//! computation evaluated it is never kept: the evaluator marks the memo
//! while it runs) and procedure calls (a statement with one gets no memo).
//! Keys hold only values whose equality is identity (no floats, so `1` and
//! `1.0`, equal in Cypher but projected differently, never share an entry).
//! The memo stops growing past a byte budget; it only ever saves work.
//!
//! Nor is it consulted for a nested plan whose arguments do not come back:
//! after a trial of lookups (as the adjacency memo's,
//! `adjacency_memo::worthwhile`), a plan whose lookups rarely hit is run
//! without the memo. IC10 asks its comprehension about each of thousands
//! of posts once; a lookup (a copied key, a hash, a lock) and a kept answer
//! per post were a tenth of its time and saved nothing.

use super::adjacency_memo::{worthwhile, AdjacencyMemo};
use super::node_facts_memo::NodeFacts;
use nereid_values::Value;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// How much the remembered answers may hold, keys included: past it, new
/// answers are computed and not kept.
const MEMO_BYTES: usize = 32 << 20;

/// One statement's remembered answers, shared by all its evaluators.
#[derive(Default)]
pub struct PatternMemo {
    entries: Mutex<Entries>,
    /// How many times `rand()` was evaluated: an answer during whose
    /// computation it moved is not repeatable, so it is not kept (a count,
    /// not a flag, so that nested answers computed inside another do not
    /// hide the outer one's).
    volatile: AtomicU64,
    /// Nodes' relationships read by the nested plans' expands
    /// (`adjacency_memo.rs`).
    pub(crate) adjacency: AdjacencyMemo,
    /// Nodes' label tests and property values read by the nested plans'
    /// expressions (`node_facts_memo.rs`).
    pub(crate) labels: NodeFacts<bool>,
    pub(crate) properties: NodeFacts<Option<Value>>,
    /// Nodes' degrees by direction and types (`Expr::Degree`, which rule
    /// `walk_from_lighter_end` asks of the same two ends in both branches
    /// and IC14 of the same persons for every path relationship: a count
    /// over every relationship of the node each time).
    pub(crate) degrees: NodeFacts<u64>,
}

#[derive(Default)]
struct Entries {
    /// (the nested plan's address, exists, the argument) → the answer.
    answers: HashMap<(usize, bool, Vec<Value>), Value, foldhash::fast::RandomState>,
    bytes: usize,
    /// (the nested plan's address, exists) → its lookups and hits, for
    /// [`PatternMemo::worthwhile`].
    asked: HashMap<(usize, bool), (u64, u64), foldhash::fast::RandomState>,
}

/// The memo key of an argument, or `None` when some value's equality is
/// not identity.
pub(super) fn key_of(argument: Vec<Value>) -> Option<Vec<Value>> {
    argument.iter().all(identity_equal).then_some(argument)
}

fn identity_equal(value: &Value) -> bool {
    match value {
        Value::Null
        | Value::Bool(_)
        | Value::Int(_)
        | Value::String(_)
        | Value::Node(_)
        | Value::Relationship(_)
        | Value::Path(_) => true,
        Value::List(items) => items.iter().all(identity_equal),
        _ => false,
    }
}

impl PatternMemo {
    pub(super) fn get(&self, plan: usize, exists: bool, key: &[Value]) -> Option<Value> {
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        // The tuple key is owned; probing with a borrowed slice would need
        // a wrapper type for one lookup per row that is cheap beside the
        // nested plan it saves.
        let found = entries.answers.get(&(plan, exists, key.to_vec())).cloned();
        let counts = entries.asked.entry((plan, exists)).or_default();
        counts.0 += 1;
        counts.1 += u64::from(found.is_some());
        found
    }

    /// Whether the answers of `plan` (with `exists`) are worth looking up
    /// and keeping: until its trial of lookups is over, or while enough of
    /// them hit (`adjacency_memo::worthwhile`); when not, callers run the
    /// plan for every argument.
    pub(super) fn worthwhile(&self, plan: usize, exists: bool) -> bool {
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let (lookups, hits) = entries
            .asked
            .get(&(plan, exists))
            .copied()
            .unwrap_or_default();
        worthwhile(lookups, hits)
    }

    /// The mark to pass to [`PatternMemo::put`] once the answer about to
    /// be computed is known.
    pub(super) fn start(&self) -> u64 {
        self.volatile.load(Ordering::Relaxed)
    }

    /// Marks every answer being computed as unrepeatable (`rand()` ran).
    pub(super) fn mark_volatile(&self) {
        self.volatile.fetch_add(1, Ordering::Relaxed);
    }

    /// Keeps `answer` unless `rand()` ran since `started` or the budget is
    /// spent.
    pub(super) fn put(
        &self,
        plan: usize,
        exists: bool,
        key: Vec<Value>,
        answer: &Value,
        started: u64,
    ) {
        if self.volatile.load(Ordering::Relaxed) != started {
            return;
        }
        let size = answer.heap_footprint()
            + key.iter().map(Value::heap_footprint).sum::<usize>()
            + std::mem::size_of::<Value>() * (key.len() + 1);
        let mut entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        if entries.bytes + size > MEMO_BYTES {
            return;
        }
        entries.bytes += size;
        entries.answers.insert((plan, exists, key), answer.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::adjacency_memo::TRIAL_LOOKUPS;

    /// A plan whose arguments never come back is dropped from the memo
    /// after its trial; one whose arguments do stays, and each plan (and
    /// its `exists` form) is judged on its own lookups.
    #[test]
    fn a_plan_whose_lookups_never_hit_stops_being_remembered_after_its_trial() {
        let memo = PatternMemo::default();
        let (fresh, repeated) = (1usize, 2usize);
        let started = memo.start();
        for i in 0..TRIAL_LOOKUPS as i64 {
            assert!(memo.worthwhile(fresh, false), "still on trial at {i}");
            let key = vec![Value::Int(i)];
            assert_eq!(memo.get(fresh, false, &key), None);
            memo.put(fresh, false, key, &Value::Bool(true), started);

            let key = vec![Value::Int(i % 4)];
            if memo.get(repeated, false, &key).is_none() {
                memo.put(repeated, false, key, &Value::Int(i % 4), started);
            }
        }
        assert!(!memo.worthwhile(fresh, false));
        assert!(memo.worthwhile(repeated, false));
        assert!(
            memo.worthwhile(fresh, true),
            "the exists form has its own trial"
        );
        // What was kept is still the kept answer: dropping is not forgetting
        // wrongly, and a later argument still gets the plan's own answer.
        assert_eq!(
            memo.get(repeated, false, &[Value::Int(3)]),
            Some(Value::Int(3))
        );
    }
}
