//! A REL_VP partition's nodes read for a checkpoint by walking the
//! partition in slot order instead of probing the S index per node.
//!
//! A bulk load appends each node's tuples together (exists, labels,
//! properties), node after node; a checkpoint then exported every node by
//! an S-index probe of its own, a random read per node that was ~9% of a
//! load's checkpoint (benches/RESULTS.md, session 33). When the
//! partition's visible tuples ascend by subject and no slot was ever
//! reused, a node's visible tuples are one run of slots, in the order the
//! probe lists them (insertion order), so the run starting where the
//! listing saw the node's first visible tuple is exactly what the probe
//! would read. Otherwise the export probes, as before.

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
        let mut ascending = true;
        let mut run: Option<(u64, u32)> = None;
        for (index, t) in partition.scan() {
            if !t.visible(&view) {
                continue;
            }
            let from = match run {
                Some((s, from)) if s == t.s => from,
                previous => {
                    ascending &= previous.is_none_or(|(s, _)| s < t.s);
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
        let walkable = ascending && !partition.reused_slots();
        NodeListing { nodes, walkable }
    }

    /// `node`'s labels and stored properties as
    /// [`Reader::node_labels_and_stored`] gives them, read from the run of
    /// slots at `from` when the partition is walkable.
    pub(super) fn labels_and_stored(
        &self,
        reader: &Reader<'_>,
        part: usize,
        (node, from): (u64, u32),
    ) -> (Vec<String>, Vec<(u32, Encoded)>) {
        if !self.walkable {
            return reader.node_labels_and_stored(node);
        }
        let Some(partition) = reader.store.vp.read(part) else {
            return (Vec::new(), Vec::new());
        };
        let run = partition
            .scan_from(from)
            .map(|(_, t)| t)
            .filter(|t| t.visible(&reader.view))
            .take_while(|t| t.s == node);
        reader.labels_and_stored(run)
    }

    /// Whether the export walks the partition (tests).
    #[cfg(test)]
    pub(super) fn walkable(&self) -> bool {
        self.walkable
    }
}
