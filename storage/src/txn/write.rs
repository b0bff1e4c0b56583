//! Write operations of a transaction. Every operation turns into tuple
//! inserts and deletes (a property change is delete + insert), recorded in
//! the undo list, plus one logical [`Change`] for the log.
//!
//! Operations check their preconditions (existence, storable values,
//! `DeleteConnectedNode`) before the first physical write, so such errors
//! leave the transaction unchanged. A write-write conflict may strike in the
//! middle of a multi-tuple operation; the transaction is then doomed.

use super::read::{cell_of, Reader};
use super::schema_writes::Prospect;
use super::state::{FreshKey, TxnCore, TxnState, Undo};
use crate::change::Change;
use crate::error::{Result, StorageError};
use crate::ids::vertex_partition;
use crate::mvcc::{is_commit_ts, DeleteOutcome, FREED, NONE};
use crate::predicates::{PRED_EXISTS, PRED_LABEL};
use crate::relation::{RelKind, TupleRef};
use crate::schema::EntityKind;
use crate::store::{Store, VertexKey};
use crate::typed_value::{dict_error, Encoded, TypedValue};
use nereid_values::{Direction, NodeId, RelId, Value};
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;

/// Where a created vertex's identifier (its REL_VERT form) comes from.
#[derive(Copy, Clone)]
pub(crate) enum Identity<'k> {
    /// A generated `n<seq>`.
    Fresh,
    /// A form the caller chose (a loaded user id), unique among visible nodes.
    Keyed(&'k str),
    /// The logged gui and form of a replayed creation.
    Replayed(NodeId, &'k str),
}

/// A transaction's state, locked for one write operation.
pub(crate) struct Writer<'a> {
    pub(super) store: &'a Store,
    pub(super) core: &'a TxnCore,
    pub(super) st: &'a mut TxnState,
}

fn node_name(node: u64) -> String {
    format!("node {}", NodeId(node).external())
}

fn rel_name(rel: u64) -> String {
    format!("relationship {}", RelId(rel).external())
}

impl<'a> Writer<'a> {
    pub(crate) fn new(store: &'a Store, core: &'a TxnCore, st: &'a mut TxnState) -> Self {
        Writer { store, core, st }
    }

