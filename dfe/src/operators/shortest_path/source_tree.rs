//! The breadth-first tree of one start node, shared by the rows that search
//! from it (docs/adr/0124-shortest-paths-bidirectional-and-shared-start.md).
//!
//! A plan like LDBC's IC1 runs `shortestPath((p)-[:KNOWS*1..3]-(friend))`
//! for every candidate `friend` from the same `p`: one search from `p` to
//! the maximum length (all of the start's component when unbounded) answers
//! every candidate by a walk up its parents, where a search per row would
//! read the same levels again for each. Only a search without a path
//! predicate or element filters shares a tree: those may read the row.
//!
//! With a maximum length, the last level is the widest and the costliest to
//! read (IC1's third level of KNOWS reads the relationships of every
//! friend of a friend), yet a target not reached before it needs only one
//! fact: which of its own neighbours sit on the level before. So that level
//! is left unread, and such a target is answered from its own
//! relationships (read backwards, one store call) until the targets
//! answered that way outnumber a share of the frontier
//! ([`TARGETS_PER_FRONTIER`]); then the level is read once, as before, and
//! answers the rest. The paths found are the same shortest paths.

use super::frontier::Side;
use super::{Found, Search};
use crate::error::ExecResult;
use nereid_values::NodeId;

/// Frontier nodes per target answered from its own relationships before
/// the last level is read whole: a target's read costs about one
/// frontier node's, and reading the level whole also costs a hash insert
/// per node reached, so this bounds the extra work by a quarter of that
/// read.
const TARGETS_PER_FRONTIER: usize = 4;

pub(super) struct SourceTree {
    side: Side,
    /// The length of the paths on the last level while it is not read
    /// (the frontier is the level before it).
    unread_last: Option<u64>,
    /// Targets answered from their own relationships so far.
    answered_backwards: usize,
}

impl SourceTree {
    /// Every level from the search's start up to its maximum length, the
    /// last of a bounded search left unread (module docs).
    pub(super) fn build(search: &Search<'_>) -> ExecResult<SourceTree> {
        let mut side = Side::new(search.start, search.spec.all);
        let last = search.spec.max.filter(|&max| max >= 2);
        while !side.frontier.is_empty()
            && search.within_max(side.depth + 1)
            && last.is_none_or(|last| side.depth + 1 < last)
        {
            let steps = search.steps(&side.frontier, search.spec.dir)?;
            side.advance(steps);
            search.charge(side.reached())?;
        }
        let unread_last = last.filter(|&last| side.depth + 1 == last && !side.frontier.is_empty());
        Ok(SourceTree {
            side,
            unread_last,
            answered_backwards: 0,
        })
    }

    pub(super) fn start(&self) -> NodeId {
        self.side.root()
    }

    /// The shortest paths (every one when `all`) from the start to
    /// `target`, in pattern order; none when it is out of reach.
    pub(super) fn paths_to(
        &mut self,
        target: NodeId,
        search: &Search<'_>,
    ) -> ExecResult<Vec<Found>> {
        if !self.side.reaches(target) && self.unread_last.is_some() {
            if self.answered_backwards * TARGETS_PER_FRONTIER < self.side.frontier.len() {
                self.answered_backwards += 1;
                return self.through_last_level(target, search);
            }
            let steps = search.steps(&self.side.frontier, search.spec.dir)?;
            self.side.advance(steps);
            search.charge(self.side.reached())?;
            self.unread_last = None;
        }
        if !self.side.reaches(target) {
            return Ok(Vec::new());
        }
        Ok(self
            .side
            .walks_to_root(target)
            .into_iter()
            .map(|walk| walk.reversed())
            .collect())
    }

    /// The paths to `target` (not reached on the levels read) through its
    /// neighbours on the frontier: each of their walks to the root, with
    /// the step into `target` before it. For `shortestPath`, the walk
    /// through the frontier node of lowest id (the first one reading the
    /// level would have reached it from: levels are read by ascending id).
    fn through_last_level(&self, target: NodeId, search: &Search<'_>) -> ExecResult<Vec<Found>> {
        search.stop.check()?;
        let mut into = search.neighbours(target, search.spec.dir.reversed())?;
        into.retain(|&(_, before)| self.side.on_frontier(before));
        if !search.spec.all {
            into.sort_by_key(|&(rel, before)| (before.0, rel.0));
            into.truncate(1);
        }
        let mut found = Vec::new();
        for (rel, before) in into {
            for walk in self.side.walks_to_root(before) {
                let mut path = Found {
                    nodes: Vec::with_capacity(walk.nodes.len() + 1),
                    rels: Vec::with_capacity(walk.rels.len() + 1),
                };
                path.nodes.push(target);
                path.nodes.extend(walk.nodes);
                path.rels.push(rel);
                path.rels.extend(walk.rels);
                found.push(path.reversed());
            }
        }
        Ok(found)
    }
}
