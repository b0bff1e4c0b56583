//! The single-pair search without a path predicate: a breadth-first search
//! from both ends at once, each round taking one whole level on the side
//! whose frontier is smaller (docs/adr/0124-shortest-paths-bidirectional-and-shared-start.md).
//!
//! Why it is exact: while no node has been reached from both sides, with
//! the start side `a` levels deep and the end side `b`, no path has `a + b`
//! relationships or fewer (the node `a` steps along such a path would have
//! been reached from both). So when a new level, say the start side's
//! `a + 1`, reaches nodes the other side reached, the shortest paths have
//! `a + 1 + b` relationships, each meets that level in exactly one node,
//! and that node sits at level `b` on the other side. Every shortest path is
//! then one walk from the start to a meeting node followed by one walk from
//! it to the end, each side's parents being complete for the levels taken.
//! Element filters are applied to the steps of both sides alike, so both
//! search the same filtered graph.

use super::frontier::Side;
use super::{Found, Search};
use crate::error::ExecResult;
use nereid_values::NodeId;

impl Search<'_> {
    pub(super) fn bidirectional(&self) -> ExecResult<Vec<Found>> {
        if self.start == self.target {
            return Ok(vec![Found {
                nodes: vec![self.start],
                rels: Vec::new(),
            }]);
        }
        let all = self.spec.all;
        let mut forward = Side::new(self.start, all);
        let mut backward = Side::new(self.target, all);
        loop {
            if forward.frontier.is_empty() || backward.frontier.is_empty() {
                return Ok(Vec::new());
            }
            if !self.within_max(forward.depth + backward.depth + 1) {
                return Ok(Vec::new());
            }
            let from_start = forward.frontier.len() <= backward.frontier.len();
            let (grown, other, dir) = if from_start {
                (&mut forward, &backward, self.spec.dir)
            } else {
                (&mut backward, &forward, self.spec.dir.reversed())
            };
            let steps = self.steps(&grown.frontier, dir)?;
            grown.advance(steps);
            let meeting: Vec<NodeId> = grown
                .frontier
                .iter()
                .copied()
                .filter(|&node| other.reaches(node))
                .collect();
            self.charge(forward.reached() + backward.reached())?;
            if meeting.is_empty() {
                continue;
            }
            let mut found = Vec::new();
            for node in meeting {
                let tails = backward.walks_to_root(node);
                for head in forward.walks_to_root(node) {
                    let head = head.reversed();
                    for tail in &tails {
                        found.push(head.clone().joined(tail));
                        if !all {
                            return Ok(found);
                        }
                    }
                }
            }
            return Ok(found);
        }
    }
}
