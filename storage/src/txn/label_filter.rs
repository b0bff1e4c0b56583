//! Label tests through the REL_VP partitions' label bits (ADR 0183): a
//! clear bit rules a node out without probing its tuples, a set one sends
//! it on to the probe, which decides by the tuples' stamps (module
//! `relation::label_bits` says why that is exact in every snapshot).

use super::read::Reader;
use crate::ids::vertex_partition;
use crate::relation::LabelView;
use crossbeam::epoch;

/// Nodes of a column whose bits are tested first: enough to tell a test
/// most nodes pass from one the bits mostly decide.
pub(crate) const LABEL_SAMPLE: usize = 64;

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

    /// [`Reader::label_candidates`], or `None` when [`LABEL_SAMPLE`] nodes
    /// spread evenly over `nodes` show that the bits leave open at least 7
    /// in 8 of them: then the column is probed whole, as without the bits
    /// (a test most nodes pass, e.g. `:Message` over messages, would pay
    /// the bit tests and the regrouping for nothing: 5–12% of such a
    /// filter, benches/RESULTS.md). Spread, not the first ones: an
    /// expand's rows list each node's neighbours in load order, e.g. a
    /// person's posts before its comments.
    pub(crate) fn sampled_label_candidates(
        &self,
        nodes: &[u64],
        label_gui: u64,
    ) -> Option<(Vec<u64>, Vec<usize>)> {
        if nodes.len() <= LABEL_SAMPLE {
            // The sample is the column (a nested plan's few rows): its
            // candidates are the answer, tested once.
            let found = self.label_candidates(nodes, label_gui);
            return (found.0.len() * 8 < nodes.len() * 7).then_some(found);
        }
        let step = nodes.len() / LABEL_SAMPLE;
        let sample: Vec<u64> = nodes
            .iter()
            .step_by(step)
            .take(LABEL_SAMPLE)
            .copied()
            .collect();
        let (open, _) = self.label_candidates(&sample, label_gui);
        if open.len() * 8 >= sample.len() * 7 {
            return None;
        }
        Some(self.label_candidates(nodes, label_gui))
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

#[cfg(test)]
mod tests {
    use super::LABEL_SAMPLE;
    use crate::{Store, StoreConfig};
    use nereid_values::NodeId;
    use std::collections::BTreeMap;

    /// 600 nodes, every fifth labelled `Rare`, all labelled `Common`.
    fn nodes(s: &std::sync::Arc<Store>) -> Vec<u64> {
        let t = s.begin();
        let ids: Vec<NodeId> = (0..600)
            .map(|i| {
                let labels: Vec<String> = match i % 5 {
                    0 => vec!["Rare".into(), "Common".into()],
                    _ => vec!["Common".into()],
                };
                t.create_node(&labels, &BTreeMap::new()).unwrap()
            })
            .collect();
        t.commit(|_, _| Ok::<(), ()>(()))
            .unwrap()
            .unwrap()
            .publish();
        ids.iter().map(|id| id.0).collect()
    }

    #[test]
    fn a_label_most_nodes_pass_is_probed_whole_and_a_rare_one_through_the_bits() {
        let s = Store::new(StoreConfig { partitions: 4 });
        let nodes = nodes(&s);
        let t = s.begin();
        let reader = t.reader();
        let gui = |name: &str| s.literals.lookup(name.as_bytes()).unwrap();
        assert!(reader
            .sampled_label_candidates(&nodes, gui("Common"))
            .is_none());
        let (kept, places) = reader
            .sampled_label_candidates(&nodes, gui("Rare"))
            .expect("the bits rule out four in five");
        // Every labelled node is kept, past the sample too, in its place.
        let expected: Vec<usize> = (0..600).filter(|i| i % 5 == 0).collect();
        assert!(places.iter().any(|&p| p >= LABEL_SAMPLE));
        assert_eq!(places, expected);
        assert_eq!(kept, expected.iter().map(|&p| nodes[p]).collect::<Vec<_>>());
        // The column reads the same either way.
        let column = reader.node_has_label_column(&nodes, "Rare");
        assert_eq!(column, (0..600).map(|i| i % 5 == 0).collect::<Vec<_>>());
        assert!(reader
            .node_has_label_column(&nodes, "Common")
            .iter()
            .all(|&c| c));
        assert!(reader.sampled_label_candidates(&[], gui("Rare")).is_none());
        // A short column is its own sample.
        let short = &nodes[..20];
        assert!(reader
            .sampled_label_candidates(short, gui("Common"))
            .is_none());
        let (kept, places) = reader.sampled_label_candidates(short, gui("Rare")).unwrap();
        assert_eq!(places, [0, 5, 10, 15]);
        assert_eq!(kept, [nodes[0], nodes[5], nodes[10], nodes[15]]);
        // Rare nodes first, then the rest (an expand lists a node's
        // neighbours in load order): the first 64 would all pass, the
        // spread sample still sees the whole.
        let mut grouped: Vec<u64> = expected.iter().map(|&p| nodes[p]).collect();
        grouped.extend((0..600).filter(|i| i % 5 != 0).map(|i| nodes[i]));
        let (kept, _) = reader
            .sampled_label_candidates(&grouped, gui("Rare"))
            .expect("four in five ruled out, wherever they stand");
        assert_eq!(kept, grouped[..120]);
    }
}
