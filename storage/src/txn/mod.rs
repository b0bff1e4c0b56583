//! Transactions: [`Txn`] (the public handle) over a [`TxnCore`] (id, read
//! timestamp, and the mutable state behind a mutex, shared with log replay).
//!
//! Lock order: a transaction's state mutex, then the store's commit mutex,
//! then partition locks (one at a time). Partition locks are never held
//! while acquiring either mutex.

mod bulk_constraints;
mod commit;
mod counts;
mod fresh_wait;
mod fulltext_query;
mod index_ends;
mod label_filter;
mod properties;
mod read;
mod read_batches;
mod replay;
mod revoke;
mod schema_clash;
mod schema_ddl;
mod schema_wait;
mod schema_writes;
mod state;
mod validate;
mod vector_query;
pub use fulltext_query::FulltextOptions;
mod write;

pub(crate) use bulk_constraints::Loaded;
pub(crate) use commit::stamp_committed;
pub(crate) use read::Reader;
pub(crate) use replay::replay_changes;
pub(crate) use state::TxnCore;

use crate::change::{Change, WriteStats};
use crate::error::{Result, StorageError};
use crate::store::{CommitTicket, Store};
use nereid_values::{Direction, NodeId, RelId, Value};
pub use read_batches::NodeCursor;
use state::Status;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use write::{Identity, Writer};

/// One MVCC transaction (snapshot isolation). Dropping it without committing
/// rolls it back.
///
/// Reads see the snapshot at [`Txn::read_ts`] plus this transaction's own
/// writes. After a commit, reads keep seeing that snapshot plus the
/// committed writes; after a rollback, the snapshot alone. A write that hits
/// a write-write conflict dooms the transaction: its commit fails with the
/// same `WriteConflict`, and it should be rolled back and retried.
pub struct Txn {
    store: Arc<Store>,
    core: TxnCore,
    /// Store calls made through this transaction (reads and writes), for
    /// PROFILE's db hits: one per call, whatever it returns (one per entity
    /// for the calls that read a column of entities).
    hits: AtomicU64,
    /// When it first read an index (Unix milliseconds): the `lastRead` it
    /// gives the indexes it reads, so a seek reads no clock.
    index_read_at: std::sync::OnceLock<u64>,
}

impl Txn {
    pub(crate) fn new(store: Arc<Store>, core: TxnCore) -> Self {
        Txn {
            store,
            core,
            hits: AtomicU64::new(0),
            index_read_at: std::sync::OnceLock::new(),
        }
    }

    pub fn read_ts(&self) -> u64 {
        self.core.read_ts()
    }

    /// Store calls made through this transaction so far (PROFILE's db
    /// hits: an operator's are the difference across its work).
    pub fn db_hits(&self) -> u64 {
        self.hits.load(Ordering::Relaxed)
    }

    /// A call reading `entities` at once counts as that many db hits (as
    /// that many single reads would), not one: PROFILE's figures then do
    /// not depend on whether the executor batched its reads.
    fn count_batched(&self, entities: usize) {
        let extra = u64::try_from(entities.saturating_sub(1)).unwrap_or(u64::MAX);
        self.hits.fetch_add(extra, Ordering::Relaxed);
    }

