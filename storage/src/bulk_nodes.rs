//! A bulk load's vertices staged by partition on two threads: this one
//! encodes their labels and properties (the literal dictionary), a second
//! one names them (fresh ids, or keys interned in the vertex dictionary)
//! and places each vertex's tuples in its partition's batch. The two
//! dictionaries have separate writers; on one thread the two halves were
//! a quarter of a graph load's time with the other core idle
//! (benches/RESULTS.md, session 37).

use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use crate::bulk::{
    prefetch_strings, spawn_named, Batch, BulkNode, Deltas, NameCache, StagedNodes, BULK_CHUNK,
    INTERN_AHEAD,
};
use crate::counts::CountKey;
use crate::error::{Result, StorageError};
use crate::ids::vertex_partition;
use crate::predicates::{PRED_EXISTS, PRED_LABEL};
use crate::relation::Staged;
use crate::store::Store;
use crate::typed_value::{Encoded, TypedValue};
use nereid_values::NodeId;

/// Chunks the encoding may run ahead of the placing.
const CHUNKS_AHEAD: usize = 4;

/// One chunk's vertices encoded: each vertex's label and property tuples,
/// one after another, and where each vertex's end.
#[derive(Default)]
struct EncodedChunk {
    tuples: Vec<(u32, Encoded)>,
    ends: Vec<usize>,
}

/// Why one side of the staging stopped early: its own error, or because
/// the other side stopped (whose error is then the load's).
enum Stopped {
    Failed(StorageError),
    OtherSide,
}

impl From<StorageError> for Stopped {
    fn from(e: StorageError) -> Self {
        Stopped::Failed(e)
    }
}

