//! RDF documents through the bulk path: records read straight from each
//! document's reader (which parses an N-Triples or N-Quads document on
//! every core itself) and resolved on this thread, where the records of
//! one IRI merge into one vertex and an edge already in the load or the
//! graph adds nothing (docs/adr/0108-onegraph-rdf.md, 0113). No vector of
//! a file's records is kept: a document's records go to the rows as the
//! reader yields them (docs/adr/0127-rows-staged-in-place.md) — with
//! failOnError, each piece's as soon as the reader's workers parsed it, so
//! this thread merges while they parse the next pieces
//! (docs/adr/0150-rdf-parsed-in-pieces-while-read.md). An edge's
//! ends are the vertex records of its group, resolved just before it: it
//! takes what they resolved to by position, not by IRI
//! (docs/adr/0145-load-commit-beside-statistics-and-rdf-ends-by-position.md).

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;

use nereid_loader_formats::{add_value, NodeRecord, Record, RelationshipRecord};
use nereid_storage::{BulkEnd, Txn};

use super::apply::{each_record, Ended, RowError};
use super::bulk::{Commit, Ends, Fast, NodeRow, Outcome, Ready, RelRow};
use super::progress::Progress;
use super::rdf_edges::LoadEdges;
use super::source::Input;
use crate::db::Transaction;

/// Reads the RDF documents `inputs` and applies them by `commit`, or
/// answers [`Outcome::AddsToCommitted`] having applied nothing; `tx` is
/// the snapshot committed vertices are looked up in.
pub(super) fn load(
    tx: Transaction,
    inputs: Vec<Input>,
    fail_on_error: bool,
    progress: &Progress,
    cancel: &AtomicBool,
    commit: &Commit<'_>,
) -> Result<Outcome, Ended> {
    let mut rows = Rows::default();
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
        keys,
        edges,
        ..
    } = rows;
    drop((keys, edges));
    let ready = Ready {
        nodes: vec![nodes],
        rels: vec![rels],
    };
    commit.apply(tx, ready)
}

/// The rows of an RDF load so far.
#[derive(Default)]
struct Rows {
    nodes: Vec<NodeRow>,
    /// Vertex key -> position in `nodes`.
    keys: HashMap<String, usize, Fast>,
    rels: Vec<RelRow>,
    /// The key being looked up (one buffer for all rows).
    scratch: String,
    /// A record found a committed vertex to add to.
    adds_to_committed: bool,
    /// The load's edges: a triple loaded twice is one edge.
    edges: LoadEdges,
    /// What the node records of the current group resolved to, by their
    /// position in it (`NodeRecord::in_group`; `None`: a record refused):
    /// the group's edges name their ends by these positions, so an edge
    /// needs no lookup of its ends' IRIs (two string hashes and compares
    /// per edge, most of the merge's time on the loader thread).
    group: Vec<Option<BulkEnd>>,
}

impl Rows {
    fn add(&mut self, txn: &Txn, record: Record, progress: &Progress) -> Result<(), RowError> {
        match record {
            Record::Node(node) => {
                let at = node.in_group;
                let merged = self.merge_node(txn, node);
                self.note_in_group(at, merged.as_ref().ok().copied());
                merged.map(|_| ())
            }
            Record::Relationship(rel) => {
                let rel = self.resolve(txn, rel)?;
                let (src, dst) = (rel.src, rel.dst);
                if !self
                    .edges
                    .is_new(txn, src, dst, &rel.rel_type, &rel.properties)
                {
                    return Ok(());
                }
                Progress::add(&progress.property_values, rel.properties.len() as u64);
                self.rels.push(rel);
                Ok(())
            }
        }
    }

    /// Records what the node record at position `at` of its group
    /// resolved to. Positions come in order from 0; out of step (or from
    /// a reader that groups nothing), the group is forgotten and its edges
    /// are resolved by their ends' ids.
    fn note_in_group(&mut self, at: Option<usize>, end: Option<BulkEnd>) {
        match at {
            Some(0) => {
                self.group.clear();
                self.group.push(end);
            }
            Some(at) if at == self.group.len() && !self.group.is_empty() => self.group.push(end),
            _ => self.group.clear(),
        }
    }

    /// `rel` with its ends resolved: by their positions in the group when
    /// the group's records resolved them, else by their ids.
    fn resolve(&mut self, txn: &Txn, rel: RelationshipRecord) -> Result<RelRow, RowError> {
        let in_group = |at: usize| self.group.get(at).copied().flatten();
        if let Some((Some(src), Some(dst))) =
            rel.ends_in_group.map(|(s, d)| (in_group(s), in_group(d)))
        {
            return Ok(RelRow {
                src,
                dst,
                rel_type: rel.rel_type,
                properties: rel.properties,
            });
        }
        let ends = Ends {
            keys: &self.keys,
            txn,
        };
        ends.resolve(rel, &mut self.scratch)
    }

    /// A vertex: merged into the load's vertex of the same IRI, or nothing
    /// when it is a committed vertex it adds nothing to (an edge end), or
    /// a new vertex. Answers where edges find it.
    fn merge_node(&mut self, txn: &Txn, node: NodeRecord) -> Result<BulkEnd, RowError> {
        let row = NodeRow::new(node)?;
        if let Some(&at) = self.keys.get(&row.key) {
            let merged = &mut self.nodes[at];
            for label in row.labels {
                if !merged.labels.contains(&label) {
                    merged.labels.push(label);
                }
            }
            for (k, v) in row.properties {
                add_value(&mut merged.properties, k, v);
            }
            return Ok(BulkEnd::Loaded(at));
        }
        if let Some(committed) = txn.node_by_element_id(&row.key) {
            let adds = !row.labels.is_empty() || !row.properties.is_empty();
            self.adds_to_committed |= adds;
            return Ok(BulkEnd::Existing(committed));
        }
        let at = self.nodes.len();
        self.keys.insert(row.key.clone(), at);
        self.nodes.push(row);
        Ok(BulkEnd::Loaded(at))
    }
}
