//! Where each row's relationships lie in a set-at-a-time read of a batch
//! (`Expand::read_rest`): found for all the rows at once by one merge walk
//! instead of two binary searches per row.
//!
//! Why: the read answers grouped by node in ascending id order, and a row
//! asked for its node's range by binary search over the whole answer.
//! Profiles of SNB IC14 (its weight comprehensions expand every comment's
//! parent set-at-a-time, one relationship per row) put ~6% of the query on
//! the two searches' dependent loads. The rows' nodes are sorted (often
//! they already are, and then not even that), and the answer is walked once
//! beside them: linear in rows and relationships.

use nereid_storage::apl::Neighbour;
use nereid_values::NodeId;
use std::ops::Range;

/// The range of the read's answer holding each row's relationships, by
/// the row's position in its batch.
pub(crate) struct RowRanges {
    /// Position of the first row read set-at-a-time.
    first: usize,
    /// Per row from `first` on: its relationships' range (empty for a row
    /// whose start is not a node).
    ranges: Vec<(u32, u32)>,
}

impl RowRanges {
    /// The ranges of `starts` (the rows' start nodes from position `first`
    /// on, `None` where a row holds no node) in `edges`, which is grouped
    /// by node in ascending id order.
    pub(crate) fn new(first: usize, starts: &[Option<NodeId>], edges: &[Neighbour]) -> RowRanges {
        let mut order: Vec<u32> = (0..starts.len())
            .filter(|&i| starts[i].is_some())
            .map(|i| i as u32)
            .collect();
        let node_at = |i: u32| starts[i as usize];
        if !order.windows(2).all(|w| node_at(w[0]) <= node_at(w[1])) {
            order.sort_unstable_by_key(|&i| node_at(i));
        }
        let mut ranges = vec![(0, 0); starts.len()];
        let (mut at, mut last) = (0usize, None::<(NodeId, (u32, u32))>);
        for i in order {
            let Some(node) = node_at(i) else { continue };
            // Rows of one node share its range (walked once).
            if let Some((_, range)) = last.filter(|&(seen, _)| seen == node) {
                ranges[i as usize] = range;
                continue;
            }
            while edges.get(at).is_some_and(|&(n, _, _)| n < node) {
                at += 1;
            }
            let start = at;
            while edges.get(at).is_some_and(|&(n, _, _)| n == node) {
                at += 1;
            }
            let range = (start as u32, (at - start) as u32);
            ranges[i as usize] = range;
            last = Some((node, range));
        }
        RowRanges { first, ranges }
    }

    /// The range of the row at `position` (its batch position), or `None`
    /// for a row before the set-at-a-time read.
    pub(crate) fn of(&self, position: usize) -> Option<Range<usize>> {
        let &(start, len) = self.ranges.get(position.checked_sub(self.first)?)?;
        let start = start as usize;
        Some(start..start + len as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nereid_values::RelId;

    fn edges(of: &[(u64, u64)]) -> Vec<Neighbour> {
        of.iter()
            .map(|&(node, rel)| (NodeId(node), RelId(rel), NodeId(100 + rel)))
            .collect()
    }

    #[test]
    fn rows_in_any_order_find_their_node_s_range() {
        let edges = edges(&[(1, 10), (1, 11), (3, 12), (5, 13), (5, 14), (5, 15)]);
        let starts = [
            Some(NodeId(5)),
            None,
            Some(NodeId(1)),
            Some(NodeId(4)),
            Some(NodeId(5)),
            Some(NodeId(3)),
            Some(NodeId(9)),
        ];
        let ranges = RowRanges::new(8, &starts, &edges);
        let found: Vec<_> = (8..15).map(|p| ranges.of(p).unwrap()).collect();
        let want = [3..6, 0..0, 0..2, 3..3, 3..6, 2..3, 6..6];
        for (got, want) in found.iter().zip(want) {
            assert_eq!(got.len(), want.len());
            if !want.is_empty() {
                assert_eq!(*got, want);
            }
        }
        assert_eq!(ranges.of(7), None);
        assert_eq!(ranges.of(15), None);
    }

    #[test]
    fn agrees_with_a_binary_search_per_row() {
        let mut state = 7u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % 40
        };
        let mut pairs: Vec<(u64, u64)> = (0..200).map(|rel| (next(), rel)).collect();
        pairs.sort_by_key(|&(node, _)| node);
        let edges = edges(&pairs);
        let starts: Vec<Option<NodeId>> = (0..300)
            .map(|_| Some(NodeId(next() + 1)).filter(|n| n.0 % 13 != 0))
            .collect();
        let ranges = RowRanges::new(0, &starts, &edges);
        for (position, start) in starts.iter().enumerate() {
            let Some(node) = start else { continue };
            let from = edges.partition_point(|&(n, _, _)| n < *node);
            let len = edges[from..].partition_point(|&(n, _, _)| n == *node);
            let got = ranges.of(position).unwrap();
            assert_eq!(got.len(), len, "row {position}");
            assert!(edges[got].iter().all(|&(n, _, _)| n == *node));
        }
    }
}
