//! The bulk path: loading many vertices or edges as one commit, without
//! per-tuple transaction bookkeeping (no markers, undo list or logical
//! changes). Tuples are grouped by partition and appended under one write
//! lock per partition, already stamped with the commit timestamp.
//!
//! Invariants:
//! - a bulk load holds the commit mutex throughout, so it is serialised
//!   with commits: it gets the next commit timestamp and is published
//!   (visible) when it returns, all or nothing: every check (existence of
//!   endpoints, storable values, capacity) runs before the first append;
//! - it is **not logged**: it is meant for stores without a log (benchmarks,
//!   imports that end in a checkpoint) — a logged store whose log expects
//!   consecutive commit timestamps must not mix it with logged commits.

use crate::counts::{count_keys, CountKey};
use crate::dictionary::{DictError, DictWriter, Interned};
use crate::error::{Result, StorageError};
use crate::mvcc::View;
use crate::relation::{RelKind, Relation, Staged};
use crate::store::Store;
use crate::txn::Reader;
use crate::typed_value::{dict_error, Encoded, TypedValue};
use nereid_values::{NodeId, RelId, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// Threads that stage a load's edges (the machine's cores are the
/// useful bound; more only add memory for their pieces of each cell).
pub(crate) const STAGING_THREADS: usize = 2;

/// One vertex of a bulk load. Null property values are skipped. `K` is
/// how names are held (`&str`, or the `Arc<str>` a file reader shares
/// between rows), so a loader passes its records without copying names.
pub struct BulkNode<'a, K = &'a str> {
    pub labels: &'a [K],
    pub properties: &'a [(K, Value)],
}

/// One edge of a bulk load between existing (committed) vertices, or
/// vertices of the same load ([`Store::bulk_load_graph`]).
pub struct BulkRel<'a, K = &'a str> {
    pub src: NodeId,
    pub dst: NodeId,
    pub rel_type: &'a str,
    pub properties: &'a [(K, Value)],
}

/// Vertices (or relationships) per held dictionary writer: its new records
/// are linked into the gui map together, prefetched, when it drops; short
/// enough that readers resolving strings meanwhile wait at most a few
/// milliseconds (4,096 held it 12 ms on average and up to 42 ms, with
/// page faults of a growing arena; bench `reader_latency`).
pub(crate) const BULK_CHUNK: usize = 1024;

/// How many vertices ahead a bulk load prefetches the dictionary slots of
/// the forms it will intern (vertex keys, string values): far enough for
/// a miss to complete meanwhile, near enough that the lines are still
/// cached when used.
pub(crate) const INTERN_AHEAD: usize = 8;

/// Prefetches the literal dictionary's slots for the string values among
/// `properties` (other values are inline or rare).
pub(crate) fn prefetch_strings<K>(literals: &DictWriter<'_>, properties: &[(K, Value)]) {
    for (_, value) in properties {
        if let Value::String(s) = value {
            literals.prefetch(s.as_bytes());
        }
    }
}

/// `(S, P, O)` triples bound for one partition.
pub(crate) type Batch = Vec<Staged>;

/// The vertices of a load, staged per partition and not yet appended.
pub(crate) struct StagedNodes {
    /// Shared with the statistics' feed, which may finish after the
    /// appends (the last holder frees them).
    pub(crate) per_part: Arc<Vec<Batch>>,
    pub(crate) ids: Vec<NodeId>,
    pub(crate) deltas: Deltas,
}

/// The edges of a load, staged per grid cell and not yet appended.
pub(crate) struct StagedRels {
    pub(crate) edges: Vec<Batch>,
    pub(crate) edge_props: Vec<Vec<(usize, u32, Encoded)>>,
    pub(crate) origin: Vec<Vec<usize>>,
    pub(crate) count: usize,
}

impl Store {
    /// Creates `nodes` as one commit; returns their ids in input order.
    /// Indexes are rebuilt afterwards; refused while constraints exist
    /// (the bulk path checks none).
    pub fn bulk_load_nodes(&self, nodes: &[BulkNode<'_>]) -> Result<Vec<NodeId>> {
        self.refuse_bulk_under_constraints()?;
        let mut last = self.commit_lock.lock();
        let commit_ts = *last + 1;
        self.vertices
            .reserve(nodes.len(), self.vertex_key_len(nodes.len()));
        let staged = self.stage_nodes(nodes, |store, _, n| store.fresh_vertices(n))?;
        check_room(&self.vp, &staged.per_part)?;
        std::thread::scope(|scope| self.append_nodes(&staged, commit_ts, &StatsFeed { scope }))?;
        *last = commit_ts;
        self.publish(commit_ts);
        drop(last);
        self.after_bulk();
        Ok(staged.ids)
    }

    /// Creates `rels` as one commit; returns their ids in input order. Fails
    /// (creating nothing) when an endpoint is not a committed node.
    /// Indexes and constraints as for [`Store::bulk_load_nodes`].
    pub fn bulk_load_rels(&self, rels: &[BulkRel<'_>]) -> Result<Vec<RelId>> {
        self.refuse_bulk_under_constraints()?;
        let mut last = self.commit_lock.lock();
        let commit_ts = *last + 1;
        let reader = Reader {
            store: self,
            view: View::committed(*last),
        };
        // Each staging thread asks its own end check (they repeat ends).
        let rel = || {
            let mut ends = EndCheck::new(|node| reader.node_exists(node));
            move |i: usize| -> Result<BulkRel<'_>> {
                let rel = &rels[i];
                Ok(BulkRel {
                    src: ends.check(rel.src)?,
                    dst: ends.check(rel.dst)?,
                    rel_type: rel.rel_type,
                    properties: rel.properties,
                })
            }
        };
        let staged = self.stage_rels(rels.len(), STAGING_THREADS, rel)?;
        staged.check_room(self)?;
        let ids =
            std::thread::scope(|scope| self.append_rels(staged, commit_ts, &StatsFeed { scope }))?;
        *last = commit_ts;
        self.publish(commit_ts);
        drop(last);
        self.after_bulk();
        Ok(ids)
    }

    /// Appends staged vertices at `commit_ts`, their statistics fed by
    /// `feed` (the caller holds the commit mutex, has checked their room
    /// with [`check_room`] and publishes).
    pub(crate) fn append_nodes<'scope>(
        &'scope self,
        staged: &StagedNodes,
        commit_ts: u64,
        feed: &StatsFeed<'scope, '_>,
    ) -> Result<()> {
        feed.feed(self, RelKind::Vp, Arc::clone(&staged.per_part));
        append_all(&self.vp, &staged.per_part, commit_ts)?;
        self.apply_counts(commit_ts, staged.deltas.clone());
        Ok(())
    }

    /// Appends a graph load's staged vertices and edges at `commit_ts`,
    /// the two on separate threads: they fill different relations (and
    /// feed the statistics of each on a third and fourth thread), and were
    /// a third of a load's time with one core idle (benches/RESULTS.md,
    /// session 37). Every relation's room is checked before either starts,
    /// so a load that does not fit appends nothing; returns the edges' ids
    /// in input order (the caller holds the commit mutex and publishes).
    pub(crate) fn append_graph<'scope>(
        &'scope self,
        nodes: &StagedNodes,
        rels: StagedRels,
        commit_ts: u64,
        feed: &StatsFeed<'scope, '_>,
    ) -> Result<Vec<RelId>> {
        check_room(&self.vp, &nodes.per_part)?;
        rels.check_room(self)?;
        std::thread::scope(|scope| {
            let appended = spawn_named(scope, "bulk-append-vp", || {
                self.append_nodes(nodes, commit_ts, feed)
            });
            let rel_ids = self.append_rels(rels, commit_ts, feed);
            let appended = appended
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            appended.and(rel_ids)
        })
    }

    /// Appends each cell's staged (ordered) edges and their properties at
    /// `commit_ts`; returns their ids in input order (the caller holds the
    /// commit mutex and has checked their room with
    /// [`StagedRels::check_room`]); their statistics are fed by `feed`.
    pub(crate) fn append_rels<'scope>(
        &'scope self,
        staged: StagedRels,
        commit_ts: u64,
        feed: &StatsFeed<'scope, '_>,
    ) -> Result<Vec<RelId>> {
        let StagedRels {
            edges,
            edge_props,
            origin,
            count,
        } = staged;
        let edges = Arc::new(edges);
        feed.feed(self, RelKind::E, Arc::clone(&edges));
        let firsts = append_all(&self.e, &edges, commit_ts)?;
        let props: Vec<Batch> = edge_props
            .into_iter()
            .zip(&firsts)
            .map(|(props, &first)| {
                props
                    .into_iter()
                    .map(|(position, p, o)| Staged::new(first + position as u64, p, o))
                    .collect()
            })
            .collect();
        let props = Arc::new(props);
        feed.feed(self, RelKind::Ep, Arc::clone(&props));
        append_all(&self.ep, &props, commit_ts)?;
        self.apply_counts(commit_ts, edge_counts(&edges));
        let mut ids = vec![RelId(0); count];
        for (&first, cell_origin) in firsts.iter().zip(&origin) {
            for (sid, &n) in (first..).zip(cell_origin) {
                ids[n] = RelId(sid);
            }
        }
        Ok(ids)
    }

    /// After a bulk commit is published: freeze the loaded zones (module
    /// `gc`: nothing older can read them) and rebuild the indexes.
    pub(crate) fn after_bulk(&self) {
        self.collect_garbage();
        self.rebuild_indexes_after_bulk();
    }

    pub(crate) fn refuse_bulk_under_constraints(&self) -> Result<()> {
        if self.schema.catalog().constraints.is_empty() {
            return Ok(());
        }
        Err(StorageError::ConstraintViolation(
            "the bulk path checks no constraints: load before creating them, or through transactions".into(),
        ))
    }

    fn rebuild_indexes_after_bulk(&self) {
        if !self.schema.catalog().indexes.is_empty() {
            self.rebuild_indexes();
        }
    }
}

