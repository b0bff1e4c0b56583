//! A REL_VP partition's nodes read for a checkpoint by walking the
//! partition in slot order instead of probing the S index per node.
//!
//! A bulk load appends each node's tuples together (exists, labels,
//! properties), node after node; a checkpoint then exported every node by
//! an S-index probe of its own, a random read per node that was ~9% of a
//! load's checkpoint (benches/RESULTS.md, session 33).
//!
//! Vertex ids carry hash bits, so subjects do not ascend along the slots;
//! what the walk needs is that each node's visible tuples are one run of
//! slots. A node has at most one visible exists tuple (MVCC), and it is
//! its first tuple; so when every run of visible tuples of one subject
//! opens with an exists tuple, no subject has two runs. When, moreover,
//! no slot was ever reused, slot order is insertion order, the order the
//! probe lists a node's tuples in: the run starting where the listing saw
//! the node's exists tuple is exactly what the probe would read.
//! Otherwise (a property or label added after other nodes were written, a
//! reused slot) the export probes per node, as before (ADR 0193).

use crate::mvcc::View;
use crate::predicates::PRED_EXISTS;
use crate::store::Store;
use crate::txn::Reader;
use crate::typed_value::Encoded;

/// The visible nodes of one REL_VP partition, in slot order of their
/// exists tuples (the order the export has always listed them in).
pub(super) struct NodeListing {
    /// Each node and the slot of its first visible tuple.
    pub(super) nodes: Vec<(u64, u32)>,
    /// Whether a node's tuples may be read from that slot on.
    walkable: bool,
}

impl NodeListing {
    /// Lists partition `part`'s nodes visible at `at`, in one scan that
    /// also checks whether the partition can be walked (module docs).
    pub(super) fn read(store: &Store, part: usize, at: u64) -> Self {
        let view = View::committed(at);
        let Some(partition) = store.vp.read(part) else {
            return NodeListing {
                nodes: Vec::new(),
                walkable: false,
            };
        };
        let mut nodes = Vec::new();
        let mut runs_open_with_exists = true;
        let mut run: Option<(u64, u32)> = None;
        for (index, t) in partition.scan() {
            if !t.visible(&view) {
                continue;
            }
            let from = match run {
                Some((s, from)) if s == t.s => from,
                _ => {
                    runs_open_with_exists &= t.p == PRED_EXISTS;
                    run = Some((t.s, index));
                    index
                }
            };
            if t.p == PRED_EXISTS {
                nodes.push((t.s, from));
            }
        }
        // Read after the scan: a slot reused before `at` (the only reuse
        // that can hold a visible tuple) set the flag before its tuple was
        // written.
        let walkable = runs_open_with_exists && !partition.reused_slots();
        NodeListing { nodes, walkable }
    }

    /// `node`'s labels and stored properties as
    /// [`Reader::node_labels_and_stored`] gives them (appended to the
    /// buffers, labels borrowed from the store), read from the run of
    /// slots at `from` when the partition is walkable.
    pub(super) fn labels_and_stored<'a>(
        &self,
        reader: &Reader<'a>,
        part: usize,
        (node, from): (u64, u32),
        labels: &mut impl Extend<&'a str>,
        found: &mut Vec<(u32, Encoded)>,
    ) {
        if !self.walkable {
            return reader.node_labels_and_stored_into(node, labels, found);
        }
        let Some(partition) = reader.store.vp.read(part) else {
            return;
        };
        let run = partition
            .scan_from(from)
            .map(|(_, t)| t)
            .filter(|t| t.visible(&reader.view))
            .take_while(|t| t.s == node);
        reader.labels_and_stored_into(run, labels, found);
    }

    /// Whether the export walks the partition (tests).
    #[cfg(test)]
    pub(super) fn walkable(&self) -> bool {
        self.walkable
    }
}
