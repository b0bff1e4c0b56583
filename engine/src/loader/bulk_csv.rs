//! CSV files through the bulk path (docs/adr/0127-rows-staged-in-place.md):
//! the node files parsed in parallel into node rows (each id spelled as
//! its vertex key and checked against the committed graph by the worker),
//! each file's ids indexed by a worker and the indexes joined, repeats
//! refused in file order (`id_index.rs`), then the relationship
//! files parsed in parallel with their ends resolved by the workers
//! (against the load's own nodes, then the committed graph). The store
//! takes every file's rows where its worker put them, by value, and frees
//! them once staged (the key map borrows the node rows only until the
//! relationship files are resolved); nothing is copied into a load-wide
//! vector.

use std::sync::atomic::AtomicBool;

use nereid_errors::Status;
use nereid_fan_out::fan_out;
use nereid_loader_formats::Record;
use nereid_storage::Txn;

use super::apply::{Ended, RowError};
use super::bulk::{Commit, Ends, LoadKeys, NodeRow, Outcome, Ready, RelRow};
use super::id_index::IdIndex;
use super::parse::{parse_all, walk, Parsed, Row};
use super::progress::Progress;
use super::source::Input;
use crate::db::{DbError, Transaction};

/// How a CSV load reads its files.
pub(super) struct Read<'a> {
    pub(super) threads: usize,
    pub(super) fail_on_error: bool,
    pub(super) progress: &'a Progress,
    pub(super) cancel: &'a AtomicBool,
}

impl Read<'_> {
    /// Reads `inputs` (node files, then the others) and applies them by
    /// `commit`; `tx` is the snapshot committed ids are looked up in.
    pub(super) fn load(
        &self,
        tx: Transaction,
        inputs: Vec<Input>,
        commit: &Commit<'_>,
    ) -> Result<Outcome, Ended> {
        let txn = tx.store_txn();
        let (node_files, mut others): (Vec<Input>, Vec<Input>) =
            inputs.into_iter().partition(|input| input.nodes_only);
        // With no committed node in the snapshot no id can be taken: the
        // rows are not looked up one by one (each a read lock of the
        // vertex dictionary, shared by the workers, and a probe).
        let committed = (txn.count_nodes(None) > 0).then_some(txn);
        let mut node_files = parse_all(
            node_files,
            self.threads,
            self.cancel,
            || |record, _: &_| node_row(committed, record),
            None,
        )?;
        // Each file indexed by a worker, the indexes joined in file order
        // (docs/adr/0204-node-files-indexed-apart-then-joined.md).
        // (A file read in pieces is indexed whole: joining its pieces
        // would insert all but the first's ids again on this thread.)
        let parts = fan_out(
            node_files.chunk_by(|a, b| a.name == b.name).collect(),
            self.threads,
            |pieces| pieces.iter().map(|p| p.rows.len() as u64).sum(),
            || |pieces: &[Parsed<NodeRow>]| Some(index_file(pieces)),
        );
        let keys = IdIndex::join(parts);
        let mut values = node_files.iter().map(|file| file.values).sum::<usize>();
        // Rows are counted across the files in order; the refused ones
        // (an id repeated within the load) are reported in their places
        // and left out before the store takes the rows, so the kept ones
        // are the positions `keys` gives.
        let refused = keys.refused().to_vec();
        let mut next_refused = refused.iter().copied().peekable();
        let mut seen = 0;
        self.walk(&node_files, |row: &NodeRow| {
            seen += 1;
            if next_refused.next_if_eq(&(seen - 1)).is_some() {
                values -= row.properties.len();
                return Err(row.taken());
            }
            Ok(())
        })?;
        Progress::add(&self.progress.property_values, values as u64);
        // Each relationship file's end spaces looked up in the index once,
        // not by name for every end.
        for input in &mut others {
            let names = &input.end_spaces.names;
            input.end_spaces.slots = Some(names.each_ref().map(|n| keys.number_slot(n.as_deref())));
        }
        let ends = Ends { keys: &keys, txn };
        let rel_files = parse_all(
            others,
            self.threads,
            self.cancel,
            || {
                let mut scratch = String::new();
                move |record, spaces: &_| match record {
                    Record::Relationship(rel) => ends.resolve(rel, spaces, &mut scratch),
                    Record::Node(node) => Err(misplaced(node.line, "node", "relationship")),
                }
            },
            Some(&|record, spaces| {
                if let Record::Relationship(rel) = record {
                    ends.prefetch(rel, spaces);
                }
            }),
        )?;
        drop(keys);
        leave_out(&mut node_files, &refused);
        self.walk(&rel_files, |_| Ok(()))?;
        let values = rel_files.iter().map(|file| file.values).sum::<usize>();
        Progress::add(&self.progress.property_values, values as u64);
        let nodes = node_files.into_iter().map(|f| f.rows).collect();
        let rels = rel_files.into_iter().map(|f| f.rows).collect();
        commit.apply(tx, Ready { nodes, rels })
    }

    fn walk<'a, T>(
        &self,
        files: &'a [Parsed<T>],
        visit: impl FnMut(&'a T) -> Result<(), RowError>,
    ) -> Result<(), Ended> {
        walk(files, self.fail_on_error, self.progress, self.cancel, visit)
    }
}

/// A node file's own id index (positions from its first row, a repeated
/// id refused), from its pieces' rows in order.
fn index_file(pieces: &[Parsed<NodeRow>]) -> IdIndex<'_> {
    let mut index = IdIndex::default();
    let mut rows = pieces.iter().flat_map(|piece| &piece.rows).peekable();
    if let Some(first) = rows.peek() {
        let (space, id) = first.split_key();
        let count = pieces.iter().map(|piece| piece.rows.len()).sum();
        index.reserve_like(space, id, count);
    }
    for row in rows {
        let (space, id) = row.split_key();
        index.push(space, id);
    }
    index
}

impl Row for NodeRow {
    fn values(&self) -> usize {
        self.properties.len()
    }
}

impl Row for RelRow {
    fn values(&self) -> usize {
        self.properties.len()
    }
}

/// Removes the rows at `refused` (ascending positions counted across
/// `files` in order) from their files.
fn leave_out<T>(files: &mut [Parsed<T>], refused: &[usize]) {
    if refused.is_empty() {
        return;
    }
    let mut refused = refused.iter().peekable();
    let mut at = 0;
    for file in files {
        file.rows.retain(|_| {
            let keep = refused.next_if_eq(&&at).is_none();
            at += 1;
            keep
        });
    }
}

/// A node file's record as a node row, refused when a committed node of
/// `committed` (none when `None`) has its id (the store checks again
/// under its commit lock).
fn node_row(committed: Option<&Txn>, record: Record) -> Result<NodeRow, RowError> {
    let node = match record {
        Record::Node(node) => node,
        Record::Relationship(rel) => return Err(misplaced(rel.line, "relationship", "node")),
    };
    let row = NodeRow::new(node)?;
    if committed.is_some_and(|txn| txn.node_by_element_id(&row.key).is_some()) {
        return Err(row.taken());
    }
    Ok(row)
}

/// A record of one kind in a file of the other (a reader yields none:
/// its header decides the kind of every row).
fn misplaced(line: u64, kind: &str, file: &str) -> RowError {
    RowError::at(line)(DbError {
        status: Status::ExternalResourceFailed,
        message: format!("a {kind} row in a {file} file"),
    })
}
