//! Level-synchronous breadth-first search: the distance (in hops) from a set
//! of source nodes to every reachable node.
//!
//! The frontier is expanded one level at a time through `Txn::expand`, the
//! index-driven access path (the paper's hybrid switch to relation scans for
//! large frontiers is future work).

use nereid_storage::Txn;
use nereid_values::{Direction, NodeId};
use std::collections::HashMap;

/// Which relationships a BFS follows and how far.
#[derive(Clone, Debug)]
pub struct BfsOptions {
    pub direction: Direction,
    /// Relationship types to follow; any type when empty.
    pub types: Vec<String>,
    /// Stop after this many levels (`None`: until no new node is reached).
    pub max_depth: Option<u32>,
}

impl Default for BfsOptions {
    fn default() -> Self {
        BfsOptions {
            direction: Direction::Outgoing,
            types: Vec::new(),
            max_depth: None,
        }
    }
}

/// Distance from the nearest source to every node reached (sources are at
/// level 0). Each node is visited once, so the cost is O(nodes + edges
/// reached).
pub fn bfs_levels(txn: &Txn, sources: &[NodeId], options: &BfsOptions) -> HashMap<NodeId, u32> {
    let mut levels = HashMap::new();
    let mut frontier = Vec::new();
    for &source in sources {
        if txn.node_exists(source) && levels.insert(source, 0).is_none() {
            frontier.push(source);
        }
    }
    let mut depth = 0u32;
    while !frontier.is_empty() && options.max_depth.is_none_or(|max| depth < max) {
        depth += 1;
        let mut next = Vec::new();
        for node in frontier {
            for (_, neighbour) in txn.expand(node, options.direction, &options.types) {
                if let std::collections::hash_map::Entry::Vacant(slot) = levels.entry(neighbour) {
                    slot.insert(depth);
                    next.push(neighbour);
                }
            }
        }
        frontier = next;
    }
    levels
}

#[cfg(test)]
mod tests {
    use super::*;
    use nereid_storage::{Store, StoreConfig};
    use std::collections::BTreeMap;

    /// a -> b -> c -> d, a -> c, and e isolated; `x` edges: d -[X]-> a.
    fn chain(txn: &Txn) -> Vec<NodeId> {
        let ids: Vec<NodeId> = (0..5)
            .map(|_| txn.create_node(&[], &BTreeMap::new()).unwrap())
            .collect();
        for (from, to, t) in [
            (0, 1, "R"),
            (1, 2, "R"),
            (2, 3, "R"),
            (0, 2, "R"),
            (3, 0, "X"),
        ] {
            txn.create_rel(ids[from], ids[to], t, &BTreeMap::new())
                .unwrap();
        }
        ids
    }

    #[test]
    fn levels_are_shortest_hop_counts() {
        let store = Store::new(StoreConfig::default());
        let txn = store.begin();
        let ids = chain(&txn);
        let options = BfsOptions {
            types: vec!["R".to_string()],
            ..BfsOptions::default()
        };
        let levels = bfs_levels(&txn, &ids[..1], &options);
        let expected: HashMap<NodeId, u32> =
            [(ids[0], 0), (ids[1], 1), (ids[2], 1), (ids[3], 2)].into();
        assert_eq!(levels, expected);

        let incoming = BfsOptions {
            direction: Direction::Incoming,
            max_depth: Some(1),
            ..BfsOptions::default()
        };
        let levels = bfs_levels(&txn, &ids[..1], &incoming);
        let expected: HashMap<NodeId, u32> = [(ids[0], 0), (ids[3], 1)].into();
        assert_eq!(levels, expected);

        assert_eq!(bfs_levels(&txn, &ids[4..5], &options).len(), 1);
    }
}
