//! Reads in bounded batches, for a walk over the whole graph that must not
//! hold the whole graph (the RDF export streams a snapshot of any size):
//! nodes a batch at a time from a cursor, and the one question the export
//! asks of every relationship property before it writes anything.

use super::read::Reader;
use crate::predicates::PRED_EXISTS;
use nereid_values::{NodeId, RelId};

/// Where a batched node scan resumes: a vertex partition and a slot in it.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct NodeCursor {
    partition: usize,
    slot: u32,
}

impl Reader<'_> {
    /// Up to `max` visible nodes from `from` on, appended to `out`, and the
    /// cursor after them (`None` once the scan is complete). The order is
    /// [`Reader::scan_nodes`]'s: partition by partition, slot order.
    pub(crate) fn scan_nodes_batch(
        &self,
        from: NodeCursor,
        max: usize,
        out: &mut Vec<NodeId>,
    ) -> Option<NodeCursor> {
        let mut found = 0;
        for partition in from.partition..self.store.vp.partitions() {
            let Some(part) = self.store.vp.read(partition) else {
                continue;
            };
            let start = if partition == from.partition {
                from.slot
            } else {
                0
            };
            for (slot, t) in part.scan_from(start) {
                if found == max {
                    return Some(NodeCursor { partition, slot });
                }
                if t.p == PRED_EXISTS && self.visible(&t) {
                    out.push(NodeId(t.s));
                    found += 1;
                }
            }
        }
        None
    }

    /// A visible relationship property whose key is not `except`: the
    /// relationship and the key, the first a scan of REL_EP meets.
    pub(crate) fn rel_property_other_than(&self, except: &str) -> Option<(RelId, String)> {
        let except = self.store.keys.lookup(except);
        for partition in 0..self.store.ep.partitions() {
            let Some(part) = self.store.ep.read(partition) else {
                continue;
            };
            for (_, t) in part.scan() {
                if Some(t.p) != except && self.visible(&t) {
                    let key = self.store.keys.name(t.p)?.to_string();
                    return Some((RelId(t.s), key));
                }
            }
        }
        None
    }
}
