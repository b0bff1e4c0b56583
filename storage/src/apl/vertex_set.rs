//! A set of vertices for frontier-bound patterns: members grouped by their
//! 1D partition (what an index scan probes, and how the layer counts probes
//! per partition) plus a bitmap for O(1) membership tests in relation scans.
//!
//! The bitmap is a direct-access array keyed by the dense part of a vertex
//! gui (collision counter and hash, see `crate::ids`): guis are dense per
//! hash bucket, so the bitmap is about `vertices / 8` bytes whatever the
//! ids look like.
//!
//! Index scans probe a partition's members in ascending gui order (the
//! order of the index heads, and of bulk-loaded tuples, which are clustered
//! by source), so each partition's members are sorted once, on first use
//! after a change, however many grid cells probe them.

use crate::ids::vertex_partition;
use crate::relation::{dense_position as dense, GuiBits};
use nereid_values::NodeId;
use std::sync::OnceLock;

/// A set of vertices (no duplicates), built for one store's partition count.
pub struct VertexSet {
    by_part: Vec<Vec<u64>>,
    /// Per partition: whether `by_part` is known to be ascending (kept by
    /// `insert`), else its sorted copy once asked for.
    ascending: Vec<bool>,
    sorted: Vec<OnceLock<Vec<u64>>>,
    bits: Vec<u64>,
    len: usize,
}

impl VertexSet {
    pub(crate) fn new(partitions: usize) -> Self {
        VertexSet {
            by_part: vec![Vec::new(); partitions],
            ascending: vec![true; partitions],
            sorted: (0..partitions).map(|_| OnceLock::new()).collect(),
            bits: Vec::new(),
            len: 0,
        }
    }

    /// Adds `node`; false when it was already a member.
    pub fn insert(&mut self, node: NodeId) -> bool {
        let d = dense(node.0);
        let word = d / 64;
        if word >= self.bits.len() {
            self.bits.resize((word + 1).next_power_of_two(), 0);
        }
        let mask = 1u64 << (d % 64);
        if self.bits[word] & mask != 0 {
            return false;
        }
        self.bits[word] |= mask;
        let part = vertex_partition(node.0, self.by_part.len());
        let members = &mut self.by_part[part];
        if members.last().is_some_and(|&last| last > node.0) {
            self.ascending[part] = false;
        }
        members.push(node.0);
        if !self.ascending[part] {
            self.sorted[part] = OnceLock::new();
        }
        self.len += 1;
        true
    }

    /// Membership by gui (the form tuples hold).
    #[inline]
    pub(crate) fn contains_gui(&self, gui: u64) -> bool {
        self.bits().contains(gui)
    }

    /// The membership bitmap, for bit-vector scans.
    pub(crate) fn bits(&self) -> GuiBits<'_> {
        GuiBits(&self.bits)
    }

    pub fn contains(&self, node: NodeId) -> bool {
        self.contains_gui(node.0)
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Members whose 1D partition is `part`, in ascending order.
    pub(crate) fn in_partition(&self, part: usize) -> &[u64] {
        let Some(members) = self.by_part.get(part) else {
            return &[];
        };
        if self.ascending[part] {
            return members;
        }
        self.sorted[part].get_or_init(|| {
            let mut sorted = members.clone();
            sorted.sort_unstable();
            sorted
        })
    }

    /// Every member, partition by partition.
    pub fn iter(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.by_part.iter().flatten().map(|&g| NodeId(g))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{make_gui, TAG_VERT};

    #[test]
    fn partitions_are_handed_over_ascending_and_follow_inserts() {
        let mut set = VertexSet::new(2);
        let guis: Vec<u64> = [9u16, 3, 7, 4, 1, 8]
            .iter()
            .map(|&h| make_gui(TAG_VERT, 0, h))
            .collect();
        for &g in &guis {
            assert!(set.insert(NodeId(g)));
        }
        assert!(!set.insert(NodeId(guis[0])));
        let odd = set.in_partition(1).to_vec();
        assert_eq!(odd, [1u16, 3, 7, 9].map(|h| make_gui(TAG_VERT, 0, h)));
        assert_eq!(
            set.in_partition(0),
            [4u16, 8].map(|h| make_gui(TAG_VERT, 0, h))
        );
        // An insert after the sorted copy was made is seen.
        set.insert(NodeId(make_gui(TAG_VERT, 0, 5)));
        assert_eq!(
            set.in_partition(1),
            [1u16, 3, 5, 7, 9].map(|h| make_gui(TAG_VERT, 0, h))
        );
        assert_eq!(set.in_partition(7), &[] as &[u64]);
        assert_eq!(set.len(), 7);
    }
}
