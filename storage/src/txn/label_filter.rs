//! Label tests through the REL_VP partitions' label bits (ADR 0183): a
//! clear bit rules a node out without probing its tuples, a set one sends
//! it on to the probe, which decides by the tuples' stamps (module
//! `relation::label_bits` says why that is exact in every snapshot).

use super::read::Reader;
use crate::ids::vertex_partition;
use crate::relation::LabelView;
use crossbeam::epoch;

impl Reader<'_> {
    /// Whether the label bits leave open that `node` carries the label
    /// `label_gui` in some version (`false`: it does in none).
    pub(crate) fn may_have_label(&self, node: u64, label_gui: u64) -> bool {
        let part = vertex_partition(node, self.store.partitions);
        let Some(bits) = self.store.vp.label_bits(part) else {
            return true;
        };
        let _pin = epoch::pin();
        bits.may_have(&bits.view(label_gui), node)
    }

    /// The nodes of `nodes` the label bits leave open for `label_gui`
    /// ([`Reader::may_have_label`]), each with its place in `nodes`. Each
    /// partition's view of the label is taken once, when the first of its
    /// nodes comes.
    pub(crate) fn label_candidates(&self, nodes: &[u64], label_gui: u64) -> (Vec<u64>, Vec<usize>) {
        let parts = self.store.partitions;
        let vp = &self.store.vp;
        let mut views: Vec<Option<LabelView<'_>>> = (0..parts).map(|_| None).collect();
        let (mut kept, mut places) = (Vec::new(), Vec::new());
        let _pin = epoch::pin();
        for (place, &node) in nodes.iter().enumerate() {
            let part = vertex_partition(node, parts);
            let open = match (vp.label_bits(part), views.get_mut(part)) {
                (Some(bits), Some(view)) => {
                    bits.may_have(view.get_or_insert_with(|| bits.view(label_gui)), node)
                }
                _ => true,
            };
            if open {
                kept.push(node);
                places.push(place);
            }
        }
        (kept, places)
    }
}
