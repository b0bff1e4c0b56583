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

mod node_walk;

use crate::change::Change;
use crate::error::{Result, StorageError};
use crate::export_record::{
    Exported, ExportedNode, ExportedProperties, ExportedRel, KeyOrder, Labels,
};
use crate::ids::split_sid;
use crate::mvcc::View;
use crate::store::Store;
use crate::txn::{replay_changes, stamp_committed, Reader, TxnCore};
use crate::typed_value::Encoded;
use nereid_values::{NodeId, RelId};
use node_walk::NodeListing;
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

/// How many nodes ahead the node export prefetches a vertex key's record
/// (its gui slot twice as far ahead).
const KEY_AHEAD: usize = 8;

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
    /// (labels in the order they were added): [`Store::export_node_records`]
    /// as changes.
    pub fn export_nodes(&self, at: u64, part: usize) -> impl Iterator<Item = Change> + '_ {
        self.export_node_records(at, part)
            .map(Exported::into_change)
    }

    /// The nodes of REL_VP partition `part` visible at `at`, as
    /// [`Exported`] entities a checkpoint encodes without building changes.
    /// Partition 0's export starts with the schema
    /// ([`Store::export_schema`], as of now: a schema change after `at` is
    /// also in the log after it, and replaying it again changes nothing).
    ///
    /// Lazy: only the partition's subjects are listed up front; each
    /// entity is read as it is asked for, so a checkpoint encodes a chunk
    /// at a time instead of holding a whole partition's (fresh memory at
    /// the moment a bulk load's peak is reached).
    pub fn export_node_records(
        &self,
        at: u64,
        part: usize,
    ) -> impl Iterator<Item = Exported<'_>> + '_ {
        let reader = Reader {
            store: self,
            view: View::committed(at),
        };
        let mut listing = NodeListing::read(self, part, at);
        let nodes = std::mem::take(&mut listing.nodes);
        let schema = if part == 0 {
            self.export_schema()
        } else {
            Vec::new()
        };
        // A node's stored properties, reused from node to node.
        let mut found = Vec::new();
        let order = KeyOrder::of(self);
        schema
            .into_iter()
            .map(Exported::Change)
            .chain((0..nodes.len()).filter_map(move |i| {
                // A node's key is two random reads (gui slot, record): the
                // slot is fetched 16 nodes ahead, the record 8 ahead.
                if let Some(&(ahead, _)) = nodes.get(i + 2 * KEY_AHEAD) {
                    self.vertices.prefetch_gui(ahead);
                }
                if let Some(&(ahead, _)) = nodes.get(i + KEY_AHEAD) {
                    self.vertices.prefetch_form(ahead);
                }
                let (node, from) = nodes[i];
                let key = self.vertices.str_of(node)?;
                let mut labels = Labels::new();
                found.clear();
                listing.labels_and_stored(&reader, part, (node, from), &mut labels, &mut found);
                Some(Exported::Node(ExportedNode {
                    id: NodeId(node),
                    key,
                    labels,
                    properties: ExportedProperties::new(self, &found, &order),
                }))
            }))
    }

    /// The relationships of REL_E grid cell `cell` visible at `at`, as
    /// `CreateRel`s: [`Store::export_rel_records`] as changes.
    pub fn export_rels(&self, at: u64, cell: usize) -> impl Iterator<Item = Change> + '_ {
        self.export_rel_records(at, cell).map(Exported::into_change)
    }

    /// The relationships of REL_E grid cell `cell` visible at `at`, read
    /// lazily as [`Store::export_node_records`]'s.
    pub fn export_rel_records(
        &self,
        at: u64,
        cell: usize,
    ) -> impl Iterator<Item = Exported<'_>> + '_ {
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
        let mut walk = PropertyWalk::read(self, at, cell, &edges);
        let order = KeyOrder::of(self);
        edges
            .into_iter()
            .filter_map(move |(sid, src, type_id, dst)| {
                let probed;
                let found = match &mut walk {
                    Some(walk) => walk.properties(sid),
                    None => {
                        probed = reader.rel_stored_properties(sid);
                        &probed[..]
                    }
                };
                Some(Exported::Rel(ExportedRel {
                    id: RelId(sid),
                    src: NodeId(src),
                    dst: NodeId(dst),
                    rel_type: self.types.name(type_id)?,
                    properties: ExportedProperties::new(self, found, &order),
                }))
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

/// A cell's relationship properties read in one pass over its REL_EP
/// partition, for an export that asks for them in ascending relationship
/// id: a probe of the S index per relationship (and a vector and a map
/// built for each, with or without properties) was most of the export of
/// a bulk load's millions of relationships, whose cells and property
/// tuples are appended in id order.
struct PropertyWalk {
    /// The relationship of each of the partition's visible property
    /// tuples, in slot order.
    subjects: Vec<u64>,
    /// Each of those tuples' key and value (beside `subjects`, so a
    /// relationship's run is handed out as a slice, not copied).
    stored: Vec<(u32, Encoded)>,
    next: usize,
}

impl PropertyWalk {
    /// The walk over the properties of `edges` (cell `cell`'s, as the
    /// export lists them), or `None` when the edges or the partition's
    /// tuples are not in ascending id order, or an edge's properties live
    /// in another partition: the export then probes per relationship.
    fn read(store: &Store, at: u64, cell: usize, edges: &[(u64, u64, u32, u64)]) -> Option<Self> {
        let ascending = edges.windows(2).all(|w| w[0].0 < w[1].0);
        let here = |sid| split_sid(sid).is_some_and(|(_, part, _)| part == cell);
        if !ascending || !edges.iter().all(|e| here(e.0)) {
            return None;
        }
        let view = View::committed(at);
        let (mut subjects, mut stored) = (Vec::new(), Vec::new());
        for (_, t) in store.ep.read(cell)?.scan() {
            if t.visible(&view) {
                subjects.push(t.s);
                stored.push((t.p, t.encoded()));
            }
        }
        let in_order = subjects.windows(2).all(|w| w[0] <= w[1]);
        in_order.then_some(PropertyWalk {
            subjects,
            stored,
            next: 0,
        })
    }

    /// The stored properties of `sid`, asked for in ascending order.
    fn properties(&mut self, sid: u64) -> &[(u32, Encoded)] {
        // Linear: the ids asked for and the tuples ascend together, so
        // the walk reads each tuple once over the whole cell.
        let id_at = |at: usize| self.subjects.get(at).copied();
        while id_at(self.next).is_some_and(|id| id < sid) {
            self.next += 1;
        }
        let from = self.next;
        while id_at(self.next) == Some(sid) {
            self.next += 1;
        }
        &self.stored[from..self.next]
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
    fn exported_nodes_carry_what_a_reader_of_their_timestamp_sees() {
        let store = Store::new(StoreConfig { partitions: 2 });
        let bulk_props = [("x", Value::Int(1)), ("s", Value::from("bulk"))];
        let mut ids = store
            .bulk_load_nodes(&[crate::BulkNode {
                labels: &["B", "A"],
                properties: &bulk_props,
            }])
            .unwrap();
        commit(&store, |t| {
            let two = props(&[("y", Value::from("two"))]);
            ids.push(t.create_node(&["C".to_string()], &two).unwrap());
        });
        // Open across the later commit: its snapshot stays readable.
        let before = store.begin();
        let at = store.visible_ts();
        // Tuples written after a node's first ones, away from them.
        commit(&store, |t| {
            for &id in &ids {
                t.add_label(id, "Late").unwrap();
                t.set_node_property(id, "x", Value::Int(9)).unwrap();
                t.set_node_property(id, "z", Value::from("late")).unwrap();
            }
            t.remove_label(ids[0], "B").unwrap();
        });
        let after = store.begin();
        assert_eq!(after.node_labels(ids[0]), vec!["A", "Late"]);
        for (txn, at) in [(&before, at), (&after, store.visible_ts())] {
            assert_eq!(check_node_export(&store, at, txn).0, ids.len());
        }
    }

    /// Checks every node partition's export at `at` against `txn` (a
    /// reader of `at`) and, node by node, the walk against the S-index
    /// probe it replaces (same labels, same properties in the same
    /// order); returns the nodes seen and the partitions walked.
    fn check_node_export(store: &Store, at: u64, txn: &crate::Txn) -> (usize, usize) {
        let reader = Reader {
            store,
            view: View::committed(at),
        };
        let (mut seen, mut walked) = (0, 0);
        for part in 0..store.node_partitions() {
            let listing = NodeListing::read(store, part, at);
            walked += usize::from(listing.walkable());
            for &(node, from) in &listing.nodes {
                // Into buffers that already hold another node's: appended.
                let (mut labels, mut found) = (vec!["before"], Vec::new());
                listing.labels_and_stored(&reader, part, (node, from), &mut labels, &mut found);
                // `Encoded` has no `PartialEq`: its Debug form shows the
                // value's O and record hint alike.
                let (probed_labels, probed) = reader.node_labels_and_stored(node);
                assert_eq!(labels[0], "before");
                assert_eq!(labels[1..], probed_labels, "node {node} at {at}");
                assert_eq!(
                    format!("{found:?}"),
                    format!("{probed:?}"),
                    "node {node} at {at}"
                );
            }
            for change in store.export_nodes(at, part) {
                if let Change::CreateNode {
                    id,
                    labels,
                    properties,
                    ..
                } = change
                {
                    assert_eq!(labels, txn.node_labels(id), "{id:?} at {at}");
                    assert_eq!(properties, txn.node_properties(id), "{id:?} at {at}");
                    seen += 1;
                }
            }
        }
        (seen, walked)
    }

    /// A checkpoint re-read into an empty store: every node of `txn`
    /// (a reader of `at`) with its labels and properties, no other.
    fn check_node_round_trip(store: &Store, at: u64, txn: &crate::Txn) {
        let (nodes, rels) = export_all(store, at);
        let copy = Store::new(StoreConfig { partitions: 2 });
        copy.load_snapshot(at, &nodes).unwrap();
        copy.load_snapshot(at, &rels).unwrap();
        copy.finish_snapshot_load(at, &store.id_counters()).unwrap();
        let read = copy.begin();
        let mut ids = txn.scan_nodes(None);
        ids.sort();
        let mut copied = read.scan_nodes(None);
        copied.sort();
        assert_eq!(copied, ids);
        for id in ids {
            assert_eq!(read.node_labels(id), txn.node_labels(id), "{id:?}");
            assert_eq!(read.node_properties(id), txn.node_properties(id), "{id:?}");
        }
    }

    #[test]
    fn node_walk_reads_what_the_probe_reads_through_deletes_and_slot_reuse() {
        let store = Store::new(StoreConfig { partitions: 2 });
        let bulk_props = [("x", Value::Int(1)), ("s", Value::from("bulk"))];
        let bulk: Vec<crate::BulkNode> = (0..8)
            .map(|_| crate::BulkNode {
                labels: &["B", "A"],
                properties: &bulk_props,
            })
            .collect();
        let mut ids = store.bulk_load_nodes(&bulk).unwrap();
        commit(&store, |t| {
            for i in 0..8 {
                let p = props(&[("y", Value::Int(i)), ("z", Value::from("two"))]);
                ids.push(t.create_node(&["C".to_string()], &p).unwrap());
            }
        });
        // Loaded and created node after node: every partition is walked.
        let loaded = store.visible_ts();
        let at_loaded = store.begin();
        assert_eq!(check_node_export(&store, loaded, &at_loaded), (16, 2));
        check_node_round_trip(&store, loaded, &at_loaded);

        // A deletion ends tuples where they lie: still walked, at both
        // timestamps.
        commit(&store, |t| {
            t.delete_node(ids[2], true).unwrap();
            t.delete_node(ids[11], true).unwrap();
        });
        let deleted = store.visible_ts();
        let at_deleted = store.begin();
        assert_eq!(check_node_export(&store, loaded, &at_loaded), (16, 2));
        assert_eq!(check_node_export(&store, deleted, &at_deleted), (14, 2));
        check_node_round_trip(&store, deleted, &at_deleted);
        drop((at_loaded, at_deleted));

        // Freed slots taken by new nodes: slot order is no longer
        // insertion order, so the export probes, and reads the same.
        assert!(store.collect_garbage() > 0);
        commit(&store, |t| {
            for i in 0..4 {
                let p = props(&[("r", Value::Int(i)), ("q", Value::Bool(true))]);
                ids.push(
                    t.create_node(&["R".to_string(), "A".to_string()], &p)
                        .unwrap(),
                );
            }
        });
        let reused = store.visible_ts();
        let at_reused = store.begin();
        let (seen, walked) = check_node_export(&store, reused, &at_reused);
        assert_eq!(seen, 18);
        assert!(walked < 2, "a partition with reused slots is probed");
        check_node_round_trip(&store, reused, &at_reused);

        // A property set later lies after other nodes' tuples: probed.
        let fresh = Store::new(StoreConfig { partitions: 2 });
        let mut ids = fresh.bulk_load_nodes(&bulk).unwrap();
        commit(&fresh, |t| {
            ids.push(t.create_node(&[], &BTreeMap::new()).unwrap());
            t.set_node_property(ids[0], "late", Value::Int(7)).unwrap();
            t.set_node_property(ids[1], "x", Value::Int(9)).unwrap();
            t.add_label(ids[1], "Late").unwrap();
        });
        let late = fresh.visible_ts();
        let at_late = fresh.begin();
        let (seen, walked) = check_node_export(&fresh, late, &at_late);
        assert_eq!(seen, 9);
        assert!(walked < 2, "a partition with a late tuple is probed");
        check_node_round_trip(&fresh, late, &at_late);
    }

    /// Every exported relationship of every cell at `at`, its properties
    /// checked against what `txn` (a reader of `at`) sees; their count.
    fn check_rel_export(store: &Store, at: u64, txn: &crate::Txn) -> usize {
        let mut seen = 0;
        for cell in 0..store.rel_partitions() {
            for change in store.export_rels(at, cell) {
                if let Change::CreateRel { id, properties, .. } = change {
                    assert_eq!(properties, txn.rel_properties(id), "{id:?} at {at}");
                    seen += 1;
                }
            }
        }
        seen
    }

    #[test]
    fn exported_relationships_carry_the_properties_of_their_timestamp() {
        let store = Store::new(StoreConfig { partitions: 2 });
        let mut nodes = Vec::new();
        let mut rels = Vec::new();
        commit(&store, |t| {
            for _ in 0..6 {
                nodes.push(t.create_node(&[], &BTreeMap::new()).unwrap());
            }
            for (i, &src) in nodes.iter().enumerate() {
                for &dst in &nodes {
                    // Every third without properties, the others one or two.
                    let props = match i % 3 {
                        0 => BTreeMap::new(),
                        1 => props(&[("w", Value::Int(i as i64))]),
                        _ => props(&[("w", Value::Float(0.5)), ("s", Value::from("x"))]),
                    };
                    rels.push(t.create_rel(src, dst, "R", &props).unwrap());
                }
            }
        });
        let first = store.visible_ts();
        let walked = |at: u64| {
            (0..store.rel_partitions())
                .filter(|&cell| {
                    let edges: Vec<(u64, u64, u32, u64)> =
                        store.e.read(cell).map_or(Vec::new(), |p| {
                            p.scan()
                                .map(|(_, t)| (t.i, t.s, t.p, t.o.payload))
                                .collect()
                        });
                    !edges.is_empty() && PropertyWalk::read(&store, at, cell, &edges).is_some()
                })
                .count()
        };
        // A cell written in one commit is walked, not probed.
        assert!(walked(first) > 0);
        assert_eq!(check_rel_export(&store, first, &store.begin()), rels.len());
        let at_first = store.begin();
        // A deletion ends tuples where they lie: still walked, and each
        // timestamp sees its own relationships.
        commit(&store, |t| t.delete_rel(rels[1]).unwrap());
        let second = store.visible_ts();
        assert!(walked(second) > 0);
        assert_eq!(check_rel_export(&store, first, &at_first), rels.len());
        let at_second = store.begin();
        assert_eq!(check_rel_export(&store, second, &at_second), rels.len() - 1);
        // Properties set later lie after other relationships' tuples: the
        // cells they touch are probed per relationship.
        commit(&store, |t| {
            for &rel in rels.iter().step_by(4) {
                t.set_rel_property(rel, "late", Value::Bool(true)).unwrap();
                t.set_rel_property(rel, "w", Value::Int(-1)).unwrap();
            }
        });
        let after = store.begin();
        assert_eq!(after.rel_property(rels[0], "w"), Some(Value::Int(-1)));
        assert_eq!(check_rel_export(&store, second, &at_second), rels.len() - 1);
        let last = store.visible_ts();
        assert_eq!(check_rel_export(&store, last, &after), rels.len() - 1);
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