    pub(crate) fn reader(&self) -> Reader<'_> {
        self.hits.fetch_add(1, Ordering::Relaxed);
        Reader {
            store: &self.store,
            view: self.core.view(),
        }
    }

    /// Runs one write operation with the state locked; conflicts doom the
    /// transaction.
    fn write<T>(&self, op: impl FnOnce(&mut Writer<'_>) -> Result<T>) -> Result<T> {
        self.hits.fetch_add(1, Ordering::Relaxed);
        let mut state = self.core.state.lock();
        if state.status != Status::Active {
            return Err(StorageError::TxnClosed);
        }
        if state.schema_change {
            return Err(StorageError::SchemaAndDataInOneTransaction(
                "Tried to execute Write query after executing Schema modification".into(),
            ));
        }
        let result = op(&mut Writer::new(&self.store, &self.core, &mut state));
        if let Err(
            e @ (StorageError::WriteConflict(_)
            | StorageError::Deadlock(_)
            | StorageError::LockWaitTimedOut(_)
            | StorageError::LockWaitStopped),
        ) = &result
        {
            state.doomed.get_or_insert_with(|| e.to_string());
        }
        result
    }

    /// Bounds this transaction's waits for other transactions' writes
    /// (module `lock_wait`): the running statement's deadline and stop
    /// flag. Without limits a wait ends only when the holder ends.
    pub fn set_wait_limits(&self, limits: crate::WaitLimits) {
        *self.core.limits.lock() = limits;
    }

    /// Starts the transaction again on the newest published snapshot, its
    /// writes undone: how a statement that met a write committed after its
    /// snapshot runs again when nothing has seen the old snapshot's
    /// answers (docs/adr/0126-waiting-for-uncommitted-writes.md). Fails
    /// once the transaction committed.
    pub fn restart(&self) -> Result<()> {
        let mut state = self.core.state.lock();
        match state.status {
            Status::Committed => return Err(StorageError::TxnClosed),
            Status::Active => commit::rollback_locked(&self.store, &self.core, &mut state),
            Status::RolledBack => {}
        }
        let old = self.core.read_ts();
        let new = self.store.snapshots.register(|| self.store.visible_ts());
        self.core.set_read_ts(new);
        self.store.snapshots.unregister(old);
        state.reset();
        Ok(())
    }

    // ---- reads: the snapshot at read_ts plus this transaction's own writes

    /// The access-pattern layer over this transaction's view.
    pub fn apl(&self) -> crate::apl::Apl<'_> {
        crate::apl::Apl {
            reader: self.reader(),
        }
    }

    /// All visible nodes, optionally only those carrying `label`. The order
    /// is unspecified (partition by partition).
    pub fn scan_nodes(&self, label: Option<&str>) -> Vec<NodeId> {
        self.reader().scan_nodes(label)
    }
    /// Up to `max` visible nodes from `from` on, appended to `out`, and
    /// where the next batch starts (`None`: none left). Batches walk the
    /// nodes of one snapshot in [`Txn::scan_nodes`]'s order without
    /// holding them all.
    pub fn scan_nodes_batch(
        &self,
        from: NodeCursor,
        max: usize,
        out: &mut Vec<NodeId>,
    ) -> Option<NodeCursor> {
        self.reader().scan_nodes_batch(from, max, out)
    }
    /// A visible relationship property whose key is not `except` (the
    /// relationship and the key), if there is one: one scan of the
    /// relationship properties, stopping at the first.
    pub fn rel_property_other_than(&self, except: &str) -> Option<(RelId, String)> {
        self.reader().rel_property_other_than(except)
    }
    /// Visible nodes whose property `key` equals the string `value`, and
    /// that carry `label` when given: found through the O index of the
    /// vertex properties (every string value is indexed), not by a scan.
    /// The order is unspecified (partition by partition).
    pub fn nodes_with_string_property(
        &self,
        label: Option<&str>,
        key: &str,
        value: &str,
    ) -> Vec<NodeId> {
        self.reader().nodes_with_string_property(label, key, value)
    }
    /// The visible node whose `id(n)` is `external`, if any: the inverse of
    /// [`NodeId::external`] (which drops the vertex relation tag).
    pub fn node_by_external_id(&self, external: i64) -> Option<NodeId> {
        let low = u64::try_from(external).ok().filter(|&v| v < 1 << 48)?;
        let id = NodeId(crate::ids::vertex_gui_from_external(low));
        self.node_exists(id).then_some(id)
    }
    /// The visible node whose `elementId(n)` is `element_id`: a dictionary
    /// lookup of the vertex's lexical form.
    pub fn node_by_element_id(&self, element_id: &str) -> Option<NodeId> {
        let id = NodeId(self.store.vertices.lookup(element_id.as_bytes())?);
        self.node_exists(id).then_some(id)
    }
    pub fn node_exists(&self, id: NodeId) -> bool {
        self.reader().node_exists(id.0)
    }
    /// Whether `label` was ever written, as Neo4j's label token exists once
    /// created (even after no node carries it). Labels share the literal
    /// dictionary with string values, so a string value spelled like the
    /// label counts too: a caller warning of unknown names warns less, never
    /// wrongly.
    pub fn label_known(&self, label: &str) -> bool {
        self.store.literals.lookup(label.as_bytes()).is_some()
    }
    /// Whether relationship type `rel_type` was ever written.
    pub fn rel_type_known(&self, rel_type: &str) -> bool {
        self.store.types.lookup(rel_type).is_some()
    }
    /// Whether property key `key` was ever written (on a node or a
    /// relationship).
    pub fn property_key_known(&self, key: &str) -> bool {
        self.store.keys.lookup(key).is_some()
    }
    /// Labels in the order they were added.
    pub fn node_labels(&self, id: NodeId) -> Vec<String> {
        self.reader().node_labels(id.0)
    }
    pub fn node_has_label(&self, id: NodeId, label: &str) -> bool {
        self.reader().node_has_label(id.0, label)
    }
    /// [`Txn::node_has_label`] of each of `ids`, aligned with it (a batch
    /// of rows' `n:Label`).
    pub fn node_has_label_column(&self, ids: &[NodeId], label: &str) -> Vec<bool> {
        let nodes: Vec<u64> = ids.iter().map(|id| id.0).collect();
        self.count_batched(ids.len());
        self.reader().node_has_label_column(&nodes, label)
    }
    pub fn node_property(&self, id: NodeId, key: &str) -> Option<Value> {
        self.reader().node_property(id.0, key)
    }
    pub fn node_properties(&self, id: NodeId) -> BTreeMap<String, Value> {
        self.reader().node_properties(id.0)
    }
    /// [`Txn::node_property`] of each of `ids`, aligned with it (a batch
    /// of rows' `n.key`): the key resolved once and the nodes' first
    /// misses started together.
    pub fn node_property_column(&self, ids: &[NodeId], key: &str) -> Vec<Option<Value>> {
        let nodes: Vec<u64> = ids.iter().map(|id| id.0).collect();
        self.count_batched(ids.len());
        self.reader().node_property_column(&nodes, key)
    }
    /// The vertex identifier string (the node's element id), for a visible node.
    pub fn node_key(&self, id: NodeId) -> Option<String> {
        if !self.node_exists(id) {
            return None;
        }
        self.store.vertices.resolve_str(id.0)
    }
    /// Relationships of `id` in `dir`, restricted to `types` when non-empty:
    /// `(relationship, other endpoint)` pairs. A self-loop appears once for
    /// `Outgoing`/`Incoming` and once for `Both`.
    pub fn expand(&self, id: NodeId, dir: Direction, types: &[String]) -> Vec<(RelId, NodeId)> {
        self.reader().expand(id.0, dir, types)
    }
    /// How many relationships [`Txn::expand`] lists for the same arguments
    /// (the node's degree by type and direction, a self-loop once in
    /// `Both`), counted without listing them.
    pub fn degree(&self, id: NodeId, dir: Direction, types: &[String]) -> u64 {
        self.reader().degree(id.0, dir, types)
    }
    /// At least as many as [`Txn::expand`] of `id` in `dir` lists for any
    /// types, read from the lengths of its adjacency lists without reading
    /// a relationship (deleted ones not yet collected count too): what a
    /// read of all of them would cost, cheaply.
    pub fn degree_bound(&self, id: NodeId, dir: Direction) -> u64 {
        self.reader().degree_bound(id.0, dir)
    }
    /// [`Txn::expand`] of each of `ids` (a batch of rows' start nodes),
    /// read set-at-a-time through the APL: `(node, relationship, other)`
    /// grouped by node in ascending id order, each node once (see
    /// [`crate::apl::Apl::expand_many`]). Counted as one store call per id.
    pub fn expand_column(
        &self,
        ids: &[NodeId],
        dir: Direction,
        types: &[String],
    ) -> Vec<crate::apl::Neighbour> {
        self.count_batched(ids.len());
        self.apl().expand_many(ids, dir, types)
    }
    /// [`Txn::expand`] of `id` kept to the relationships whose other end
    /// is `other` (each `(relationship, other)`), without listing the rest
    /// of `id`'s relationships: a binary search in the source's adjacency.
    pub fn expand_into(
        &self,
        id: NodeId,
        other: NodeId,
        dir: Direction,
        types: &[String],
    ) -> Vec<(RelId, NodeId)> {
        self.reader().expand_into(id.0, other.0, dir, types)
    }
    pub fn rel_exists(&self, id: RelId) -> bool {
        self.reader().edge(id.0).is_some()
    }
    /// `(start, end, type)` of a visible relationship.
    pub fn rel_endpoints(&self, id: RelId) -> Option<(NodeId, NodeId, String)> {
        self.reader().rel_endpoints(id)
    }
    /// The type of a relationship, ignoring any deletion mark: a row may still hold a
    /// relationship its own statement deleted, and openCypher's `type(r)` answers for it.
    /// Only ids that reached a row (so were visible to this snapshot) are ever asked.
    pub fn rel_type_ignoring_deletion(&self, id: RelId) -> Option<String> {
        let (edge, _) = self.reader().edge_any(id.0)?;
        self.store
            .types
            .name(edge.type_id)
            .map(|name| name.to_string())
    }
    pub fn rel_property(&self, id: RelId, key: &str) -> Option<Value> {
        let reader = self.reader();
        reader.edge(id.0)?;
        reader.rel_property(id.0, key)
    }
    /// [`Txn::rel_property`] of each of `ids`, aligned with it (a batch of
    /// rows' `r.key`): the key resolved once, one reader for the batch.
    pub fn rel_property_column(&self, ids: &[RelId], key: &str) -> Vec<Option<Value>> {
        let rels: Vec<u64> = ids.iter().map(|id| id.0).collect();
        self.count_batched(ids.len());
        self.reader().rel_property_column(&rels, key)
    }
    pub fn rel_properties(&self, id: RelId) -> BTreeMap<String, Value> {
        self.reader().rel_properties(id.0)
    }

    // ---- writes (visible to this transaction at once, to others after commit)

    /// Null-valued properties are skipped; other values must be storable.
    pub fn create_node(
        &self,
        labels: &[String],
        properties: &BTreeMap<String, Value>,
    ) -> Result<NodeId> {
        self.write(|w| w.create_node(Identity::Fresh, labels, properties))
    }
    /// Creates a node whose identifier (`elementId`, the REL_VERT form) is
    /// `key` rather than a generated `n<seq>`: how a bulk load keeps user
    /// ids. Fails with `ConstraintViolation` while a node visible to this
    /// transaction has the key. Transactions creating the same key
    /// concurrently are not detected: callers creating keyed nodes run one
    /// at a time (the engine's loader queue does).
    pub fn create_node_with_key(
        &self,
        key: &str,
        labels: &[String],
        properties: &BTreeMap<String, Value>,
    ) -> Result<NodeId> {
        self.write(|w| w.create_node(Identity::Keyed(key), labels, properties))
    }
    pub fn create_rel(
        &self,
        src: NodeId,
        dst: NodeId,
        rel_type: &str,
        properties: &BTreeMap<String, Value>,
    ) -> Result<RelId> {
        self.write(|w| w.create_rel(None, src, dst, rel_type, properties))
    }
    /// `Value::Null` removes the property.
    pub fn set_node_property(&self, id: NodeId, key: &str, value: Value) -> Result<()> {
        self.write(|w| w.set_node_property(id, key, value))
    }
    pub fn set_rel_property(&self, id: RelId, key: &str, value: Value) -> Result<()> {
        self.write(|w| w.set_rel_property(id, key, value))
    }
    /// [`Txn::set_node_property`] of each pair in order (a later pair of the
    /// same key wins), in time linear in the pairs and the node's
    /// properties: what `SET n += $map` and `SET n = $map` need.
    pub fn set_node_properties<K: AsRef<str>>(
        &self,
        id: NodeId,
        properties: impl IntoIterator<Item = (K, Value)>,
    ) -> Result<()> {
        self.write(|w| w.set_node_properties(id, properties))
    }
    /// [`Txn::set_node_properties`] for a relationship.
    pub fn set_rel_properties<K: AsRef<str>>(
        &self,
        id: RelId,
        properties: impl IntoIterator<Item = (K, Value)>,
    ) -> Result<()> {
        self.write(|w| w.set_rel_properties(id, properties))
    }
    pub fn add_label(&self, id: NodeId, label: &str) -> Result<()> {
        self.write(|w| w.add_label(id, label))
    }
    pub fn remove_label(&self, id: NodeId, label: &str) -> Result<()> {
        self.write(|w| w.remove_label(id, label))
    }
    /// Deleting a relationship this transaction already deleted is a no-op.
    pub fn delete_rel(&self, id: RelId) -> Result<()> {
        self.write(|w| w.delete_rel(id))
    }
    /// Fails with `DeleteConnectedNode` when relationships remain, unless
    /// `detach`, which deletes them first. Deleting a node this transaction
    /// already deleted is a no-op.
    pub fn delete_node(&self, id: NodeId, detach: bool) -> Result<()> {
        self.write(|w| w.delete_node(id, detach))
    }

    /// What this transaction has changed so far.
    pub fn stats(&self) -> WriteStats {
        self.core.state.lock().stats.clone()
    }
    pub fn is_read_only(&self) -> bool {
        self.core.state.lock().changes.is_empty()
    }

    // ---- end of life

    /// Validates, assigns the commit timestamp, stamps the writes and calls
    /// `log(commit_ts, changes)` while holding the commit lock, so that the
    /// log order equals commit-timestamp order. If `log` fails the commit is
    /// rolled back. The caller waits for durability, then publishes the ticket.
    /// A read-only transaction returns `Ok(None)` without calling `log`.
    pub fn commit<E>(
        &self,
        log: impl FnOnce(u64, &[Change]) -> std::result::Result<(), E>,
    ) -> std::result::Result<Option<CommitTicket>, CommitError<E>> {
        let committed = commit::commit(&self.store, &self.core, log);
        if let Ok(Some(commit_ts)) = committed {
            let populate = std::mem::take(&mut self.core.state.lock().populate);
            for index in populate {
                self.store.populate_in_background(index, commit_ts);
            }
        }
        self.store.maybe_collect_garbage();
        Ok(committed?.map(|commit_ts| CommitTicket {
            store: self.store.clone(),
            commit_ts,
        }))
    }
    /// Undoes a commit that was stamped but will never be published because
    /// its log record failed: the transaction ends rolled back, and its
    /// timestamp may be assigned again once every later stamped commit was
    /// revoked too ([`Store::rewind_commits`]). Fails if the commit is
    /// already published or the transaction did not commit.
    pub fn revoke_commit(&self) -> Result<()> {
        revoke::revoke(&self.store, &self.core)
    }

    /// Undoes every write; a no-op once committed or rolled back.
    pub fn rollback(&self) {
        commit::rollback(&self.store, &self.core);
        self.store.maybe_collect_garbage();
    }
}

impl Drop for Txn {
    fn drop(&mut self) {
        commit::rollback(&self.store, &self.core);
        self.store.snapshots.unregister(self.core.read_ts());
        self.store.maybe_collect_garbage();
    }
}

/// Why a commit failed.
#[derive(Debug)]
pub enum CommitError<E> {
    Storage(StorageError),
    Log(E),
}

impl<E: std::fmt::Display> std::fmt::Display for CommitError<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CommitError::Storage(e) => write!(f, "{e}"),
            CommitError::Log(e) => write!(f, "writing the commit to the log failed: {e}"),
        }
    }
}

impl<E: std::fmt::Debug + std::fmt::Display> std::error::Error for CommitError<E> {}