impl StagedRels {
    /// Fails when the edges or their properties do not fit their cells
    /// (before anything is appended: the one check of their room; each
    /// partition's append still refuses a batch past its capacity).
    fn check_room(&self, store: &Store) -> Result<()> {
        check_room(&store.e, &self.edges)?;
        check_room_for(&store.ep, self.edge_props.iter().map(Vec::len))
    }
}

/// Checks that edge ends are nodes, each distinct end asked of `exists`
/// once (a load's edges name the same vertices many times).
pub(crate) struct EndCheck<F> {
    exists: F,
    known: HashMap<u64, bool, foldhash::fast::RandomState>,
}

impl<F: Fn(u64) -> bool> EndCheck<F> {
    pub(crate) fn new(exists: F) -> EndCheck<F> {
        EndCheck {
            exists,
            known: HashMap::default(),
        }
    }

    /// `end`, or the error that it is not a node.
    pub(crate) fn check(&mut self, end: NodeId) -> Result<NodeId> {
        let exists = &self.exists;
        if *self.known.entry(end.0).or_insert_with(|| exists(end.0)) {
            Ok(end)
        } else {
            Err(StorageError::EntityNotFound(format!(
                "node {}",
                end.external()
            )))
        }
    }
}

/// The count deltas of appended edges, added up per type first: each
/// cell's edges are ordered by type, so a run of one type is counted
/// once instead of updating the counts' maps per edge.
fn edge_counts(edges: &[Batch]) -> Deltas {
    let mut deltas = Deltas::default();
    for cell in edges {
        for run in cell.chunk_by(|a, b| a.p == b.p) {
            for key in count_keys(RelKind::E, run[0].p, 0) {
                *deltas.entry(key).or_insert(0) += run.len() as i64;
            }
        }
    }
    deltas
}

