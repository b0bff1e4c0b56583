//! Node -> position in a caller's node list, in one array read.
//!
//! An algorithm's CSR view numbers the nodes it covers `0..n` and maps
//! both ends of every edge it reads to those numbers: tens of millions of
//! lookups per build. A binary search in the sorted node list costs ~20
//! dependent cache misses per lookup once the list outgrows the cache;
//! vertex guis number densely (`crate::gui_map`), so a direct-access array
//! over that numbering answers with one. Guis outside the layout still map
//! exactly (the map's overflow table).

use crate::gui_map::GuiMap;
use crate::ids::TAG_VERT;
use nereid_values::NodeId;

/// The position of each node of a list, by node id.
#[derive(Clone, Debug)]
pub struct NodeIndex {
    /// Position + 1 (0: not in the list).
    positions: GuiMap,
}

impl NodeIndex {
    /// Maps each node of `nodes` to its position. Panics beyond `u32::MAX - 1`
    /// nodes (a view numbers its nodes as `u32`).
    pub fn new(nodes: &[NodeId]) -> NodeIndex {
        let mut positions = GuiMap::new(TAG_VERT);
        for (i, node) in nodes.iter().enumerate() {
            let position = u32::try_from(i + 1).expect("at most u32::MAX - 1 nodes");
            positions.set(node.0, position);
        }
        NodeIndex { positions }
    }

    /// The position of `node`, if the list holds it.
    #[inline]
    pub fn get(&self, node: NodeId) -> Option<u32> {
        self.positions.get(node.0).checked_sub(1)
    }

    /// Starts loading the slot of `node` into the cache: a caller mapping
    /// many ends in an order unrelated to the index (a view's edges) asks
    /// a few ends ahead, so the lookups do not wait for memory one by one.
    #[inline]
    pub fn prefetch(&self, node: NodeId) {
        self.positions.prefetch(node.0);
    }

    /// Memory the index holds.
    pub fn bytes(&self) -> usize {
        self.positions.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::make_gui;

    #[test]
    fn positions_round_trip_and_strangers_are_absent() {
        let nodes = [
            NodeId(make_gui(TAG_VERT, 0, 7)),
            NodeId(make_gui(TAG_VERT, 3, 0xffff)),
            NodeId(make_gui(TAG_VERT, 1 << 20, 2)),
            NodeId(u64::MAX),
        ];
        let index = NodeIndex::new(&nodes);
        for (i, &node) in nodes.iter().enumerate() {
            assert_eq!(index.get(node), Some(i as u32));
        }
        assert_eq!(index.get(NodeId(make_gui(TAG_VERT, 0, 8))), None);
        assert_eq!(index.get(NodeId(make_gui(TAG_VERT, 3, 0xfffe))), None);
        assert_eq!(index.get(NodeId(0)), None);
    }
}
