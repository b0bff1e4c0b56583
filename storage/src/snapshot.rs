//! Snapshot export and import, for checkpoints.
//!
//! A checkpoint is the committed state at a timestamp `T` expressed as
//! [`Change`]s (one `CreateNode` per live node, one `CreateRel` per live
//! relationship), partition by partition, plus the id counters. Exporting
//! reads through an MVCC view at `T`, so writers keep committing meanwhile;
//! each partition's lock is held only to list its subjects. Importing
//! applies those changes at `T` with the recorded ids, before the store
//! serves anything, then the log replays the commits after `T` on top.
//!
//! Invariants: `T` must be a published timestamp (published implies durable,
//! see the store docs), so a checkpoint never contains a commit that a crash
//! could lose from the log; and it must stay pinned
//! ([`Store::pin_snapshot`]) for the whole export, so that garbage
//! collection keeps every version `T` can read.

use crate::change::Change;
use crate::error::{Result, StorageError};
use crate::mvcc::View;
use crate::predicates::PRED_EXISTS;
use crate::store::Store;
use crate::txn::{replay_changes, stamp_committed, Reader, TxnCore};
use nereid_values::{NodeId, RelId};
use std::sync::atomic::Ordering;

/// The id generators' positions, saved with a checkpoint so that ids are
/// not reused after a restore (a deleted entity's id would otherwise be
/// handed out again).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IdCounters {
    /// Next number for generated vertex identifiers (`n<number>`).
    pub vertex_seq: u64,
    /// Next partition-local statement number of every REL_E grid cell.
    pub edge_next_local: Vec<u32>,
}

impl Store {
    /// Number of node partitions (REL_VP) an export walks.
    pub fn node_partitions(&self) -> usize {
        self.vp.partitions()
    }

    /// Number of relationship partitions (REL_E grid cells) an export walks.
    pub fn rel_partitions(&self) -> usize {
        self.e.partitions()
    }

