//! RDF documents through the bulk path: records read straight from each
//! document's reader (which parses an N-Triples or N-Quads document on
//! every core itself) and resolved on this thread, where the records of
//! one IRI merge into one vertex and an edge already in the load or the
//! graph adds nothing (docs/adr/0108-onegraph-rdf.md, 0113). No vector of
//! a file's records is kept: a document's records go to the rows as the
//! reader yields them (docs/adr/0127-rows-staged-in-place.md) — with
//! failOnError, each piece's as soon as the reader's workers parsed it, so
//! this thread merges while they parse the next pieces
//! (docs/adr/0150-rdf-parsed-in-pieces-while-read.md). The readers number
//! every vertex by one dictionary of the load, so records name vertices by
//! number and this thread indexes a vector by it; a vertex's IRI is read
//! from the dictionary once, when its number is first met
//! (docs/adr/0155-rdf-records-numbered-by-a-shared-dictionary.md).

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use nereid_errors::Status;
use nereid_loader_formats::{add_value, IriNumbers, NodeRecord, Record};
use nereid_storage::{BulkEnd, Txn};
use nereid_values::NodeId;

use super::apply::{each_record, Ended, RowError};
use super::bulk::{Commit, NodeRow, Outcome, Ready, RelRow};
use super::progress::Progress;
use super::rdf_edges::LoadEdges;
use super::source::Input;
use super::user_id::owned_user_key;
use crate::db::{DbError, Transaction};

/// Reads the RDF documents `inputs` and applies them by `commit`, or
/// answers [`Outcome::AddsToCommitted`] having applied nothing; `tx` is
/// the snapshot committed vertices are looked up in.
pub(super) fn load(
    tx: Transaction,
    inputs: Vec<Input>,
    numbers: Arc<IriNumbers>,
    fail_on_error: bool,
    progress: &Progress,
    cancel: &AtomicBool,
    commit: &Commit<'_>,
) -> Result<Outcome, Ended> {
    let mut rows = Rows::new(numbers);
    let txn = tx.store_txn();
    let files = inputs.into_iter().map(|input| (input.name, input.reader));
    each_record(files, fail_on_error, progress, cancel, |record| {
        rows.add(txn, record, progress)
    })?;
    if rows.adds_to_committed {
        return Ok(Outcome::AddsToCommitted);
    }
    // Only the rows go on: the lookups are freed before the commit, whose
    // tuples then take their memory instead of fresh pages.
    let Rows {
        nodes,
        rels,
        numbers,
        ends,
        edges,
        ..
    } = rows;
    drop((numbers, ends, edges));
    let ready = Ready { nodes, rels };
    commit.apply(tx, ready)
}

/// log2 of the rows per batch of an RDF load's rows.
const BATCH_BITS: u32 = 16;

/// Rows per batch of an RDF load's rows.
const BATCH: usize = 1 << BATCH_BITS;

/// The rows of an RDF load so far.
struct Rows {
    /// The vertex rows in batches of [`BATCH`] (a vertex's position is
    /// its place in them as one sequence, as the commit reads them), for
    /// the reason `rels` is.
    nodes: Vec<Vec<NodeRow>>,
    /// The load's dictionary: the readers number every vertex by it.
    numbers: Arc<IriNumbers>,
    /// What each vertex number resolved to, once met.
    ends: Ends,
    /// The relationship rows in batches of [`BATCH`]: a batch is
    /// filled in the pages it was given, never grown (one vector of every
    /// row copied itself at each doubling, into fresh pages the kernel
    /// zeroes); the commit takes batches as the CSV path hands it files.
    rels: Vec<Vec<RelRow>>,
    /// A record found a committed vertex to add to.
    adds_to_committed: bool,
    /// The load's edges: a triple loaded twice is one edge.
    edges: LoadEdges,
}

impl Rows {
    fn new(numbers: Arc<IriNumbers>) -> Rows {
        Rows {
            nodes: Vec::new(),
            numbers,
            ends: Ends::default(),
            rels: Vec::new(),
            adds_to_committed: false,
            edges: LoadEdges::default(),
        }
    }

    fn add(&mut self, txn: &Txn, record: Record, progress: &Progress) -> Result<(), RowError> {
        match record {
            Record::Node(node) => self.merge_node(txn, node, progress),
            Record::Relationship(rel) => {
                let at = RowError::at(rel.line);
                let (src, dst) = rel.end_numbers.ok_or_else(|| unnumbered(rel.line))?;
                let (src, src_slot) = self.vertex(txn, src).map_err(at)?;
                let (dst, dst_slot) = self.vertex(txn, dst).map_err(at)?;
                let ends = [(src, src_slot), (dst, dst_slot)];
                if !self.edges.is_new(txn, ends, &rel.rel_type, &rel.properties) {
                    return Ok(());
                }
                Progress::add(&progress.property_values, rel.properties.len() as u64);
                let row = RelRow {
                    src,
                    dst,
                    rel_type: rel.rel_type,
                    properties: rel.properties,
                };
                push_batched(&mut self.rels, row);
                Ok(())
            }
        }
    }

