//! Virtual nodes and relationships: entities that exist only in a query's
//! result, never in the store (APOC's meta graph answers with one node per
//! label and one relationship per connected label pair). Unlike the stored
//! entities, which travel as ids and are materialised at the edge through
//! an [`crate::EntityResolver`], a virtual entity carries its labels, type
//! and properties with it: there is nothing to resolve it against.
//!
//! Ids are negative, as APOC's are, drawn from one process-wide counter so
//! that two virtual entities of one result (or of two calls in one query)
//! never share an id; stored ids are never negative. Element ids are
//! `virtual:node:<id>` / `virtual:relationship:<id>`: stored relationships
//! are `r<number>` and the element-id lookups answer stored entities only,
//! so a virtual id handed back in a query matches nothing.

use crate::Value;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

static NEXT_VIRTUAL_ID: AtomicI64 = AtomicI64::new(-1);

/// A fresh negative id, distinct from every earlier one of this process.
fn next_virtual_id() -> i64 {
    NEXT_VIRTUAL_ID.fetch_sub(1, Ordering::Relaxed)
}

/// A node that is not in the store.
#[derive(Clone, Debug, PartialEq)]
pub struct VirtualNode {
    /// Negative, unique in the process.
    pub id: i64,
    pub labels: Vec<String>,
    pub properties: BTreeMap<String, Value>,
}

impl VirtualNode {
    /// A virtual node with a fresh id.
    pub fn new(labels: Vec<String>, properties: BTreeMap<String, Value>) -> Self {
        VirtualNode {
            id: next_virtual_id(),
            labels,
            properties,
        }
    }

    pub fn element_id(&self) -> String {
        virtual_node_element_id(self.id)
    }
}

/// A relationship that is not in the store, between two virtual nodes.
#[derive(Clone, Debug, PartialEq)]
pub struct VirtualRelationship {
    /// Negative, unique in the process.
    pub id: i64,
    pub rel_type: String,
    /// Shared with the node values that hold the same nodes.
    pub start: Arc<VirtualNode>,
    pub end: Arc<VirtualNode>,
    pub properties: BTreeMap<String, Value>,
}

impl VirtualRelationship {
    /// A virtual relationship with a fresh id from `start` to `end`.
    pub fn new(
        start: Arc<VirtualNode>,
        rel_type: String,
        end: Arc<VirtualNode>,
        properties: BTreeMap<String, Value>,
    ) -> Self {
        VirtualRelationship {
            id: next_virtual_id(),
            rel_type,
            start,
            end,
            properties,
        }
    }

    pub fn element_id(&self) -> String {
        format!("virtual:relationship:{}", self.id)
    }

    pub fn start_element_id(&self) -> String {
        self.start.element_id()
    }

    pub fn end_element_id(&self) -> String {
        self.end.element_id()
    }
}

fn virtual_node_element_id(id: i64) -> String {
    format!("virtual:node:{id}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_negative_and_never_repeat() {
        let a = Arc::new(VirtualNode::new(vec!["A".into()], BTreeMap::new()));
        let b = Arc::new(VirtualNode::new(vec!["A".into()], BTreeMap::new()));
        let r = VirtualRelationship::new(a.clone(), "T".into(), b.clone(), BTreeMap::new());
        assert!(a.id < 0 && b.id < 0 && r.id < 0);
        assert!(a.id != b.id && r.id != a.id && r.id != b.id);
        assert_eq!(r.start_element_id(), a.element_id());
        assert_eq!(r.end_element_id(), b.element_id());
        assert!(a.element_id().starts_with("virtual:node:-"));
        assert!(r.element_id().starts_with("virtual:relationship:-"));
    }
}
