//! Relationships of a node remembered per hop for one read-only statement,
//! for the `Expand`s of its nested plans (pattern comprehensions,
//! pattern expressions, `COUNT { }`).
//!
//! Why: a nested plan runs once per outer argument, and arguments that
//! differ still walk the same nodes. LDBC IC14 weighs each relationship of
//! every shortest path with two comprehensions that start at both of its
//! ends: a person on several paths' relationships has all its messages,
//! their parents and their parents' creators read once per relationship and
//! comprehension (six or seven times on the larger parameter sets), each
//! read a chain of cache misses in the store. The pattern memo
//! (`pattern_memo.rs`) cannot help: its key is the whole argument, here the
//! relationship, which differs.
//!
//! Exact for the same reason as the pattern memo: within a statement that
//! writes nothing, a node's relationships in its snapshot do not change,
//! and the list kept is the store's answer for that node, direction and
//! types, in the store's order. It lives in the [`super::PatternMemo`], so
//! it exists exactly where that one may (read-only statements without
//! procedure calls). Past a byte budget nothing new is kept; it only ever
//! saves work.

use nereid_storage::apl::Neighbour;
use nereid_values::{Direction, NodeId, RelId};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// How much all hops' remembered lists may hold.
const ADJACENCY_BYTES: usize = 32 << 20;

/// Lookups of a table after which it is kept up only if at least one in
/// [`HIT_SHARE`] found its node: where nested plans never come back to a
/// node (each post's tags in IC10), keeping costs an allocation and a
/// hash insert per node and saves nothing.
pub(crate) const TRIAL_LOOKUPS: u64 = 2048;
pub(crate) const HIT_SHARE: u64 = 8;

/// Whether a memo with these counts is still worth consulting.
pub(crate) fn worthwhile(lookups: u64, hits: u64) -> bool {
    lookups < TRIAL_LOOKUPS || hits.saturating_mul(HIT_SHARE) >= lookups
}

/// A node's relationships for one hop: `(relationship, other end)`.
pub(crate) type Neighbours = Arc<[(RelId, NodeId)]>;

/// A hop's direction and relationship types.
type HopKind = (Direction, Vec<String>);

/// The statement's tables, one per hop kind (direction and types).
#[derive(Default)]
pub(crate) struct AdjacencyMemo {
    tables: Mutex<HashMap<HopKind, Arc<HopTable>>>,
    bytes: Arc<AtomicUsize>,
}

/// One hop kind's remembered lists, by start node.
pub(crate) struct HopTable {
    lists: Mutex<HashMap<NodeId, Neighbours, foldhash::fast::RandomState>>,
    bytes: Arc<AtomicUsize>,
    /// Nodes asked and found, for [`HopTable::worthwhile`].
    lookups: AtomicU64,
    hits: AtomicU64,
}

impl AdjacencyMemo {
    /// The table of the hop in `dir` over `types` (looked up once per
    /// operator, not per row).
    pub(crate) fn table(&self, dir: Direction, types: &[String]) -> Arc<HopTable> {
        let mut tables = self.tables.lock().unwrap_or_else(|e| e.into_inner());
        let bytes = &self.bytes;
        Arc::clone(tables.entry((dir, types.to_vec())).or_insert_with(|| {
            Arc::new(HopTable {
                lists: Mutex::default(),
                bytes: Arc::clone(bytes),
                lookups: AtomicU64::new(0),
                hits: AtomicU64::new(0),
            })
        }))
    }
}

impl HopTable {
    /// Whether this hop's nodes come back often enough to be worth
    /// remembering (callers read the store directly when not).
    pub(crate) fn worthwhile(&self) -> bool {
        worthwhile(
            self.lookups.load(Ordering::Relaxed),
            self.hits.load(Ordering::Relaxed),
        )
    }

    fn count(&self, lookups: usize, hits: usize) {
        self.lookups.fetch_add(lookups as u64, Ordering::Relaxed);
        self.hits.fetch_add(hits as u64, Ordering::Relaxed);
    }

    /// `from`'s relationships: remembered, or read by `read` and kept.
    pub(crate) fn neighbours(
        &self,
        from: NodeId,
        read: impl FnOnce() -> Vec<(RelId, NodeId)>,
    ) -> Neighbours {
        if let Some(known) = self.lock().get(&from) {
            self.count(1, 1);
            return Arc::clone(known);
        }
        self.count(1, 0);
        let list: Neighbours = read().into();
        self.keep(&mut self.lock(), from, &list);
        list
    }