    pub(super) fn reader(&self) -> Reader<'a> {
        Reader {
            store: self.store,
            view: self.core.view(),
        }
    }

    fn insert(
        &mut self,
        kind: RelKind,
        part: usize,
        s: u64,
        p: u32,
        o: impl Into<Encoded>,
        forced_sid: Option<u64>,
    ) -> Result<u64> {
        self.insert_at(kind, part, s, p, o, forced_sid)
            .map(|(sid, _)| sid)
    }

    /// [`Writer::insert`], also returning where the tuple went.
    pub(super) fn insert_at(
        &mut self,
        kind: RelKind,
        part: usize,
        s: u64,
        p: u32,
        o: impl Into<Encoded>,
        forced_sid: Option<u64>,
    ) -> Result<(u64, TupleRef)> {
        let relation = self.store.relation(kind);
        let (index, sid) = relation.insert(part, s, p, o, forced_sid, self.core.marker)?;
        let at = TupleRef { kind, part, index };
        self.st.undo.push(Undo::Inserted(at));
        Ok((sid, at))
    }

    /// Marks a visible tuple deleted; `what` names it in a conflict error.
    /// A tuple another open transaction deleted (or replaced) is waited
    /// for: deleted again if that transaction rolls back, a conflict if it
    /// commits (module `lock_wait`).
    pub(super) fn delete(&mut self, at: TupleRef, what: impl FnOnce() -> String) -> Result<()> {
        let me = self.core.marker;
        loop {
            match self.store.with_tuple(at, |t| t.try_delete(me)) {
                Some(DeleteOutcome::Deleted) => {
                    self.st.undo.push(Undo::Deleted(at));
                    return Ok(());
                }
                Some(DeleteOutcome::AlreadyMine) => return Ok(()),
                Some(DeleteOutcome::Conflict) => {
                    if self.wait_out(|| self.end_of(at))? != NONE {
                        return Err(StorageError::WriteConflict(what()));
                    }
                }
                None => return Err(StorageError::EntityNotFound(what())),
            }
        }
    }

    /// The tuple's `end` stamp (`FREED` when it is gone).
    fn end_of(&self, at: TupleRef) -> u64 {
        self.store.with_tuple(at, |t| t.end()).unwrap_or(FREED)
    }

    /// Waits while `stamp()` is another transaction's: open, or committed
    /// and not yet published (replay never waits). Returns the stamp then.
    pub(super) fn wait_out(&self, stamp: impl Fn() -> u64) -> Result<u64> {
        if self.core.replaying {
            return Ok(stamp());
        }
        let limits = self.core.limits.lock().clone();
        let visible = || self.store.visible_ts();
        self.store
            .lock_waits
            .wait(self.core.marker, &limits, visible, stamp)
    }

    /// True when the tuple's `end` shows a deletion by someone else that we
    /// cannot see (committed after our snapshot), once a deletion still
    /// open has ended.
    fn deleted_by_other(&self, at: TupleRef) -> Result<bool> {
        let me = self.core.marker;
        let end = self.wait_out(|| self.end_of(at))?;
        Ok(end != NONE && end != me && (!is_commit_ts(end) || end > self.core.read_ts()))
    }

    /// Requires a visible node that no one else is deleting, and remembers
    /// it for commit-time validation.
    pub(super) fn lock_node(&mut self, node: NodeId) -> Result<()> {
        let exists = self
            .reader()
            .exists_tuple(node.0)
            .ok_or_else(|| StorageError::EntityNotFound(node_name(node.0)))?;
        if self.deleted_by_other(exists)? {
            return Err(StorageError::WriteConflict(node_name(node.0)));
        }
        if !self.st.created_nodes.contains(&node.0) {
            self.st.touched_nodes.insert(node.0);
        }
        Ok(())
    }

    /// Requires a visible relationship that no one else is deleting.
    pub(super) fn lock_rel(&mut self, rel: RelId) -> Result<usize> {
        let edge = self
            .reader()
            .edge(rel.0)
            .ok_or_else(|| StorageError::EntityNotFound(rel_name(rel.0)))?;
        if self.deleted_by_other(edge.at)? {
            return Err(StorageError::WriteConflict(rel_name(rel.0)));
        }
        if !self.st.created_rels.contains(&rel.0) {
            self.st.touched_rels.insert(rel.0);
        }
        Ok(edge.at.part)
    }

    fn encode_properties(
        &self,
        properties: &BTreeMap<String, Value>,
    ) -> Result<Vec<(u32, Encoded)>> {
        properties
            .iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| {
                Ok((
                    self.store.keys.intern(k),
                    TypedValue::encode(v, &self.store.literals)?,
                ))
            })
            .collect()
    }

    /// The gui of a vertex identifier the caller chose (a loaded user id),
    /// interned in REL_VERT; refused while a visible node holds it. A key
    /// whose node was deleted (or whose load was rolled back) is reused:
    /// dictionary records are never removed.
    fn keyed_vertex(&self, key: &str) -> Result<(u64, String)> {
        let interned = self
            .store
            .vertices
            .intern(key.as_bytes())
            .map_err(dict_error)?;
        if self.reader().node_exists(interned.gui) {
            return Err(StorageError::ConstraintViolation(format!(
                "a node with id `{key}` already exists"
            )));
        }
        Ok((interned.gui, key.to_string()))
    }

    /// Registers a logged vertex identifier under its logged gui (replay).
    fn replayed_vertex(&self, id: NodeId, key: &str) -> Result<(u64, String)> {
        self.store
            .vertices
            .register(id.0, key.as_bytes())
            .map_err(|e| StorageError::Replay(e.to_string()))?;
        if let Some(seq) = VertexKey::seq(key) {
            self.store
                .vertex_seq
                .fetch_max(seq.saturating_add(1), Ordering::Relaxed);
        }
        if self.reader().node_exists(id.0) {
            return Err(StorageError::Replay(format!(
                "{} created twice",
                node_name(id.0)
            )));
        }
        Ok((id.0, key.to_string()))
    }

    pub(crate) fn create_node(
        &mut self,
        identity: Identity<'_>,
        labels: &[String],
        properties: &BTreeMap<String, Value>,
    ) -> Result<NodeId> {
        let prospect = Prospect::Create { labels, properties };
        self.schema_write(
            EntityKind::Node,
            None,
            prospect,
            |w| w.create_node_unchecked(identity, labels, properties),
            |id| id.0,
        )
    }

    fn create_node_unchecked(
        &mut self,
        identity: Identity<'_>,
        labels: &[String],
        properties: &BTreeMap<String, Value>,
    ) -> Result<NodeId> {
        let encoded = self.encode_properties(properties)?;
        let mut unique_labels: Vec<String> = Vec::with_capacity(labels.len());
        for label in labels {
            if !unique_labels.contains(label) {
                unique_labels.push(label.clone());
            }
        }
        let label_guis = unique_labels
            .iter()
            .map(|l| self.store.literals.intern(l.as_bytes()).map(|i| i.gui))
            .collect::<std::result::Result<Vec<u64>, _>>()
            .map_err(dict_error)?;
        let (gui, key) = match identity {
            Identity::Fresh => self.store.fresh_vertex()?,
            Identity::Keyed(key) => self.keyed_vertex(key)?,
            Identity::Replayed(id, key) => self.replayed_vertex(id, key)?,
        };
        let part = vertex_partition(gui, self.store.partitions);
        self.insert(RelKind::Vp, part, gui, PRED_EXISTS, TypedValue::NONE, None)?;
        for &label in &label_guis {
            let o = TypedValue::string_gui(label);
            self.insert(RelKind::Vp, part, gui, PRED_LABEL, o, None)?;
        }
        for &(key_id, o) in &encoded {
            self.insert(RelKind::Vp, part, gui, key_id, o, None)?;
        }
        self.st.created_nodes.insert(gui);
        let stats = &mut self.st.stats;
        stats.nodes_created += 1;
        stats.labels_added += label_guis.len() as u64;
        stats.properties_set += encoded.len() as u64;
        self.st.changes.push(Change::CreateNode {
            id: NodeId(gui),
            key,
            labels: unique_labels,
            properties: non_null(properties),
        });
        Ok(NodeId(gui))
    }

    pub(crate) fn create_rel(
        &mut self,
        forced: Option<RelId>,
        src: NodeId,
        dst: NodeId,
        rel_type: &str,
        properties: &BTreeMap<String, Value>,
    ) -> Result<RelId> {
        let types = [rel_type.to_string()];
        let prospect = Prospect::Create {
            labels: &types,
            properties,
        };
        self.schema_write(
            EntityKind::Relationship,
            None,
            prospect,
            |w| w.create_rel_unchecked(forced, src, dst, rel_type, properties),
            |id| id.0,
        )
    }

    fn create_rel_unchecked(
        &mut self,
        forced: Option<RelId>,
        src: NodeId,
        dst: NodeId,
        rel_type: &str,
        properties: &BTreeMap<String, Value>,
    ) -> Result<RelId> {
        let encoded = self.encode_properties(properties)?;
        self.lock_node(src)?;
        self.lock_node(dst)?;
        let type_id = self.store.types.intern(rel_type);
        let cell = cell_of(self.store, src.0, dst.0);
        let o = TypedValue::vertex(dst.0);
        let sid = self.insert(RelKind::E, cell, src.0, type_id, o, forced.map(|r| r.0))?;
        for &(key_id, o) in &encoded {
            self.insert(RelKind::Ep, cell, sid, key_id, o, None)?;
        }
        self.st.created_rels.insert(sid);
        self.st.stats.relationships_created += 1;
        self.st.stats.properties_set += encoded.len() as u64;
        self.st.changes.push(Change::CreateRel {
            id: RelId(sid),
            src,
            dst,
            rel_type: rel_type.to_string(),
            properties: non_null(properties),
        });
        Ok(RelId(sid))
    }

    pub(crate) fn add_label(&mut self, id: NodeId, label: &str) -> Result<()> {
        let prospect = Prospect::AddLabel(label);
        let write = |w: &mut Self| w.add_label_unchecked(id, label);
        self.schema_write(EntityKind::Node, Some(id.0), prospect, write, |_| id.0)
    }

    fn add_label_unchecked(&mut self, id: NodeId, label: &str) -> Result<()> {
        self.lock_node(id)?;
        let gui = self
            .store
            .literals
            .intern(label.as_bytes())
            .map_err(dict_error)?
            .gui;
        if self.reader().label_tuple(id.0, gui).is_some() {
            return Ok(());
        }
        let part = vertex_partition(id.0, self.store.partitions);
        let o = TypedValue::string_gui(gui);
        let key = FreshKey {
            kind: RelKind::Vp,
            part,
            s: id.0,
            p: PRED_LABEL,
            o: Some(o),
        };
        self.await_fresh_key(&key)?;
        self.st.fresh.push(key);
        self.insert(RelKind::Vp, part, id.0, PRED_LABEL, o, None)?;
        self.st.stats.labels_added += 1;
        self.st.changes.push(Change::AddLabel {
            id,
            label: label.to_string(),
        });
        Ok(())
    }

    pub(crate) fn remove_label(&mut self, id: NodeId, label: &str) -> Result<()> {
        self.lock_node(id)?;
        let Some(gui) = self.store.literals.lookup(label.as_bytes()) else {
            return Ok(());
        };
        let Some(at) = self.reader().label_tuple(id.0, gui) else {
            return Ok(());
        };
        self.schema_forget(EntityKind::Node, id.0, Some(label));
        self.delete(at, || format!("label {label}"))?;
        self.st.stats.labels_removed += 1;
        self.st.changes.push(Change::RemoveLabel {
            id,
            label: label.to_string(),
        });
        Ok(())
    }

    pub(crate) fn delete_rel(&mut self, id: RelId) -> Result<()> {
        let reader = self.reader();
        let Some(edge) = reader.edge(id.0) else {
            return match reader.edge_any(id.0) {
                Some((_, end)) if end == self.core.marker => Ok(()),
                _ => Err(StorageError::EntityNotFound(rel_name(id.0))),
            };
        };
        self.schema_forget(EntityKind::Relationship, id.0, None);
        // The edge tuple first: its CAS is the lock that decides conflicts.
        self.delete(edge.at, || rel_name(id.0))?;
        for (at, _, _) in reader.rel_tuples(id.0, |_| true) {
            self.delete(at, || rel_name(id.0))?;
        }
        if !self.st.created_rels.contains(&id.0) {
            self.st.deleted_rels.push(id.0);
        }
        self.st.stats.relationships_deleted += 1;
        self.st.changes.push(Change::DeleteRel { id });
        Ok(())
    }

    pub(crate) fn delete_node(&mut self, id: NodeId, detach: bool) -> Result<()> {
        let reader = self.reader();
        let Some(exists) = reader.exists_tuple(id.0) else {
            return if reader.node_deleted_with(id.0, self.core.marker) {
                Ok(())
            } else {
                Err(StorageError::EntityNotFound(node_name(id.0)))
            };
        };
        let rels = reader.expand(id.0, Direction::Both, &[]);
        if !rels.is_empty() && !detach {
            return Err(StorageError::DeleteConnectedNode(id.external()));
        }
        self.schema_forget(EntityKind::Node, id.0, None);
        // The existence tuple first: its CAS is the lock that decides conflicts.
        self.delete(exists, || node_name(id.0))?;
        for (rel, _) in rels {
            self.delete_rel(rel)?;
        }
        for (at, _, _) in reader.node_tuples(id.0, |p, _| p != PRED_EXISTS) {
            self.delete(at, || node_name(id.0))?;
        }
        if !self.st.created_nodes.contains(&id.0) {
            self.st.deleted_nodes.push(id.0);
        }
        self.st.stats.nodes_deleted += 1;
        self.st.changes.push(Change::DeleteNode { id });
        Ok(())
    }
}

fn non_null(properties: &BTreeMap<String, Value>) -> BTreeMap<String, Value> {
    properties
        .iter()
        .filter(|(_, v)| !v.is_null())
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}