impl Store {
    /// Stages `nodes` by partition; `guis(store, first, n)` gives the
    /// vertex ids of `nodes[first..first + n]` (fresh or keyed), on the
    /// placing thread, a chunk at a time. Fails, staging nothing, when it
    /// or an encoding does (the ids' error first, as they come first in
    /// a chunk).
    pub(crate) fn stage_nodes<K: AsRef<str> + Sync>(
        &self,
        nodes: &[BulkNode<'_, K>],
        guis: impl FnMut(&Store, usize, usize) -> Result<Vec<u64>> + Send,
    ) -> Result<StagedNodes> {
        let (outbox, inbox) = sync_channel(CHUNKS_AHEAD);
        let (encoded, placed) = std::thread::scope(|scope| {
            let placer = spawn_named(scope, "bulk-place-vp", move || {
                self.place_nodes(nodes, guis, inbox)
            });
            let encoded = self.encode_nodes(nodes, outbox);
            let placed = placer
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (encoded, placed)
        });
        match (placed, encoded) {
            (Ok((per_part, ids)), Ok(deltas)) => Ok(StagedNodes {
                per_part: std::sync::Arc::new(per_part),
                ids,
                deltas,
            }),
            (Err(Stopped::Failed(e)), _) | (_, Err(Stopped::Failed(e))) => Err(e),
            // Each side stops early only for its own error or the other's.
            (Err(Stopped::OtherSide), _) | (_, Err(Stopped::OtherSide)) => {
                unreachable!("a staging side stopped with no error")
            }
        }
    }

    /// Encodes `nodes` a chunk at a time into `outbox`; returns the count
    /// deltas of their labels.
    fn encode_nodes<K: AsRef<str>>(
        &self,
        nodes: &[BulkNode<'_, K>],
        outbox: SyncSender<EncodedChunk>,
    ) -> std::result::Result<Deltas, Stopped> {
        let mut names = NameCache::default();
        let mut deltas = Deltas::default();
        let mut label_runs = LabelRuns::default();
        let mut encoded: Vec<(u32, Encoded)> = Vec::new();
        for chunk in nodes.chunks(BULK_CHUNK) {
            let mut out = EncodedChunk {
                tuples: Vec::with_capacity(
                    chunk
                        .iter()
                        .map(|n| n.labels.len() + n.properties.len())
                        .sum(),
                ),
                ends: Vec::with_capacity(chunk.len()),
            };
            let mut literals = self.literals.writer();
            for (k, node) in chunk.iter().enumerate() {
                if let Some(later) = chunk.get(k + INTERN_AHEAD) {
                    prefetch_strings(&literals, later.properties);
                }
                let intern = &mut |form: &[u8]| literals.intern(form);
                names.properties(self, intern, node.properties, &mut encoded)?;
                let labels_from = out.tuples.len();
                for (position, label) in node.labels.iter().enumerate() {
                    let intern = &mut |form: &[u8]| literals.intern(form);
                    let label = names.label(intern, position, label.as_ref())?;
                    let label = Encoded::from(TypedValue::string_gui(label));
                    if !out.tuples[labels_from..]
                        .iter()
                        .any(|&(_, o)| o.o == label.o)
                    {
                        out.tuples.push((PRED_LABEL, label));
                        label_runs.count(position, label.o.payload, &mut deltas);
                    }
                }
                out.tuples.extend_from_slice(&encoded);
                out.ends.push(out.tuples.len());
            }
            drop(literals);
            outbox.send(out).map_err(|_| Stopped::OtherSide)?;
        }
        label_runs.flush(&mut deltas);
        *deltas.entry(CountKey::Nodes).or_insert(0) += nodes.len() as i64;
        Ok(deltas)
    }

    /// Names `nodes` by `guis` a chunk at a time and places each vertex's
    /// tuples (its existence, then what `inbox` brings for it) in its
    /// partition's batch; returns the batches and the ids in input order.
    fn place_nodes<K>(
        &self,
        nodes: &[BulkNode<'_, K>],
        mut guis: impl FnMut(&Store, usize, usize) -> Result<Vec<u64>>,
        inbox: Receiver<EncodedChunk>,
    ) -> std::result::Result<(Vec<Batch>, Vec<NodeId>), Stopped> {
        let parts = self.vp.partitions();
        // Vertices spread uniformly over partitions (their hash bits pick
        // it): reserving a little above the even share saves the batches
        // regrowing (copying) a few hundred megabytes on a large load.
        let tuples: usize = nodes
            .iter()
            .map(|n| 1 + n.labels.len() + n.properties.len())
            .sum();
        let share = tuples / parts + tuples / parts / 8 + 1024;
        let mut per_part: Vec<Batch> = (0..parts).map(|_| Vec::with_capacity(share)).collect();
        let mut ids = Vec::with_capacity(nodes.len());
        for first in (0..nodes.len()).step_by(BULK_CHUNK) {
            let n = BULK_CHUNK.min(nodes.len() - first);
            let guis = guis(self, first, n)?;
            let chunk = inbox.recv().map_err(|_| Stopped::OtherSide)?;
            let mut from = 0;
            for (gui, &end) in guis.into_iter().zip(&chunk.ends) {
                let batch = &mut per_part[vertex_partition(gui, self.partitions)];
                batch.push(Staged::new(gui, PRED_EXISTS, TypedValue::NONE));
                batch.extend(
                    chunk.tuples[from..end]
                        .iter()
                        .map(|&(p, o)| Staged::new(gui, p, o)),
                );
                ids.push(NodeId(gui));
                from = end;
            }
        }
        Ok((per_part, ids))
    }
}

/// Label counts of a load, kept per position in a row's labels while the
/// label there repeats (most rows of a load carry the same labels) and
/// added to the count deltas when it changes: no map update per vertex.
#[derive(Default)]
struct LabelRuns(Vec<(u64, i64)>);

impl LabelRuns {
    fn count(&mut self, position: usize, label: u64, deltas: &mut Deltas) {
        if position >= self.0.len() {
            self.0.resize(position + 1, (0, 0));
        }
        let run = &mut self.0[position];
        if run.0 != label {
            add_label_count(deltas, *run);
            *run = (label, 0);
        }
        run.1 += 1;
    }

    fn flush(&mut self, deltas: &mut Deltas) {
        for run in self.0.drain(..) {
            add_label_count(deltas, run);
        }
    }
}

/// Adds a run's `(label, count)` to the count deltas.
fn add_label_count(deltas: &mut Deltas, (label, n): (u64, i64)) {
    if n != 0 {
        *deltas.entry(CountKey::Label(label)).or_insert(0) += n;
    }
}
