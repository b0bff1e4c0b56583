//! The breadth-first tree of one start node, shared by the rows that search
//! from it (docs/adr/0124-shortest-paths-bidirectional-and-shared-start.md).
//!
//! A plan like LDBC's IC1 runs `shortestPath((p)-[:KNOWS*1..3]-(friend))`
//! for every candidate `friend` from the same `p`: one search from `p` to
//! the maximum length (all of the start's component when unbounded) answers
//! every candidate by a walk up its parents, where a search per row would
//! read the same levels again for each. Only a search without a path
//! predicate or element filters shares a tree: those may read the row.

use super::frontier::Side;
use super::{Found, Search};
use crate::error::ExecResult;
use nereid_values::NodeId;

pub(super) struct SourceTree {
    side: Side,
}

impl SourceTree {
    /// Every level from the search's start, up to its maximum length.
    pub(super) fn build(search: &Search<'_>) -> ExecResult<SourceTree> {
        let mut side = Side::new(search.start, search.spec.all);
        while !side.frontier.is_empty() && search.within_max(side.depth + 1) {
            let steps = search.steps(&side.frontier, search.spec.dir)?;
            side.advance(steps);
            search.charge(side.reached())?;
        }
        Ok(SourceTree { side })
    }

    pub(super) fn start(&self) -> NodeId {
        self.side.root()
    }

    /// The shortest paths (every one when `all`) from the start to
    /// `target`, in pattern order; none when it is out of reach.
    pub(super) fn paths_to(&self, target: NodeId) -> Vec<Found> {
        if !self.side.reaches(target) {
            return Vec::new();
        }
        self.side
            .walks_to_root(target)
            .into_iter()
            .map(|walk| walk.reversed())
            .collect()
    }
}