/// Appends each partition's batch; returns per partition the SID of its
/// batch's first tuple (the others follow it, see
/// `Relation::insert_committed_batch`). The caller has checked every
/// partition's room ([`check_room`]) before the first append of the
/// commit, so that a load that does not fit appends nothing.
fn append_all(relation: &Relation, batches: &[Batch], commit_ts: u64) -> Result<Vec<u64>> {
    batches
        .iter()
        .enumerate()
        .map(|(part, batch)| relation.insert_committed_batch(part, batch, commit_ts))
        .collect()
}

/// Fails when some partition of `relation` has no room for its batch.
fn check_room(relation: &Relation, batches: &[Batch]) -> Result<()> {
    check_room_for(relation, batches.iter().map(Vec::len))
}

/// Fails when some partition of `relation` has no room for its count of
/// `counts` (one per partition, in order).
fn check_room_for(relation: &Relation, counts: impl IntoIterator<Item = usize>) -> Result<()> {
    for (part, count) in counts.into_iter().enumerate() {
        if !relation.has_room(part, count) {
            return Err(StorageError::CapacityExceeded("tuples per partition"));
        }
    }
    Ok(())
}

/// Spawns `f` on a scoped thread called `name` (profiles and debuggers
/// tell a bulk load's threads apart by it). Fails only as
/// `Scope::spawn` does, when the system has no thread to give.
pub(crate) fn spawn_named<'scope, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    name: &str,
    f: impl FnOnce() -> T + Send + 'scope,
) -> std::thread::ScopedJoinHandle<'scope, T> {
    std::thread::Builder::new()
        .name(name.to_string())
        .spawn_scoped(scope, f)
        .expect("failed to spawn thread")
}

