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

impl WriteStats {
    /// Every counter of `self` combined with the same counter of `other`:
    /// the one place that lists the fields, so sums and differences cannot
    /// forget a counter added later.
    fn zip_with(&self, other: &WriteStats, f: impl Fn(u64, u64) -> u64) -> WriteStats {
        WriteStats {
            nodes_created: f(self.nodes_created, other.nodes_created),
            nodes_deleted: f(self.nodes_deleted, other.nodes_deleted),
            relationships_created: f(self.relationships_created, other.relationships_created),
            relationships_deleted: f(self.relationships_deleted, other.relationships_deleted),
            properties_set: f(self.properties_set, other.properties_set),
            labels_added: f(self.labels_added, other.labels_added),
            labels_removed: f(self.labels_removed, other.labels_removed),
            indexes_added: f(self.indexes_added, other.indexes_added),
            indexes_removed: f(self.indexes_removed, other.indexes_removed),
            constraints_added: f(self.constraints_added, other.constraints_added),
            constraints_removed: f(self.constraints_removed, other.constraints_removed),
        }
    }
}

impl WriteStats {
    /// The graph's counters under Neo4j's names (camelCase, as its drivers'
    /// summaries and APOC's `updateStatistics` spell them): the one list the
    /// protocols and procedures render, each in its own spelling.
    pub fn graph_counters(&self) -> [(&'static str, u64); 7] {
        [
            ("nodesCreated", self.nodes_created),
            ("nodesDeleted", self.nodes_deleted),
            ("relationshipsCreated", self.relationships_created),
            ("relationshipsDeleted", self.relationships_deleted),
            ("propertiesSet", self.properties_set),
            ("labelsAdded", self.labels_added),
            ("labelsRemoved", self.labels_removed),
        ]
    }

    /// The schema's counters under Neo4j's names (see `graph_counters`).
    pub fn schema_counters(&self) -> [(&'static str, u64); 4] {
        [
            ("indexesAdded", self.indexes_added),
            ("indexesRemoved", self.indexes_removed),
            ("constraintsAdded", self.constraints_added),
            ("constraintsRemoved", self.constraints_removed),
        ]
    }

    /// Every counter: the graph's, then the schema's.
    pub fn counters(&self) -> impl Iterator<Item = (&'static str, u64)> {
        self.graph_counters()
            .into_iter()
            .chain(self.schema_counters())
    }
}

/// Counts of two pieces of work together (a statement and the inner
/// transactions it committed).
impl std::ops::Add<&WriteStats> for &WriteStats {
    type Output = WriteStats;
    fn add(self, other: &WriteStats) -> WriteStats {
        self.zip_with(other, |a, b| a + b)
    }
}

/// What happened between two readings of a transaction's counters (one
/// statement's share of them); `self` must be the later reading.
impl std::ops::Sub<&WriteStats> for &WriteStats {
    type Output = WriteStats;
    fn sub(self, earlier: &WriteStats) -> WriteStats {
        self.zip_with(earlier, |a, b| a - b)
    }
}
