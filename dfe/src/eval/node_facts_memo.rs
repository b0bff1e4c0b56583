//! Label tests, property values and degrees remembered per node for one
//! read-only statement, for the expressions of its nested plans.
//!
//! Why: with the adjacency memo (`adjacency_memo.rs`) a nested plan that
//! walks nodes an earlier argument walked no longer reads the store for
//! their relationships, but each reached node's label test (`(:Comment)`,
//! `(:Post)` in LDBC IC14's comprehensions) and property read (`b.id`)
//! still did: a probe of the node's tuples, cache misses each time. A
//! node's labels and properties do not change within a statement that
//! writes nothing, so the first answer per node and label or key is kept,
//! in the statement's [`super::PatternMemo`] (it exists exactly where that
//! one may). Past a byte budget nothing new is kept.

use super::adjacency_memo::worthwhile;
use nereid_values::{NodeId, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

/// How much all remembered answers may hold (entries counted at 32 bytes
/// plus a value's heap footprint).
const FACT_BYTES: usize = 16 << 20;

type ByNode<T> = HashMap<NodeId, T, foldhash::fast::RandomState>;

/// A statement's answers of one kind (labels, or property values), by
/// label or key and node.
pub(crate) struct NodeFacts<T> {
    answers: Mutex<(HashMap<String, ByNode<T>>, usize)>,
    /// Nodes asked and found, for [`NodeFacts::worthwhile`].
    lookups: AtomicU64,
    hits: AtomicU64,
}

impl<T> Default for NodeFacts<T> {
    fn default() -> Self {
        NodeFacts {
            answers: Mutex::default(),
            lookups: AtomicU64::new(0),
            hits: AtomicU64::new(0),
        }
    }
}

/// What an answer holds on the heap, for the budget.
pub(crate) trait Footprint {
    fn bytes(&self) -> usize;
}

impl Footprint for bool {
    fn bytes(&self) -> usize {
        0
    }
}

impl Footprint for u64 {
    fn bytes(&self) -> usize {
        0
    }
}

impl Footprint for Option<Value> {
    fn bytes(&self) -> usize {
        self.as_ref().map_or(0, Value::heap_footprint)
    }
}

impl<T: Clone + Footprint> NodeFacts<T> {
    /// Whether nodes come back often enough to be worth remembering
    /// (as `adjacency_memo::worthwhile`); when not, callers read the store.
    pub(crate) fn worthwhile(&self) -> bool {
        worthwhile(
            self.lookups.load(Ordering::Relaxed),
            self.hits.load(Ordering::Relaxed),
        )
    }

    /// The answer for each of `nodes` under `name`: remembered, or read by
    /// `read` for all the missing nodes at once (aligned with its input)
    /// and kept.
    pub(crate) fn column(
        &self,
        nodes: &[NodeId],
        name: &str,
        read: impl FnOnce(&[NodeId]) -> Vec<T>,
    ) -> Vec<T> {
        let mut found: Vec<Option<T>> = {
            let answers = self.lock();
            let known = answers.0.get(name);
            nodes
                .iter()
                .map(|n| known.and_then(|k| k.get(n).cloned()))
                .collect()
        };
        // Each node missing once, however often the column asks for it (a
        // batched nested plan asks for a node once per argument that walks
        // it): a repeat is answered by the one read, and counts as a hit.
        let mut first_ask: ByNode<usize> = ByNode::default();
        let mut missing: Vec<NodeId> = Vec::new();
        let mut asks: Vec<usize> = Vec::new();
        for (&node, _) in nodes.iter().zip(&found).filter(|(_, f)| f.is_none()) {
            let at = *first_ask.entry(node).or_insert_with(|| {
                missing.push(node);
                missing.len() - 1
            });
            asks.push(at);
        }
        self.lookups
            .fetch_add(nodes.len() as u64, Ordering::Relaxed);
        self.hits
            .fetch_add((nodes.len() - missing.len()) as u64, Ordering::Relaxed);
        if !missing.is_empty() {
            let read = read(&missing);
            let mut answers = self.lock();
            let (tables, bytes) = &mut *answers;
            let table = match tables.get_mut(name) {
                Some(table) => table,
                None => tables.entry(name.to_string()).or_default(),
            };
            for (&node, answer) in missing.iter().zip(&read) {
                let size = 32 + answer.bytes();
                if *bytes + size <= FACT_BYTES {
                    *bytes += size;
                    table.insert(node, answer.clone());
                }
            }
            drop(answers);
            let mut asks = asks.into_iter();
            for slot in found.iter_mut().filter(|f| f.is_none()) {
                *slot = asks.next().and_then(|at| read.get(at).cloned());
            }
        }
        found.into_iter().flatten().collect()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (HashMap<String, ByNode<T>>, usize)> {
        self.answers.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_as_read_whether_remembered_or_not() {
        let facts: NodeFacts<Option<Value>> = NodeFacts::default();
        let stored = |n: &NodeId| (!n.0.is_multiple_of(3)).then(|| Value::Int(n.0 as i64 * 2));
        let nodes: Vec<NodeId> = [4, 3, 4, 8].map(NodeId).to_vec();
        let first = facts.column(&nodes, "id", |m| m.iter().map(stored).collect());
        assert_eq!(first, nodes.iter().map(stored).collect::<Vec<_>>());
        let more: Vec<NodeId> = [8, 5, 3].map(NodeId).to_vec();
        let mut asked = Vec::new();
        let second = facts.column(&more, "id", |m| {
            asked = m.to_vec();
            m.iter().map(stored).collect()
        });
        assert_eq!(second, more.iter().map(stored).collect::<Vec<_>>());
        assert_eq!(
            asked,
            vec![NodeId(5)],
            "3 and 8 were remembered, absent or not"
        );
        // Another key has its own answers.
        let other = facts.column(&more, "name", |m| m.iter().map(|_| None).collect());
        assert_eq!(other, vec![None, None, None]);
    }

    #[test]
    fn a_node_asked_twice_in_one_column_is_read_once_and_counts_as_a_hit() {
        let facts: NodeFacts<bool> = NodeFacts::default();
        let nodes: Vec<NodeId> = [7, 2, 7, 7, 9, 2].map(NodeId).to_vec();
        let mut asked = Vec::new();
        let answers = facts.column(&nodes, "Comment", |m| {
            asked = m.to_vec();
            m.iter().map(|n| n.0 != 9).collect()
        });
        assert_eq!(answers, vec![true, true, true, true, false, true]);
        assert_eq!(asked, vec![NodeId(7), NodeId(2), NodeId(9)]);
        assert_eq!(facts.lookups.load(Ordering::Relaxed), 6);
        assert_eq!(facts.hits.load(Ordering::Relaxed), 3);
    }
}
