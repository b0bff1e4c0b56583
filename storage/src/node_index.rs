//! Node -> position in a caller's node list, in one array read.
//!
//! An algorithm's CSR view numbers the nodes it covers `0..n` and maps
//! both ends of every edge it reads to those numbers: tens of millions of
//! lookups per build. A binary search in the sorted node list costs ~20
//! dependent cache misses per lookup once the list outgrows the cache;
//! vertex guis number densely (`crate::gui_map`), so a direct-access array
//! over that numbering answers with one. Guis outside the layout still map
//! exactly (the map's overflow table).

use crate::gui_map::{dense_number, GuiMap, PAGE_SLOTS};
use crate::ids::{vertex_gui_from_external, TAG_VERT};
use nereid_values::NodeId;

/// The position of each node of a list, by node id.
#[derive(Clone, Debug)]
pub struct NodeIndex {
    /// Position + 1 (0: not in the list).
    positions: Positions,
}

/// Where positions are kept: one flat array over the dense numbering when
/// every node has a dense number and the numbers are not too sparse (a
/// lookup is one read of one array, which huge pages cover with a few TLB
/// entries), the paged map otherwise (a lookup first reads its page's
/// pointer: a second dependent read, and 16 KiB pages scattered over the
/// heap, a TLB miss on most of a view's random lookups).
#[derive(Clone, Debug)]
enum Positions {
    Flat(Vec<u32>),
    Paged(GuiMap),
}

/// A flat array is used while it has at most this many slots per node
/// (plus a page): vertex guis number densely, with holes where a hash
/// bucket has fewer vertices than the fullest, so a dictionary's vertices
/// fill most slots, and a view of one label in eight still takes it.
const MOST_SLOTS_PER_NODE: usize = 8;

impl NodeIndex {
    /// Maps each node of `nodes` to its position. Panics beyond `u32::MAX - 1`
    /// nodes (a view numbers its nodes as `u32`).
    pub fn new(nodes: &[NodeId]) -> NodeIndex {
        let positions = match flat_slots(nodes) {
            Some(slots) => {
                let mut flat = vec![0u32; slots];
                for (i, node) in nodes.iter().enumerate() {
                    if let Some(d) = dense_number(TAG_VERT, node.0) {
                        flat[d] = position(i);
                    }
                }
                Positions::Flat(flat)
            }
            None => {
                let mut paged = GuiMap::new(TAG_VERT);
                for (i, node) in nodes.iter().enumerate() {
                    paged.set(node.0, position(i));
                }
                Positions::Paged(paged)
            }
        };
        NodeIndex { positions }
    }

    /// `nodes` in ascending order without repeats, and the index of that
    /// list: what a view numbers its nodes by. When the flat array is
    /// taken, ascending node order is ascending dense number (a gui is its
    /// tag above its dense number), so the order comes from marking each
    /// node in a bitmap and reading the bitmap back: two linear passes
    /// where a sort of millions of ids costs tens of milliseconds.
    pub fn ascending(mut nodes: Vec<NodeId>) -> (Vec<NodeId>, NodeIndex) {
        let Some(slots) = flat_slots(&nodes) else {
            nodes.sort_unstable();
            nodes.dedup();
            let index = NodeIndex::new(&nodes);
            return (nodes, index);
        };
        let mut present = vec![0u64; slots.div_ceil(64)];
        for node in &nodes {
            if let Some(d) = dense_number(TAG_VERT, node.0) {
                present[d / 64] |= 1 << (d % 64);
            }
        }
        let mut flat = vec![0u32; slots];
        nodes.clear();
        for (w, &word) in present.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let d = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                nodes.push(NodeId(vertex_gui_from_external(d as u64)));
                flat[d] = position(nodes.len() - 1);
            }
        }
        let index = NodeIndex {
            positions: Positions::Flat(flat),
        };
        (nodes, index)
    }

    /// The position of `node`, if the list holds it.
    #[inline]
    pub fn get(&self, node: NodeId) -> Option<u32> {
        let slot = match &self.positions {
            Positions::Flat(flat) => flat_slot(flat, node).copied().unwrap_or(0),
            Positions::Paged(paged) => paged.get(node.0),
        };
        slot.checked_sub(1)
    }

    /// Starts loading the slot of `node` into the cache: a caller mapping
    /// many ends in an order unrelated to the index (a view's edges) asks
    /// a few ends ahead, so the lookups do not wait for memory one by one.
    #[inline]
    pub fn prefetch(&self, node: NodeId) {
        match &self.positions {
            Positions::Flat(flat) => {
                if let Some(slot) = flat_slot(flat, node) {
                    crate::prefetch::line(slot);
                }
            }
            Positions::Paged(paged) => paged.prefetch(node.0),
        }
    }

    /// Memory the index holds.
    pub fn bytes(&self) -> usize {
        match &self.positions {
            Positions::Flat(flat) => flat.capacity() * size_of::<u32>(),
            Positions::Paged(paged) => paged.bytes(),
        }
    }
}

/// Slots of the flat array for `nodes` (one past the largest dense
/// number), when every node has a dense number and they are not too
/// sparse.
fn flat_slots(nodes: &[NodeId]) -> Option<usize> {
    nodes
        .iter()
        .try_fold(0usize, |most, node| {
            dense_number(TAG_VERT, node.0).map(|d| most.max(d + 1))
        })
        .filter(|&slots| slots <= nodes.len() * MOST_SLOTS_PER_NODE + PAGE_SLOTS)
}

/// `node`'s slot in a flat array, if it has one.
#[inline]
fn flat_slot(flat: &[u32], node: NodeId) -> Option<&u32> {
    dense_number(TAG_VERT, node.0).and_then(|d| flat.get(d))
}

/// The value a list position is stored as (0 means absent).
fn position(i: usize) -> u32 {
    u32::try_from(i + 1).expect("at most u32::MAX - 1 nodes")
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
        let (ascending, _) =
            NodeIndex::ascending(vec![nodes[3], nodes[1], nodes[0], nodes[2], nodes[1]]);
        assert_eq!(ascending, nodes);
    }

    /// A dictionary's vertices (dense numbers, a few holes) take the flat
    /// array; nodes past its end, in its holes or of another tag are absent.
    #[test]
    fn dense_nodes_map_through_one_flat_array() {
        let nodes: Vec<NodeId> = (0..2u32)
            .flat_map(|counter| (0..=u16::MAX).step_by(3).map(move |h| (counter, h)))
            .map(|(counter, hash)| NodeId(make_gui(TAG_VERT, counter, hash)))
            .collect();
        let index = NodeIndex::new(&nodes);
        assert!(matches!(index.positions, Positions::Flat(_)));
        for (i, &node) in nodes.iter().enumerate() {
            assert_eq!(index.get(node), Some(i as u32));
        }
        let mut shuffled = nodes.clone();
        shuffled.reverse();
        shuffled.swap(3, 77);
        shuffled.push(nodes[5]);
        let (ascending, again) = NodeIndex::ascending(shuffled);
        assert!(matches!(again.positions, Positions::Flat(_)));
        assert_eq!(ascending, nodes);
        for (i, &node) in nodes.iter().enumerate() {
            assert_eq!(again.get(node), Some(i as u32));
        }
        for stranger in [
            make_gui(TAG_VERT, 0, 1),
            make_gui(TAG_VERT, 2, 0),
            make_gui(TAG_VERT, 1 << 20, 0),
            make_gui(crate::ids::TAG_LIT, 0, 0),
            0,
        ] {
            assert_eq!(index.get(NodeId(stranger)), None);
        }
    }
}
