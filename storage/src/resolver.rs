//! Materialising entities for Bolt records and test output.

use crate::txn::Txn;
use nereid_values::{EntityResolver, NodeData, NodeId, RelData, RelId};

/// The element id of a relationship: `r` + its external id (node element ids
/// are their vertex identifier strings, `n<number>` for created nodes, so
/// the two never collide).
pub fn rel_element_id(id: RelId) -> String {
    format!("r{}", id.external())
}

/// A transaction materialises entities from its own view.
impl EntityResolver for Txn {
    fn node(&self, id: NodeId) -> Option<NodeData> {
        let reader = self.reader();
        if !reader.node_exists(id.0) {
            return None;
        }
        Some(NodeData {
            id,
            element_id: reader.store.vertices.resolve_str(id.0)?,
            labels: reader.node_labels(id.0),
            properties: reader.node_properties(id.0),
        })
    }

    fn relationship(&self, id: RelId) -> Option<RelData> {
        let reader = self.reader();
        let (start, end, rel_type) = reader.rel_endpoints(id)?;
        let vertices = &reader.store.vertices;
        Some(RelData {
            id,
            element_id: rel_element_id(id),
            start,
            start_element_id: vertices.resolve_str(start.0)?,
            end,
            end_element_id: vertices.resolve_str(end.0)?,
            rel_type,
            properties: reader.rel_properties(id.0),
        })
    }
}
