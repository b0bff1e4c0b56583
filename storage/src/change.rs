//! The public vocabulary around the store: configuration, the logical
//! [`Change`] records a commit hands to the log, and write statistics.

use crate::schema::{ConstraintDef, IndexDef};
use nereid_values::{NodeId, RelId, Value};
use std::collections::BTreeMap;

/// Store settings.
#[derive(Clone, Debug)]
pub struct StoreConfig {
    /// Number of partitions per dimension (vertex relations are split into
    /// `partitions` parts by the low bits of S; REL_E into a
    /// `partitions x partitions` grid by S and O). A power of two; other
    /// values are rounded up, and the count is clamped to `1..=1024`.
    ///
    /// Relationship ids encode their grid cell, so the partition count must
    /// stay the same across restarts that replay the same log.
    pub partitions: usize,
}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig { partitions: 4 }
    }
}

/// One logical change of a committed transaction, in lexical form (strings,
/// not partition-local ids), carrying the guis/SIDs assigned at run time so
/// that replay reproduces the same `id()`s.
#[derive(Clone, Debug, PartialEq)]
pub enum Change {
    CreateNode {
        id: NodeId,
        /// The vertex identifier string registered in REL_VERT for `id`.
        key: String,
        labels: Vec<String>,
        properties: BTreeMap<String, Value>,
    },
    CreateRel {
        id: RelId,
        src: NodeId,
        dst: NodeId,
        rel_type: String,
        properties: BTreeMap<String, Value>,
    },
    /// `value == Value::Null` removes the property.
    SetNodeProperty {
        id: NodeId,
        key: String,
        value: Value,
    },
    SetRelProperty {
        id: RelId,
        key: String,
        value: Value,
    },
    AddLabel {
        id: NodeId,
        label: String,
    },
    RemoveLabel {
        id: NodeId,
        label: String,
    },
    DeleteRel {
        id: RelId,
    },
    /// The node's relationships are deleted by explicit `DeleteRel`s first.
    DeleteNode {
        id: NodeId,
    },
    /// A schema change: alone in its transaction (no data changes beside).
    CreateIndex(IndexDef),
    DropIndex {
        name: String,
    },
    /// A unique or key constraint creates its backing index with it.
    CreateConstraint(ConstraintDef),
    /// Drops the backing index with it.
    DropConstraint {
        name: String,
    },
}

impl Change {
    /// Whether the change is to the schema rather than the data.
    pub fn is_schema(&self) -> bool {
        matches!(
            self,
            Change::CreateIndex(_)
                | Change::DropIndex { .. }
                | Change::CreateConstraint(_)
                | Change::DropConstraint { .. }
        )
    }
}

/// Counters of what a transaction changed (for Bolt `stats`), counted the
/// way Neo4j counts them: every property assignment (including one that
/// removes an existing property by setting it to null) counts as one
/// property set; a label counts as added only when it was not present and as
/// removed only when it was.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteStats {
    pub nodes_created: u64,
    pub nodes_deleted: u64,
    pub relationships_created: u64,
    pub relationships_deleted: u64,
    pub properties_set: u64,
    pub labels_added: u64,
    pub labels_removed: u64,
    pub indexes_added: u64,
    pub indexes_removed: u64,
    pub constraints_added: u64,
    pub constraints_removed: u64,
}