    /// The labels and properties of a node record, merged into its
    /// vertex; a committed vertex they would add to sends the load to the
    /// transaction path.
    fn merge_node(
        &mut self,
        txn: &Txn,
        node: NodeRecord,
        progress: &Progress,
    ) -> Result<(), RowError> {
        let number = node.number.ok_or_else(|| unnumbered(node.line))?;
        match self.vertex(txn, number).map_err(RowError::at(node.line))?.0 {
            BulkEnd::Loaded(at) => {
                let merged = &mut self.nodes[at >> BATCH_BITS][at & (BATCH - 1)];
                for label in node.labels {
                    if !merged.labels.contains(&label) {
                        merged.labels.push(label);
                    }
                }
                // Counted as the transaction path counts them: a
                // record's values, repeats included.
                Progress::add(&progress.property_values, node.properties.len() as u64);
                for (k, v) in node.properties {
                    add_value(&mut merged.properties, k, v);
                }
            }
            BulkEnd::Existing(_) => {
                let adds = !node.labels.is_empty() || !node.properties.is_empty();
                self.adds_to_committed |= adds;
            }
        }
        Ok(())
    }

    /// The vertex numbered `number`, and its slot in [`Ends`] (one number
    /// per vertex, which the set of edges keys them by): what it resolved
    /// to when first met, else (spelled from the dictionary once) the
    /// committed vertex of that IRI or a new vertex of the load.
    fn vertex(&mut self, txn: &Txn, number: u64) -> Result<(BulkEnd, u32), DbError> {
        let at = usize::try_from(number).map_err(|_| unspelled(number))?;
        if let Some(met) = self.ends.get(at) {
            return Ok(met);
        }
        let iri = self.numbers.text(number).ok_or_else(|| unspelled(number))?;
        let key = owned_user_key(None, iri)?;
        let end = match txn.node_by_element_id(&key) {
            Some(committed) => BulkEnd::Existing(committed),
            None => {
                let position = batched_len(&self.nodes);
                push_batched(&mut self.nodes, NodeRow::vertex(key));
                BulkEnd::Loaded(position)
            }
        };
        let slot = self.ends.set(at, end)?;
        Ok((end, slot))
    }
}

/// Appends `row` to the last of `batches`, or to a new batch when it is
/// full: a small load grows its one batch; a large one is given whole
/// batches, each filled in the pages it was given.
fn push_batched<T>(batches: &mut Vec<Vec<T>>, row: T) {
    match batches.last_mut() {
        Some(batch) if batch.len() < BATCH => batch.push(row),
        Some(_) => {
            let mut batch = Vec::with_capacity(BATCH);
            batch.push(row);
            batches.push(batch);
        }
        None => batches.push(vec![row]),
    }
}

/// The rows in `batches`, which [`push_batched`] filled: every batch but
/// the last is full (asked once per new vertex: not a sum over batches).
fn batched_len<T>(batches: &[Vec<T>]) -> usize {
    batches
        .split_last()
        .map_or(0, |(last, full)| full.len() * BATCH + last.len())
}

/// A record without a vertex number: not from a numbering reader.
fn unnumbered(line: u64) -> RowError {
    RowError::at(line)(DbError {
        status: Status::General,
        message: "an RDF record reached the bulk loader without its vertex numbers".to_owned(),
    })
}

fn unspelled(number: u64) -> DbError {
    DbError {
        status: Status::General,
        message: format!("vertex number {number} is not in the load's dictionary"),
    }
}

/// What each vertex number of a load resolved to, four bytes a number
/// (an `Option<BulkEnd>` takes 24): the loader reads it at random, once
/// per edge end, so the smaller it is the more of it stays in cache.
/// A slot is 0 while its number is not met, the load's own vertex at
/// position `p` as `p + 1`, and a committed vertex as [`COMMITTED`] plus
/// its index in `committed` (an RDF load rarely names committed vertices).
#[derive(Default)]
struct Ends {
    slots: Vec<u32>,
    committed: Vec<NodeId>,
}

/// The bit of a slot that holds a committed vertex.
const COMMITTED: u32 = 1 << 31;

impl Ends {
    /// The vertex of number `at`, if met, and its slot.
    fn get(&self, at: usize) -> Option<(BulkEnd, u32)> {
        let slot = *self.slots.get(at)?;
        let end = match slot {
            0 => return None,
            slot if slot & COMMITTED != 0 => {
                BulkEnd::Existing(self.committed[(slot & !COMMITTED) as usize])
            }
            slot => BulkEnd::Loaded(slot as usize - 1),
        };
        Some((end, slot))
    }

    /// Records the vertex of number `at`; answers its slot.
    fn set(&mut self, at: usize, end: BulkEnd) -> Result<u32, DbError> {
        let (index, flag) = match end {
            BulkEnd::Loaded(position) => (position + 1, 0),
            BulkEnd::Existing(node) => {
                self.committed.push(node);
                (self.committed.len() - 1, COMMITTED)
            }
        };
        let index = u32::try_from(index)
            .ok()
            .filter(|&i| i < COMMITTED)
            .ok_or_else(too_many_vertices)?;
        if self.slots.len() <= at {
            self.slots.resize(at + 1, 0);
        }
        self.slots[at] = index | flag;
        Ok(index | flag)
    }
}

fn too_many_vertices() -> DbError {
    DbError {
        status: Status::General,
        message: format!(
            "an RDF bulk load names more than {} vertices",
            COMMITTED - 1
        ),
    }
}
