//! The read-only view of the graph that expression evaluation needs.
//!
//! Keeping expression evaluation behind this small trait (instead of the
//! whole [`Txn`]) follows the DFE's split between operators that touch base
//! data and operators over intermediate results (Poseidon paper, §8.3): the
//! evaluator can run over any snapshot that answers these questions.

use nereid_storage::Txn;
use nereid_values::{Direction, EntityResolver, NodeId, RelId, Value};
use std::collections::BTreeMap;

/// Entity reads from one consistent snapshot. Entities that are not visible
/// read as absent (`None` / empty).
pub trait GraphRead {
    fn node_labels(&self, id: NodeId) -> Vec<String>;
    fn node_has_label(&self, id: NodeId, label: &str) -> bool;
    /// [`GraphRead::node_has_label`] of each of `ids`, aligned with it.
    fn node_has_label_column(&self, ids: &[NodeId], label: &str) -> Vec<bool> {
        ids.iter()
            .map(|&id| self.node_has_label(id, label))
            .collect()
    }
    fn node_property(&self, id: NodeId, key: &str) -> Option<Value>;
    /// [`GraphRead::node_property`] of each of `ids`, aligned with it: a
    /// batch of rows at once, which a store can read faster than row by row.
    fn node_property_column(&self, ids: &[NodeId], key: &str) -> Vec<Option<Value>> {
        ids.iter().map(|&id| self.node_property(id, key)).collect()
    }
    fn node_properties(&self, id: NodeId) -> BTreeMap<String, Value>;
    /// The string `elementId(n)` reports.
    fn node_element_id(&self, id: NodeId) -> Option<String>;
    /// `(start, end, type)` of a visible relationship.
    fn rel_endpoints(&self, id: RelId) -> Option<(NodeId, NodeId, String)>;
    fn rel_property(&self, id: RelId, key: &str) -> Option<Value>;
    /// [`GraphRead::rel_property`] of each of `ids`, aligned with it.
    fn rel_property_column(&self, ids: &[RelId], key: &str) -> Vec<Option<Value>> {
        ids.iter().map(|&id| self.rel_property(id, key)).collect()
    }
    fn rel_properties(&self, id: RelId) -> BTreeMap<String, Value>;
    /// The string `elementId(r)` reports.
    fn rel_element_id(&self, id: RelId) -> Option<String>;
    /// Whether a node that reached a row is no longer visible: every id in a
    /// row was read from (or created in) this snapshot, so only a deletion by
    /// this transaction makes it vanish.
    fn node_deleted(&self, id: NodeId) -> bool;
    /// [`GraphRead::node_deleted`] for relationships.
    fn rel_deleted(&self, id: RelId) -> bool;
    /// The type of a relationship, even one this transaction deleted: unlike its
    /// properties, openCypher keeps a deleted relationship's type readable (`type(r)`).
    fn rel_type(&self, id: RelId) -> Option<String>;
    /// How many visible relationships of `id` go in `dir` with one of
    /// `types` (any, when empty): as many as an expand from `id` lists, a
    /// self-loop once also in `Both`.
    fn degree(&self, id: NodeId, dir: Direction, types: &[String]) -> u64;
}

impl GraphRead for Txn {
    fn degree(&self, id: NodeId, dir: Direction, types: &[String]) -> u64 {
        Txn::degree(self, id, dir, types)
    }
    fn node_labels(&self, id: NodeId) -> Vec<String> {
        Txn::node_labels(self, id)
    }
    fn node_has_label(&self, id: NodeId, label: &str) -> bool {
        Txn::node_has_label(self, id, label)
    }
    fn node_has_label_column(&self, ids: &[NodeId], label: &str) -> Vec<bool> {
        Txn::node_has_label_column(self, ids, label)
    }
    fn node_property(&self, id: NodeId, key: &str) -> Option<Value> {
        Txn::node_property(self, id, key)
    }
    fn node_property_column(&self, ids: &[NodeId], key: &str) -> Vec<Option<Value>> {
        Txn::node_property_column(self, ids, key)
    }
    fn node_properties(&self, id: NodeId) -> BTreeMap<String, Value> {
        Txn::node_properties(self, id)
    }
    /// Asks the [`EntityResolver`] so that `elementId()` always equals the
    /// element id Bolt sends for the same node.
    fn node_element_id(&self, id: NodeId) -> Option<String> {
        EntityResolver::node(self, id)
            .map(|node| node.element_id)
            .or_else(|| self.node_key(id))
    }
    fn rel_endpoints(&self, id: RelId) -> Option<(NodeId, NodeId, String)> {
        Txn::rel_endpoints(self, id)
    }
    fn rel_property(&self, id: RelId, key: &str) -> Option<Value> {
        Txn::rel_property(self, id, key)
    }
    fn rel_property_column(&self, ids: &[RelId], key: &str) -> Vec<Option<Value>> {
        Txn::rel_property_column(self, ids, key)
    }
    fn rel_properties(&self, id: RelId) -> BTreeMap<String, Value> {
        Txn::rel_properties(self, id)
    }
    /// Asks the [`EntityResolver`] (see [`GraphRead::node_element_id`]); a
    /// relationship's element id is derived from its id, so it is known even
    /// after deletion.
    fn rel_element_id(&self, id: RelId) -> Option<String> {
        EntityResolver::relationship(self, id)
            .map(|rel| rel.element_id)
            .or_else(|| Some(nereid_storage::rel_element_id(id)))
    }
    fn node_deleted(&self, id: NodeId) -> bool {
        !self.node_exists(id)
    }
    fn rel_deleted(&self, id: RelId) -> bool {
        !self.rel_exists(id)
    }
    fn rel_type(&self, id: RelId) -> Option<String> {
        self.rel_type_ignoring_deletion(id)
    }
}