/// Count deltas of a load, by key.
pub(crate) type Deltas = HashMap<CountKey, i64, foldhash::fast::RandomState>;

/// Tuples fed to the statistics per call: bounds how long a bulk load
/// holds the statistics' lock at a time, and the memory of one update (a
/// vertex touched in several chunks is simply regrouped several times).
const STATS_CHUNK: usize = 1 << 16;

impl Store {
    /// Feeds the tuples a bulk load appended to the statistics (the caller
    /// holds the commit mutex, as a commit does).
    ///
    /// Runs on a second thread while `append` runs on this one
    /// ([`Store::with_statistics`]).
    fn bulk_statistics(&self, kind: RelKind, batches: &[Batch]) {
        for batch in batches {
            for chunk in batch.chunks(STATS_CHUNK) {
                self.stats.apply_inserted(kind, chunk);
            }
        }
    }
}

/// Feeds a bulk commit's batches to the statistics, each kind on a thread
/// of its own beside the appends of the same batches, which they only
/// read (with the appends they were a single thread's work under the
/// commit mutex: about a fifth of a bulk commit's time on SNB,
/// benches/RESULTS.md). The threads belong to the caller's scope, which
/// joins them before the commit mutex is released: a graph load closes
/// it after its checkpoint, so the statistics' tail runs beside the
/// checkpoint instead of before it (docs/adr/0212). Callers check the
/// partitions' room first ([`check_room`]), the one failure that left
/// nothing appended, as the statistics are fed either way. A statistics
/// thread allocates only its own small sets and sketches, so the tuples'
/// pages stay in the appending thread's heap (more threads appending
/// raised the peak RSS: benches/RESULTS.md).
pub(crate) struct StatsFeed<'scope, 'env> {
    pub(crate) scope: &'scope std::thread::Scope<'scope, 'env>,
}

impl<'scope> StatsFeed<'scope, '_> {
    /// Feeds `batches` of `kind` to `store`'s statistics on a new thread
    /// (which frees them if the appends are done with them first).
    fn feed(&self, store: &'scope Store, kind: RelKind, batches: Arc<Vec<Batch>>) {
        let name = match kind {
            RelKind::Vp => "bulk-stats-vp",
            RelKind::E => "bulk-stats-e",
            RelKind::Ep => "bulk-stats-ep",
        };
        spawn_named(self.scope, name, move || {
            store.bulk_statistics(kind, &batches)
        });
    }
}

