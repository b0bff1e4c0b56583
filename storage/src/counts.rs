//! Per-label vertex counts, maintained at commit so that the planner's
//! cardinality estimate ([`crate::Store::estimate_nodes`]) is O(1) instead
//! of a scan.
//!
//! Invariant: the counts reflect every *stamped* commit (commit, replay,
//! snapshot load, bulk load), including one that is stamped but not yet
//! published. That makes them an estimate of the latest snapshot, never
//! off by more than the commits in flight; rolled-back writes never count
//! because only stamping updates them. All updates happen under the
//! store's commit mutex, so a plain mutex here is never contended by writers.

use parking_lot::Mutex;
use std::collections::HashMap;

#[derive(Default)]
pub(crate) struct NodeCounts {
    inner: Mutex<CountsInner>,
}

#[derive(Default)]
struct CountsInner {
    nodes: i64,
    /// Label literal gui -> number of nodes carrying it.
    by_label: HashMap<u64, i64>,
}

impl NodeCounts {
    /// Applies a batch of deltas: `(None, d)` for nodes, `(Some(label), d)`
    /// for one label.
    pub(crate) fn apply(&self, deltas: impl IntoIterator<Item = (Option<u64>, i64)>) {
        let mut inner = self.inner.lock();
        for (label, delta) in deltas {
            match label {
                None => inner.nodes += delta,
                Some(gui) => *inner.by_label.entry(gui).or_insert(0) += delta,
            }
        }
    }

    /// Nodes carrying `label` (all nodes for `None`).
    pub(crate) fn get(&self, label: Option<u64>) -> u64 {
        let inner = self.inner.lock();
        let n = match label {
            None => inner.nodes,
            Some(gui) => inner.by_label.get(&gui).copied().unwrap_or(0),
        };
        n.max(0) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_accumulate_per_label() {
        let counts = NodeCounts::default();
        counts.apply([(None, 3), (Some(7), 2), (Some(8), 1)]);
        counts.apply([(None, -1), (Some(7), -1)]);
        assert_eq!(counts.get(None), 2);
        assert_eq!(counts.get(Some(7)), 1);
        assert_eq!(counts.get(Some(8)), 1);
        assert_eq!(counts.get(Some(9)), 0);
    }
}
