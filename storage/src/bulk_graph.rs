//! A whole graph load as one bulk commit: vertices with the ids their
//! files give them (interned in the vertex dictionary, REL_VERT) and the
//! edges between them and already committed vertices, appended column-wise
//! per partition at one commit timestamp, which is published at once (a
//! reader sees none or all of the load).
//!
//! Why a durability hook instead of a log record: the load is not logged
//! (its rows would be a log record of hundreds of megabytes); the caller
//! makes it durable by a checkpoint of the published load, taken while the
//! commit mutex is still held, so that no logged commit can follow the
//! load's timestamp (or read the load) before the checkpoint covering it
//! is stored. A crash before that leaves the log and the older checkpoint
//! without the load: the graph as it was before it.
//!
//! Invariants: every commit below the load's timestamp is published
//! (hence durable) before the load is appended, so publishing the load
//! publishes nothing that a crash could lose from the log; every check
//! (constraints, endpoints, duplicate or taken ids, capacity) runs before
//! the first append.

use std::collections::HashSet;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use crate::bulk::{
    spawn_named, BulkNode, BulkRel, EndCheck, StagedNodes, StatsFeed, BULK_CHUNK, STAGING_THREADS,
};
use crate::error::{Result, StorageError};
use crate::mvcc::View;
use crate::schema::EntityKind;
use crate::store::Store;
use crate::txn::{Loaded, Reader};
use crate::typed_value::dict_error;
use nereid_values::{NodeId, RelId};

/// One keyed vertex of a graph load: its REL_VERT form and its content.
pub struct KeyedNode<'a, K> {
    pub key: &'a str,
    pub node: BulkNode<'a, K>,
}

/// A vertex row a graph load takes by value: the store views it as a
/// [`KeyedNode`] while staging and frees it once staged, so the appends
/// and the checkpoint that follow reuse the rows' memory instead of
/// touching fresh pages (on SNB the node rows are a few hundred
/// megabytes, which otherwise stayed alive until the load returned).
pub trait GraphNode<K> {
    fn keyed(&self) -> KeyedNode<'_, K>;
}

impl<K> GraphNode<K> for KeyedNode<'_, K> {
    fn keyed(&self) -> KeyedNode<'_, K> {
        KeyedNode {
            key: self.key,
            node: BulkNode {
                labels: self.node.labels,
                properties: self.node.properties,
            },
        }
    }
}

/// An edge end in a graph load: a vertex of the same load (by position)
/// or a committed one.
#[derive(Clone, Copy, Debug)]
pub enum BulkEnd {
    Loaded(usize),
    Existing(NodeId),
}

/// One edge of a graph load. `T` holds its type name and `P` its
/// properties, owned (a loader's rows, passed as they are: a load of
/// millions of edges copied into borrowing views costs as much fresh
/// memory as the views) or borrowed.
pub struct GraphRel<T, P> {
    pub src: BulkEnd,
    pub dst: BulkEnd,
    pub rel_type: T,
    pub properties: P,
}

/// What a graph load created, and at which commit timestamp.
pub struct GraphLoaded {
    pub commit_ts: u64,
    pub nodes: Vec<NodeId>,
    pub rels: Vec<RelId>,
}

/// The guis of a load's own vertices: a list, and a set of them built
/// only when first needed, by a key the vertex dictionary already held (a
/// repeat within the load, or a key reused from a deleted node or a failed
/// load) or by a check of an edge's end that names a committed vertex. A
/// key the dictionary registers during the load is new to it by
/// construction, so a load of fresh keys builds no set: inserting each of
/// its vertices into one was a random write per vertex into a table of
/// them all (a cache miss each at 10x scale; benches/RESULTS.md, session
/// 38).
struct LoadedGuis {
    guis: Vec<u64>,
    set: OnceLock<HashSet<u64, foldhash::fast::RandomState>>,
}

impl LoadedGuis {
    fn with_capacity(n: usize) -> Self {
        LoadedGuis {
            guis: Vec::with_capacity(n),
            set: OnceLock::new(),
        }
    }

    /// Adds `gui`, whose key the vertex dictionary registered just now
    /// when `fresh`; false (adding nothing) when the load already has it.
    fn insert(&mut self, gui: u64, fresh: bool) -> bool {
        if !fresh {
            self.set();
        }
        if let Some(set) = self.set.get_mut() {
            if !set.insert(gui) {
                return false;
            }
        }
        self.guis.push(gui);
        true
    }

    fn contains(&self, gui: u64) -> bool {
        self.set().contains(&gui)
    }

    /// The set of the guis, built from the list the first time.
    fn set(&self) -> &HashSet<u64, foldhash::fast::RandomState> {
        self.set.get_or_init(|| self.guis.iter().copied().collect())
    }
}

/// How long a load waits for the commits before it to become durable (a
/// log that stopped accepting them makes it wait in vain).
const EARLIER_COMMITS_WAIT: Duration = Duration::from_secs(60);

