//! The relationships of many nodes at once: what an `Expand` over a batch
//! of rows asks, read set-at-a-time through [`Apl::edges`] instead of one
//! store call (one probe of every grid cell of the node's row or column)
//! per row.
//!
//! The grid cells are visited once for the whole set, each cell's members
//! probed in ascending order (or the cell scanned when that is cheaper), so
//! the type names are resolved once and the cells' index heads stay cached
//! across the members.

use super::{Apl, EdgePattern, Endpoint, ModeChoice};
use nereid_values::{Direction, NodeId, RelId};

/// One relationship of a member: `(member, relationship, other end)`.
pub type Neighbour = (NodeId, RelId, NodeId);

impl Apl<'_> {
    /// The relationships of each of `nodes` in `dir` (restricted to `types`
    /// when non-empty) as `(node, relationship, other end)`, grouped by node
    /// in ascending id order; within a node, in the order `Txn::expand`
    /// lists them (outgoing before incoming; a self-loop once, also in
    /// `Both`). A node given twice is listed once.
    pub fn expand_many(
        &self,
        nodes: &[NodeId],
        dir: Direction,
        types: &[String],
    ) -> Vec<Neighbour> {
        let set = self.vertex_set_of(nodes.iter().copied());
        let mut out = Vec::new();
        if matches!(dir, Direction::Outgoing | Direction::Both) {
            let pattern = EdgePattern {
                src: Endpoint::In(&set),
                types,
                dst: Endpoint::Any,
            };
            self.edges(&pattern, None, ModeChoice::Auto, |m| {
                out.push((m.src, m.rel, m.dst));
            });
        }
        if matches!(dir, Direction::Incoming | Direction::Both) {
            let pattern = EdgePattern {
                src: Endpoint::Any,
                types,
                dst: Endpoint::In(&set),
            };
            self.edges(&pattern, None, ModeChoice::Auto, |m| {
                // In `Both`, a self-loop was already listed as outgoing.
                if !(dir == Direction::Both && m.src == m.dst) {
                    out.push((m.dst, m.rel, m.src));
                }
            });
        }
        // Stable: each node keeps the cell order the reads produced.
        out.sort_by_key(|&(node, _, _)| node.0);
        out
    }
}