    /// The nodes of REL_VP partition `part` visible at `at`, as `CreateNode`s
    /// (labels in the order they were added). Partition 0's export starts
    /// with the schema ([`Store::export_schema`], as of now: a schema
    /// change after `at` is also in the log after it, and replaying it
    /// again changes nothing).
    ///
    /// Lazy: only the partition's subjects are listed up front; each
    /// change is built as it is asked for, so a checkpoint encodes a chunk
    /// at a time instead of holding a whole partition's changes (their
    /// property maps and strings, hundreds of megabytes on a large graph,
    /// fresh memory at the moment a bulk load's peak is reached).
    pub fn export_nodes(&self, at: u64, part: usize) -> impl Iterator<Item = Change> + '_ {
        let reader = Reader {
            store: self,
            view: View::committed(at),
        };
        let nodes: Vec<u64> = match self.vp.read(part) {
            Some(p) => p
                .scan()
                .filter(|(_, t)| t.p == PRED_EXISTS && t.visible(&View::committed(at)))
                .map(|(_, t)| t.s)
                .collect(),
            None => Vec::new(),
        };
        let schema = if part == 0 {
            self.export_schema()
        } else {
            Vec::new()
        };
        schema
            .into_iter()
            .chain(nodes.into_iter().filter_map(move |node| {
                Some(Change::CreateNode {
                    id: NodeId(node),
                    key: self.vertices.resolve_str(node)?,
                    labels: reader.node_labels(node),
                    properties: reader.node_properties(node),
                })
            }))
    }

    /// The relationships of REL_E grid cell `cell` visible at `at`, as
    /// `CreateRel`s, built lazily as [`Store::export_nodes`]'s.
    pub fn export_rels(&self, at: u64, cell: usize) -> impl Iterator<Item = Change> + '_ {
        let reader = Reader {
            store: self,
            view: View::committed(at),
        };
        let edges: Vec<(u64, u64, u32, u64)> = match self.e.read(cell) {
            Some(p) => p
                .scan()
                .filter(|(_, t)| t.visible(&View::committed(at)))
                .map(|(_, t)| (t.i, t.s, t.p, t.o.payload))
                .collect(),
            None => Vec::new(),
        };
        edges
            .into_iter()
            .filter_map(move |(sid, src, type_id, dst)| {
                Some(Change::CreateRel {
                    id: RelId(sid),
                    src: NodeId(src),
                    dst: NodeId(dst),
                    rel_type: self.types.name(type_id)?.to_string(),
                    properties: reader.rel_properties(sid),
                })
            })
    }

    /// The id generators' current positions (at or past those at any
    /// published timestamp, which is what a restore needs).
    pub fn id_counters(&self) -> IdCounters {
        IdCounters {
            vertex_seq: self.vertex_seq.load(Ordering::Relaxed),
            edge_next_local: (0..self.e.partitions())
                .map(|cell| self.e.next_local(cell))
                .collect(),
        }
    }

    /// Loads exported changes at timestamp `at` with their recorded ids.
    /// Only for a store that serves nothing yet; may be called from several
    /// threads at once (for different partitions), but every `CreateNode`
    /// must be loaded before a `CreateRel` that references it. Finish with
    /// [`Store::finish_snapshot_load`].
    pub fn load_snapshot(&self, at: u64, changes: &[Change]) -> Result<()> {
        if *self.commit_lock.lock() != 0 {
            return Err(StorageError::Replay(
                "a snapshot can only be loaded into an empty store".into(),
            ));
        }
        let mut core = TxnCore::new(self.next_txn_id(), at);
        core.replaying = true;
        replay_changes(self, &core, changes)?;
        stamp_committed(self, &core, at);
        Ok(())
    }

    /// Ends a snapshot load: the store continues at commit timestamp `at`
    /// with the saved id counters.
    pub fn finish_snapshot_load(&self, at: u64, counters: &IdCounters) -> Result<()> {
        if counters.edge_next_local.len() != self.e.partitions() {
            return Err(StorageError::Replay(format!(
                "the snapshot has {} relationship partitions, the store {}",
                counters.edge_next_local.len(),
                self.e.partitions()
            )));
        }
        let mut last = self.commit_lock.lock();
        if *last != 0 {
            return Err(StorageError::Replay(
                "a snapshot can only be loaded into an empty store".into(),
            ));
        }
        self.vertex_seq
            .fetch_max(counters.vertex_seq, Ordering::Relaxed);
        for (cell, &next) in counters.edge_next_local.iter().enumerate() {
            self.e.advance_next_local(cell, next);
        }
        *last = at;
        self.publish(at);
        drop(last);
        self.collect_garbage();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::change::StoreConfig;
    use nereid_values::{Direction, Value};
    use std::collections::BTreeMap;
    use std::sync::Arc;

    fn commit(store: &Arc<Store>, f: impl FnOnce(&crate::Txn)) {
        let txn = store.begin();
        f(&txn);
        let ticket = txn.commit(|_, _| Ok::<(), ()>(())).unwrap().unwrap();
        ticket.publish();
    }

    fn props(pairs: &[(&str, Value)]) -> BTreeMap<String, Value> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    fn export_all(store: &Store, at: u64) -> (Vec<Change>, Vec<Change>) {
        let nodes = (0..store.node_partitions())
            .flat_map(|p| store.export_nodes(at, p))
            .collect();
        let rels = (0..store.rel_partitions())
            .flat_map(|c| store.export_rels(at, c))
            .collect();
        (nodes, rels)
    }

    #[test]
    fn export_at_a_timestamp_and_import_preserve_ids_and_skip_later_commits() {
        let store = Store::new(StoreConfig { partitions: 2 });
        let mut ids = Vec::new();
        commit(&store, |t| {
            for i in 0..6 {
                let labels = vec!["A".to_string(), format!("L{i}")];
                ids.push(
                    t.create_node(&labels, &props(&[("i", Value::Int(i))]))
                        .unwrap(),
                );
            }
        });
        let mut rel = None;
        commit(&store, |t| {
            rel = Some(
                t.create_rel(ids[0], ids[1], "R", &props(&[("w", Value::Float(0.5))]))
                    .unwrap(),
            );
            t.delete_node(ids[5], true).unwrap();
        });
        let at = store.visible_ts();
        // A commit after the snapshot timestamp must not be exported.
        commit(&store, |t| {
            t.set_node_property(ids[0], "late", Value::Bool(true))
                .unwrap();
            t.create_node(&[], &BTreeMap::new()).unwrap();
        });
        let (nodes, rels) = export_all(&store, at);
        assert_eq!(nodes.len(), 5);
        assert_eq!(rels.len(), 1);
        let counters = store.id_counters();

        let copy = Store::new(StoreConfig { partitions: 2 });
        copy.load_snapshot(at, &nodes).unwrap();
        copy.load_snapshot(at, &rels).unwrap();
        copy.finish_snapshot_load(at, &counters).unwrap();
        assert_eq!(copy.visible_ts(), at);
        let txn = copy.begin();
        assert_eq!(txn.scan_nodes(None).len(), 5);
        assert!(!txn.node_exists(ids[5]));
        assert_eq!(txn.node_labels(ids[2]), vec!["A", "L2"]);
        assert_eq!(txn.node_property(ids[3], "i"), Some(Value::Int(3)));
        assert_eq!(txn.node_property(ids[0], "late"), None);
        assert_eq!(
            txn.expand(ids[0], Direction::Outgoing, &[]),
            vec![(rel.unwrap(), ids[1])]
        );
        assert_eq!(txn.rel_property(rel.unwrap(), "w"), Some(Value::Float(0.5)));
        // The log continues after the snapshot, and new ids do not reuse old ones.
        assert!(copy.replay(at, &[]).is_err());
        let fresh = {
            let t = copy.begin();
            let n = t.create_node(&[], &BTreeMap::new()).unwrap();
            t.commit(|_, _| Ok::<(), ()>(()))
                .unwrap()
                .unwrap()
                .publish();
            n
        };
        assert!(!ids.contains(&fresh));
        assert!(
            copy.load_snapshot(at, &nodes).is_err(),
            "only into an empty store"
        );
    }
}
