//! The in-memory OneGraph (1G) store (Poseidon paper, sections 3-5).
//!
//! Public surface: [`Store`] (shared, `Send + Sync`), [`Txn`] (one MVCC
//! transaction, `Send + Sync`, all methods take `&self`), and [`Change`], the
//! logical description of a committed transaction that the log persists and
//! replays.
//!
//! Invariants:
//! - storage knows nothing about Cypher, plans or the wire protocol;
//! - storage knows nothing about the log: it hands [`Change`]s to a callback
//!   at commit and accepts them back through [`Store::replay`];
//! - a transaction reads the snapshot at its read timestamp plus its own
//!   writes; tuples are only inserted or deleted, never updated in place.
//
// CONTRACT NOTE (temporary, removed when the storage helper lands): the bodies
// below are being implemented; the signatures are the agreed contract.

use nereid_values::{Direction, NodeId, RelId, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Errors raised by the store.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum StorageError {
    /// Another transaction wrote the same item since our snapshot (or is
    /// writing it now). Clients retry: mapped to a TransientError.
    #[error("write-write conflict on {0}; retry the transaction")]
    WriteConflict(String),
    #[error("cannot delete node {0} because it still has relationships; use DETACH DELETE")]
    DeleteConnectedNode(i64),
    #[error("entity {0} not found or deleted")]
    EntityNotFound(String),
    #[error("property values of type {0} cannot be stored")]
    UnstorableValue(&'static str),
    #[error("the transaction is no longer active")]
    TxnClosed,
    #[error("replay failed: {0}")]
    Replay(String),
}

pub type Result<T> = std::result::Result<T, StorageError>;

/// Store settings.
#[derive(Clone, Debug)]
pub struct StoreConfig {
    /// Number of partitions per dimension (vertex relations are split into
    /// `partitions` parts by the low bits of S; REL_E into a
    /// `partitions x partitions` grid by S and O). A power of two.
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
}

/// Counters of what a transaction changed (for Bolt `stats`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteStats {
    pub nodes_created: u64,
    pub nodes_deleted: u64,
    pub relationships_created: u64,
    pub relationships_deleted: u64,
    pub properties_set: u64,
    pub labels_added: u64,
    pub labels_removed: u64,
}

/// The shared store.
pub struct Store {
    _private: (),
}

impl Store {
    pub fn new(_config: StoreConfig) -> Arc<Store> {
        unimplemented!("storage helper")
    }

    /// Starts a transaction reading the latest *durable* commit.
    pub fn begin(self: &Arc<Self>) -> Txn {
        unimplemented!("storage helper")
    }

    /// Applies a committed transaction read back from the log, at its
    /// original commit timestamp. Called before the store serves queries.
    pub fn replay(&self, _commit_ts: u64, _changes: &[Change]) -> Result<()> {
        unimplemented!("storage helper")
    }

    /// Number of visible nodes with `label` (all nodes when `None`) in the
    /// latest snapshot: the planner's cardinality estimate.
    pub fn estimate_nodes(&self, _label: Option<&str>) -> u64 {
        unimplemented!("storage helper")
    }

    /// The newest commit timestamp readers may see.
    pub fn visible_ts(&self) -> u64 {
        unimplemented!("storage helper")
    }
}

/// A pending commit: the commit timestamp is assigned and the changes are
/// stamped, but not yet visible to new readers until [`Store`] is told the
/// commit is durable via [`CommitTicket::publish`].
pub struct CommitTicket {
    _private: (),
}

impl CommitTicket {
    pub fn commit_ts(&self) -> u64 {
        unimplemented!("storage helper")
    }
    /// Makes the commit visible to transactions that begin afterwards.
    pub fn publish(self) {
        unimplemented!("storage helper")
    }
}

/// One MVCC transaction. Dropping it without committing rolls it back.
pub struct Txn {
    _private: (),
}

impl Txn {
    pub fn read_ts(&self) -> u64 {
        unimplemented!("storage helper")
    }

    // ---- reads: the snapshot at read_ts plus this transaction's own writes

    /// All visible nodes, optionally only those carrying `label`.
    pub fn scan_nodes(&self, _label: Option<&str>) -> Vec<NodeId> {
        unimplemented!("storage helper")
    }
    pub fn node_exists(&self, _id: NodeId) -> bool {
        unimplemented!("storage helper")
    }
    pub fn node_labels(&self, _id: NodeId) -> Vec<String> {
        unimplemented!("storage helper")
    }
    pub fn node_has_label(&self, _id: NodeId, _label: &str) -> bool {
        unimplemented!("storage helper")
    }
    pub fn node_property(&self, _id: NodeId, _key: &str) -> Option<Value> {
        unimplemented!("storage helper")
    }
    pub fn node_properties(&self, _id: NodeId) -> BTreeMap<String, Value> {
        unimplemented!("storage helper")
    }
    /// The vertex identifier string (the node's element id).
    pub fn node_key(&self, _id: NodeId) -> Option<String> {
        unimplemented!("storage helper")
    }
    /// Relationships of `id` in `dir`, restricted to `types` when non-empty:
    /// `(relationship, other endpoint)` pairs. A self-loop appears once for
    /// `Outgoing`/`Incoming` and once for `Both`.
    pub fn expand(&self, _id: NodeId, _dir: Direction, _types: &[String]) -> Vec<(RelId, NodeId)> {
        unimplemented!("storage helper")
    }
    pub fn rel_exists(&self, _id: RelId) -> bool {
        unimplemented!("storage helper")
    }
    /// `(start, end, type)` of a visible relationship.
    pub fn rel_endpoints(&self, _id: RelId) -> Option<(NodeId, NodeId, String)> {
        unimplemented!("storage helper")
    }
    pub fn rel_property(&self, _id: RelId, _key: &str) -> Option<Value> {
        unimplemented!("storage helper")
    }
    pub fn rel_properties(&self, _id: RelId) -> BTreeMap<String, Value> {
        unimplemented!("storage helper")
    }

    // ---- writes (visible to this transaction at once, to others after commit)

    /// `properties` must hold storable, non-null values.
    pub fn create_node(
        &self,
        _labels: &[String],
        _properties: &BTreeMap<String, Value>,
    ) -> Result<NodeId> {
        unimplemented!("storage helper")
    }
    pub fn create_rel(
        &self,
        _src: NodeId,
        _dst: NodeId,
        _rel_type: &str,
        _properties: &BTreeMap<String, Value>,
    ) -> Result<RelId> {
        unimplemented!("storage helper")
    }
    /// `Value::Null` removes the property.
    pub fn set_node_property(&self, _id: NodeId, _key: &str, _value: Value) -> Result<()> {
        unimplemented!("storage helper")
    }
    pub fn set_rel_property(&self, _id: RelId, _key: &str, _value: Value) -> Result<()> {
        unimplemented!("storage helper")
    }
    pub fn add_label(&self, _id: NodeId, _label: &str) -> Result<()> {
        unimplemented!("storage helper")
    }
    pub fn remove_label(&self, _id: NodeId, _label: &str) -> Result<()> {
        unimplemented!("storage helper")
    }
    pub fn delete_rel(&self, _id: RelId) -> Result<()> {
        unimplemented!("storage helper")
    }
    /// Fails with `DeleteConnectedNode` when relationships remain, unless
    /// `detach`, which deletes them first.
    pub fn delete_node(&self, _id: NodeId, _detach: bool) -> Result<()> {
        unimplemented!("storage helper")
    }

    /// What this transaction has changed so far.
    pub fn stats(&self) -> WriteStats {
        unimplemented!("storage helper")
    }
    pub fn is_read_only(&self) -> bool {
        unimplemented!("storage helper")
    }

    // ---- end of life

    /// Validates, assigns the commit timestamp, stamps the writes and calls
    /// `log(commit_ts, changes)` while holding the commit lock, so that the
    /// log order equals commit-timestamp order. If `log` fails the commit is
    /// rolled back. The caller waits for durability, then publishes the ticket.
    /// A read-only transaction returns `Ok(None)` without calling `log`.
    pub fn commit<E>(
        &self,
        _log: impl FnOnce(u64, &[Change]) -> std::result::Result<(), E>,
    ) -> std::result::Result<Option<CommitTicket>, CommitError<E>> {
        unimplemented!("storage helper")
    }
    pub fn rollback(&self) {
        unimplemented!("storage helper")
    }
}

/// Why a commit failed.
#[derive(Debug)]
pub enum CommitError<E> {
    Storage(StorageError),
    Log(E),
}

/// A transaction materialises entities for Bolt records and test output.
impl nereid_values::EntityResolver for Txn {
    fn node(&self, _id: NodeId) -> Option<nereid_values::NodeData> {
        unimplemented!("storage helper")
    }
    fn relationship(&self, _id: RelId) -> Option<nereid_values::RelData> {
        unimplemented!("storage helper")
    }
}