impl Store {
    /// Loads the vertices of `nodes` and the edges of `rels` (both
    /// batches in order, so a loader hands over the rows of each file as
    /// its workers built them, with no concatenated copy; `BulkEnd::Loaded`
    /// positions are into the vertices as one sequence) as one published
    /// commit, then calls
    /// `durable(commit_ts)` with the commit mutex still held. Fails,
    /// creating nothing, on a duplicate or taken key, a missing endpoint or
    /// a full partition, or an entity that breaks a constraint (checked
    /// against the load and the committed graph under the commit lock,
    /// module `txn::bulk_constraints`); a failing `durable` leaves the load
    /// published (the caller reports it as not durable).
    pub fn bulk_load_graph<K, N, B, T, P, R, E>(
        &self,
        nodes: Vec<B>,
        rels: Vec<R>,
        durable: impl FnOnce(u64) -> std::result::Result<(), E>,
    ) -> Result<std::result::Result<GraphLoaded, E>>
    where
        K: AsRef<str> + Sync,
        N: GraphNode<K>,
        B: AsRef<[N]> + Send,
        T: AsRef<str> + Sync,
        P: AsRef<[(K, nereid_values::Value)]> + Sync,
        R: AsRef<[GraphRel<T, P>]> + Sync,
    {
        // Taken by value: the rows are freed once staged, before the
        // appends and the durability hook (a checkpoint) need memory.
        let node_batches = nodes;
        // Sized once: a flattened iterator does not know its length, and
        // doubling this vector wrote (faulted in) twice its memory.
        let mut views: Vec<KeyedNode<'_, K>> =
            Vec::with_capacity(node_batches.iter().map(|b| b.as_ref().len()).sum());
        views.extend(
            node_batches
                .iter()
                .flat_map(|batch| batch.as_ref().iter().map(N::keyed)),
        );
        let nodes = &views[..];
        let batches = rels;
        let rels = Batches::new(&batches);
        let mut last = self.commit_lock.lock();
        self.wait_published(*last)?;
        let commit_ts = *last + 1;
        let reader = Reader {
            store: self,
            view: View::committed(*last),
        };
        if !self.schema.catalog().constraints.is_empty() {
            let node_rows: Vec<Loaded<'_>> = nodes
                .iter()
                .map(|n| {
                    Loaded::new(
                        n.node.labels.iter().map(K::as_ref).collect(),
                        n.node.properties,
                    )
                })
                .collect();
            self.check_bulk_constraints(&reader, EntityKind::Node, &node_rows)?;
            let rel_rows: Vec<Loaded<'_>> = rels
                .iter()
                .map(|r| Loaded::new(vec![r.rel_type.as_ref()], r.properties.as_ref()))
                .collect();
            self.check_bulk_constraints(&reader, EntityKind::Relationship, &rel_rows)?;
        }
        let contents: Vec<BulkNode<'_, K>> = nodes
            .iter()
            .map(|n| BulkNode {
                labels: n.node.labels,
                properties: n.node.properties,
            })
            .collect();
        self.vertices.reserve(nodes.len(), 0);
        let (mut staged_nodes, loaded) = self.stage_keyed_nodes(nodes, &contents, &reader)?;
        drop(contents);
        // The vertex rows are staged: freed now, on a thread of their own
        // beside the edges' staging (a few hundred thousand rows of small
        // allocations, most made by the loader's parse workers), so the
        // staging takes their memory instead of fresh pages.
        drop(views);
        let staged_rels = std::thread::scope(|scope| {
            spawn_named(scope, "bulk-free-rows", move || drop(node_batches));
            let ids = &staged_nodes.ids;
            let loaded = &loaded;
            let reader = &reader;
            let rels = &rels;
            // Each staging thread checks ends with its own memo. A vertex
            // of the load is one by construction: only the ends naming
            // committed vertices are checked (under the commit lock, as the
            // loader looked them up in an older snapshot).
            let staging = || {
                let mut existing =
                    EndCheck::new(move |node| loaded.contains(node) || reader.node_exists(node));
                move |i: usize| -> Result<BulkRel<'_, K>> {
                    let rel = rels.get(i);
                    let mut end = |end: BulkEnd| -> Result<NodeId> {
                        match end {
                            BulkEnd::Loaded(i) => ids.get(i).copied().ok_or_else(|| {
                                StorageError::EntityNotFound(format!("node {i} of the load"))
                            }),
                            BulkEnd::Existing(id) => existing.check(id),
                        }
                    };
                    Ok(BulkRel {
                        src: end(rel.src)?,
                        dst: end(rel.dst)?,
                        rel_type: rel.rel_type.as_ref(),
                        properties: rel.properties.as_ref(),
                    })
                }
            };
            self.stage_rels(rels.len, STAGING_THREADS, staging)
        })?;
        drop(batches);
        drop(loaded);
        // The statistics' threads are joined at the scope's end, after the
        // durability hook: their tail (the edges' statistics outlast the
        // appends) runs beside the checkpoint, which does not read them,
        // and the commit mutex, held throughout, keeps every other commit
        // (and a statistics rebuild) out until they are complete
        // (docs/adr/0212). Readers may plan with the statistics of before
        // the load meanwhile.
        let (rel_ids, node_ids, outcome) = std::thread::scope(|scope| {
            let feed = StatsFeed { scope };
            let rel_ids = self.append_graph(&staged_nodes, staged_rels, commit_ts, &feed)?;
            let node_ids = std::mem::take(&mut staged_nodes.ids);
            drop(staged_nodes);
            *last = commit_ts;
            self.publish(commit_ts);
            let outcome = durable(commit_ts);
            Ok::<_, StorageError>((rel_ids, node_ids, outcome))
        })?;
        drop(last);
        self.after_bulk();
        Ok(outcome.map(|()| GraphLoaded {
            commit_ts,
            nodes: node_ids,
            rels: rel_ids,
        }))
    }

    /// Waits until every commit up to `last` is published (durable), so
    /// that publishing a bulk load publishes no commit still in the log's
    /// queue. The caller holds the commit mutex, so none is added.
    fn wait_published(&self, last: u64) -> Result<()> {
        let started = Instant::now();
        while self.visible_ts() < last {
            if started.elapsed() > EARLIER_COMMITS_WAIT {
                return Err(StorageError::Replay(format!(
                    "commit {last} did not become durable: the bulk load is not applied"
                )));
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        Ok(())
    }

    /// Stages the vertices of a graph load (`stage_nodes`, its keys
    /// interned on the placing thread); returns them and the set of their
    /// guis.
    fn stage_keyed_nodes<K: AsRef<str> + Sync>(
        &self,
        nodes: &[KeyedNode<'_, K>],
        contents: &[BulkNode<'_, K>],
        reader: &Reader<'_>,
    ) -> Result<(StagedNodes, LoadedGuis)> {
        let mut loaded = LoadedGuis::with_capacity(nodes.len());
        let staged = self.stage_nodes(contents, |store, first, n| {
            store.keyed_vertices(&nodes[first..first + n], reader, &mut loaded)
        })?;
        Ok((staged, loaded))
    }

    /// The guis of `nodes`' keys, interned in REL_VERT under one writer. A
    /// key some visible node (or an earlier vertex of this load) holds is
    /// refused; a key left by a deleted node or a failed load is reused.
    fn keyed_vertices<K>(
        &self,
        nodes: &[KeyedNode<'_, K>],
        reader: &Reader<'_>,
        loaded: &mut LoadedGuis,
    ) -> Result<Vec<u64>> {
        debug_assert!(nodes.len() <= BULK_CHUNK);
        let mut vertices = self.vertices.writer();
        let mut guis = Vec::with_capacity(nodes.len());
        for node in nodes {
            let interned = vertices.intern(node.key.as_bytes()).map_err(dict_error)?;
            let taken = !interned.fresh && reader.node_exists(interned.gui);
            if taken || !loaded.insert(interned.gui, interned.fresh) {
                return Err(StorageError::ConstraintViolation(format!(
                    "a node with id `{}` already exists",
                    node.key
                )));
            }
            guis.push(interned.gui);
        }
        Ok(guis)
    }
}

/// Batches of edges addressed as one sequence: the staging asks for edge
/// `i` in order, which a search of the batches' first positions finds.
struct Batches<'a, R> {
    batches: &'a [R],
    /// The position of each batch's first edge.
    starts: Vec<usize>,
    len: usize,
}

impl<'a, R> Batches<'a, R> {
    fn new<T, P>(batches: &'a [R]) -> Batches<'a, R>
    where
        R: AsRef<[GraphRel<T, P>]>,
    {
        let mut starts = Vec::with_capacity(batches.len());
        let mut len = 0;
        for batch in batches {
            starts.push(len);
            len += batch.as_ref().len();
        }
        Batches {
            batches,
            starts,
            len,
        }
    }

    fn get<T, P>(&self, i: usize) -> &'a GraphRel<T, P>
    where
        R: AsRef<[GraphRel<T, P>]>,
    {
        // The last batch starting at or before `i` holds it: an empty
        // batch starts where the next one does, and `i < len`.
        let at = self.starts.partition_point(|&start| start <= i) - 1;
        let batches: &'a [R] = self.batches;
        &batches[at].as_ref()[i - self.starts[at]]
    }

    fn iter<T, P>(&self) -> impl Iterator<Item = &'a GraphRel<T, P>>
    where
        R: AsRef<[GraphRel<T, P>]>,
        T: 'a,
        P: 'a,
    {
        let batches: &'a [R] = self.batches;
        batches.iter().flat_map(|b| b.as_ref().iter())
    }
}
