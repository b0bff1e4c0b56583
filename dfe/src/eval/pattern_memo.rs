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

use super::adjacency_memo::AdjacencyMemo;
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
}

#[derive(Default)]
struct Entries {
    /// (the nested plan's address, exists, the argument) → the answer.
    answers: HashMap<(usize, bool, Vec<Value>), Value, foldhash::fast::RandomState>,
    bytes: usize,
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
        let entries = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        // The tuple key is owned; probing with a borrowed slice would need
        // a wrapper type for one lookup per row that is cheap beside the
        // nested plan it saves.
        entries.answers.get(&(plan, exists, key.to_vec())).cloned()
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