    /// The relationships of each of `starts` as `Txn::expand_column` gives
    /// them (grouped by node in ascending id order, each node once), the
    /// nodes not remembered read at once by `read` (which answers in that
    /// form) and kept, those without relationships included.
    pub(crate) fn neighbours_of_all(
        &self,
        starts: &[NodeId],
        read: impl FnOnce(&[NodeId]) -> Vec<Neighbour>,
    ) -> Vec<Neighbour> {
        let mut nodes = starts.to_vec();
        nodes.sort_unstable();
        nodes.dedup();
        let missing: Vec<NodeId> = {
            let lists = self.lock();
            nodes
                .iter()
                .copied()
                .filter(|n| !lists.contains_key(n))
                .collect()
        };
        self.count(nodes.len(), nodes.len() - missing.len());
        let fresh = if missing.is_empty() {
            Vec::new()
        } else {
            read(&missing)
        };
        let mut lists = self.lock();
        let mut at = 0;
        for &node in &missing {
            let len = fresh[at..].partition_point(|&(n, _, _)| n == node);
            let list: Neighbours = fresh[at..at + len]
                .iter()
                .map(|&(_, rel, other)| (rel, other))
                .collect();
            at += len;
            self.keep(&mut lists, node, &list);
        }
        let mut out = Vec::new();
        let mut at = 0;
        for &node in &nodes {
            match lists.get(&node) {
                Some(list) => out.extend(list.iter().map(|&(rel, other)| (node, rel, other))),
                // Not kept (the budget was spent): the fresh read has it.
                None => {
                    at += fresh[at..].partition_point(|&(n, _, _)| n < node);
                    let len = fresh[at..].partition_point(|&(n, _, _)| n == node);
                    out.extend_from_slice(&fresh[at..at + len]);
                }
            }
        }
        out
    }

    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<NodeId, Neighbours, foldhash::fast::RandomState>> {
        self.lists.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Keeps `list` under `from` unless the statement's budget is spent.
    fn keep(
        &self,
        lists: &mut HashMap<NodeId, Neighbours, foldhash::fast::RandomState>,
        from: NodeId,
        list: &Neighbours,
    ) {
        let size = std::mem::size_of_val::<[(RelId, NodeId)]>(list) + 48;
        if self.bytes.fetch_add(size, Ordering::Relaxed) + size > ADJACENCY_BYTES {
            self.bytes.fetch_sub(size, Ordering::Relaxed);
            return;
        }
        lists.insert(from, Arc::clone(list));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A store stand-in: node `n` has `n % 4` relationships, to `n + k`.
    fn stored(n: NodeId) -> Vec<(RelId, NodeId)> {
        (0..n.0 % 4)
            .map(|k| (RelId(n.0 * 10 + k), NodeId(n.0 + k)))
            .collect()
    }

    /// `Txn::expand_column`'s form: grouped by node, ascending, once each.
    fn column(starts: &[NodeId]) -> Vec<Neighbour> {
        let mut nodes = starts.to_vec();
        nodes.sort_unstable();
        nodes.dedup();
        nodes
            .into_iter()
            .flat_map(|n| stored(n).into_iter().map(move |(r, o)| (n, r, o)))
            .collect()
    }

    #[test]
    fn answers_as_the_store_whether_remembered_or_read() {
        let memo = AdjacencyMemo::default();
        let table = memo.table(Direction::Outgoing, &["KNOWS".to_string()]);
        assert_eq!(
            &*table.neighbours(NodeId(7), || stored(NodeId(7))),
            &stored(NodeId(7))[..]
        );
        // Remembered now: a second read would give a different answer.
        assert_eq!(
            &*table.neighbours(NodeId(7), Vec::new),
            &stored(NodeId(7))[..]
        );
        let starts: Vec<NodeId> = [9, 7, 4, 9, 13, 2, 7].map(NodeId).to_vec();
        let mut asked = Vec::new();
        let all = table.neighbours_of_all(&starts, |missing| {
            asked = missing.to_vec();
            column(missing)
        });
        assert_eq!(all, column(&starts));
        assert_eq!(
            asked,
            [2, 4, 9, 13].map(NodeId).to_vec(),
            "7 was remembered"
        );
        // Every node remembered, those without relationships too.
        let again = table.neighbours_of_all(&starts, |_| panic!("nothing left to read"));
        assert_eq!(again, column(&starts));
        // Another hop kind has its own table.
        let other = memo.table(Direction::Incoming, &["KNOWS".to_string()]);
        assert!(other.neighbours(NodeId(7), Vec::new).is_empty());
    }
}