/// Interns a literal's form (a held dictionary writer, or one taken on
/// first use).
pub(crate) trait Intern: FnMut(&[u8]) -> std::result::Result<Interned, DictError> {}

impl<F: FnMut(&[u8]) -> std::result::Result<Interned, DictError>> Intern for F {}

/// Interned ids of the label and key names of one load (most loads repeat
/// a handful of names millions of times).
#[derive(Default)]
pub(crate) struct NameCache {
    labels: Names<u64>,
    keys: Names<u32>,
}

/// Ids of one kind of name, by name, and per position in a row the last
/// name seen there. Rows of one load mostly list their names in the same
/// order, so a name equal to its position's last one (a short comparison)
/// needs no hashing; another one goes through the map.
pub(crate) struct Names<T> {
    by_name: HashMap<String, T, foldhash::fast::RandomState>,
    recent: Vec<(String, T)>,
}

impl<T> Default for Names<T> {
    fn default() -> Self {
        Names {
            by_name: HashMap::default(),
            recent: Vec::new(),
        }
    }
}

impl<T: Copy> Names<T> {
    /// The id of `name` at `position` of a row, interned by `intern` the
    /// first time the load meets the name.
    pub(crate) fn id<E>(
        &mut self,
        position: usize,
        name: &str,
        intern: impl FnOnce() -> std::result::Result<T, E>,
    ) -> std::result::Result<T, E> {
        if let Some((known, id)) = self.recent.get(position) {
            if known == name {
                return Ok(*id);
            }
        }
        let id = match self.by_name.get(name) {
            Some(&id) => id,
            None => {
                let id = intern()?;
                self.by_name.insert(name.to_string(), id);
                id
            }
        };
        if let Some(entry) = self.recent.get_mut(position) {
            entry.0.clear();
            entry.0.push_str(name);
            entry.1 = id;
        } else if position == self.recent.len() {
            self.recent.push((name.to_string(), id));
        }
        Ok(id)
    }
}

impl NameCache {
    pub(crate) fn label(
        &mut self,
        intern: &mut impl Intern,
        position: usize,
        name: &str,
    ) -> Result<u64> {
        self.labels.id(position, name, || {
            Ok(intern(name.as_bytes()).map_err(dict_error)?.gui)
        })
    }

    fn key(&mut self, store: &Store, position: usize, name: &str) -> u32 {
        let id = self.keys.id(position, name, || {
            Ok::<_, std::convert::Infallible>(store.keys.intern(name))
        });
        id.unwrap_or_else(|never| match never {})
    }

    /// Encodes `properties` into `out` (cleared first), by key id.
    pub(crate) fn properties<K: AsRef<str>>(
        &mut self,
        store: &Store,
        intern: &mut impl Intern,
        properties: &[(K, Value)],
        out: &mut Vec<(u32, Encoded)>,
    ) -> Result<()> {
        out.clear();
        // The keys met so far, for ids below 64 (most loads name fewer
        // keys): a key not in it is new to the row with no search of
        // `out`, which was quadratic in the row's width.
        let mut seen = 0u64;
        for (position, (name, value)) in properties.iter().enumerate() {
            if value.is_null() {
                continue;
            }
            let key = self.key(store, position, name.as_ref());
            let o = TypedValue::encode_with(value, intern)?;
            let bit = 1u64.checked_shl(key).unwrap_or(0);
            if bit != 0 && seen & bit == 0 {
                seen |= bit;
                out.push((key, o));
                continue;
            }
            // A repeated key keeps its last value, as in a map literal.
            match out.iter_mut().find(|(k, _)| *k == key) {
                Some(slot) => slot.1 = o,
                None => out.push((key, o)),
            }
        }
        Ok(())
    }
}
