//! A set of vertices for frontier-bound patterns: members grouped by their
//! 1D partition (what an index scan probes, and how the layer counts probes
//! per partition) plus a bitmap for O(1) membership tests in relation scans.
//!
//! The bitmap is a direct-access array keyed by the dense part of a vertex
//! gui (collision counter and hash, see `crate::ids`): guis are dense per
//! hash bucket, so the bitmap is about `vertices / 8` bytes whatever the
//! ids look like.

use crate::ids::vertex_partition;
use crate::relation::{dense_position as dense, GuiBits};
use nereid_values::NodeId;

/// A set of vertices (no duplicates), built for one store's partition count.
pub struct VertexSet {
    by_part: Vec<Vec<u64>>,
    bits: Vec<u64>,
    len: usize,
}

impl VertexSet {
    pub(crate) fn new(partitions: usize) -> Self {
        VertexSet {
            by_part: vec![Vec::new(); partitions],
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
        self.by_part[part].push(node.0);
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

    /// Members whose 1D partition is `part`.
    pub(crate) fn in_partition(&self, part: usize) -> &[u64] {
        self.by_part.get(part).map_or(&[], Vec::as_slice)
    }

    /// Every member, partition by partition.
    pub fn iter(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.by_part.iter().flatten().map(|&g| NodeId(g))
    }
}
