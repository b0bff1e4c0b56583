//! `ShortestPath`: each input row extended with the shortest path (or, for
//! `allShortestPaths`, every shortest path) between two bound nodes.
//!
//! Two searches (docs/adr/0015-shortest-path.md):
//! - without a path predicate, a level-by-level breadth-first search from the
//!   start that stops after the level reaching the end. A shortest walk never
//!   repeats a node, so it never repeats a relationship either: BFS answers
//!   are relationship-unique without checking.
//! - with a predicate over the path (`WHERE all(r IN relationships(p) ...)`,
//!   `length(p) > 2`, ...), paths are enumerated depth-first for each length
//!   in increasing order (relationship-unique, as `VarExpand`), pruned by the
//!   BFS distance to the end, and the first length with a path satisfying the
//!   predicate answers: the shortest path *among those that satisfy it*, as in
//!   Neo4j. It terminates because a relationship-unique path is no longer than
//!   the number of relationships reachable from the start.
//!
//! The graph is read through the statement's `Txn`, like every expand, so
//! MVCC visibility and the transaction's own writes hold.

use super::endpoints::endpoints;
use super::flat_map::{Expander, Extensions};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::{ExecError, ExecResult};
use nereid_planner::ShortestPathSpec;
use nereid_storage::Txn;
use nereid_values::{Direction, NodeId, PathValue, RelId, Value};
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// Neo4j's refusal (its default `forbid_shortestpath_common_nodes`) of a
/// search that starts where it must end with a minimum length of 1.
const SAME_NODE: &str = "The shortest path algorithm does not work when the start and end nodes are the same. This can happen if you perform a shortestPath search after a cartesian product that might have the same start and end nodes for some of the rows passed to shortestPath. Use a minimum length of 0 (`[*0..]`) to accept the empty path for such rows.";

pub(crate) struct ShortestPath {
    pub(crate) spec: ShortestPathSpec,
}

/// A path found: `nodes.len() == rels.len() + 1`, in pattern order.
struct Found {
    nodes: Vec<NodeId>,
    rels: Vec<RelId>,
}

/// The fixed parameters of one row's search.
struct Search<'a> {
    txn: &'a Txn,
    spec: &'a ShortestPathSpec,
    start: NodeId,
    target: NodeId,
}

impl Search<'_> {
    fn neighbours(&self, node: NodeId, dir: Direction) -> Vec<(RelId, NodeId)> {
        self.txn.expand(node, dir, &self.spec.types)
    }

    fn within_max(&self, length: u64) -> bool {
        self.spec.max.is_none_or(|max| length <= max)
    }

    /// Unfiltered search: BFS recording, per node reached, the
    /// relationships that reach it from the previous level (all of them for
    /// `allShortestPaths`, the first otherwise).
    fn breadth_first(&self) -> Vec<Found> {
        if self.start == self.target {
            return vec![Found {
                nodes: vec![self.start],
                rels: Vec::new(),
            }];
        }
        let mut level_of: HashMap<NodeId, u64> = HashMap::from([(self.start, 0)]);
        let mut parents: HashMap<NodeId, Vec<(RelId, NodeId)>> = HashMap::new();
        let mut frontier = vec![self.start];
        let mut level = 0;
        while !frontier.is_empty() && !level_of.contains_key(&self.target) {
            level += 1;
            if !self.within_max(level) {
                break;
            }
            let mut next = Vec::new();
            for &node in &frontier {
                for (rel, neighbour) in self.neighbours(node, self.spec.dir) {
                    match level_of.get(&neighbour) {
                        None => {
                            level_of.insert(neighbour, level);
                            parents.insert(neighbour, vec![(rel, node)]);
                            next.push(neighbour);
                        }
                        Some(&l) if l == level && self.spec.all => {
                            parents.entry(neighbour).or_default().push((rel, node));
                        }
                        Some(_) => {}
                    }
                }
            }
            frontier = next;
        }
        if !level_of.contains_key(&self.target) {
            return Vec::new();
        }
        self.unwind_parents(&parents)
    }

    /// Every path from the start to the target through `parents` (only the
    /// first unless `all`). Iterative, so a long path cannot exhaust the stack.
    fn unwind_parents(&self, parents: &HashMap<NodeId, Vec<(RelId, NodeId)>>) -> Vec<Found> {
        let mut found = Vec::new();
        // Frames from the target towards the start, each with the index of
        // the next parent to try; `suffix[i]` is how frame `i` was reached
        // from frame `i + 1` (so `suffix.len() + 1 == frames.len()`).
        let mut frames: Vec<(NodeId, usize)> = vec![(self.target, 0)];
        let mut suffix: Vec<(RelId, NodeId)> = Vec::new();
        while let Some((node, next)) = frames.last_mut() {
            let node = *node;
            if node == self.start {
                let mut nodes = vec![self.start];
                let mut rels = Vec::with_capacity(suffix.len());
                for &(rel, reached) in suffix.iter().rev() {
                    rels.push(rel);
                    nodes.push(reached);
                }
                found.push(Found { nodes, rels });
                if !self.spec.all {
                    break;
                }
                frames.pop();
                suffix.pop();
                continue;
            }
            let options = parents.get(&node).map_or(&[][..], Vec::as_slice);
            match options.get(*next) {
                Some(&(rel, parent)) => {
                    *next += 1;
                    suffix.push((rel, node));
                    frames.push((parent, 0));
                }
                None => {
                    frames.pop();
                    suffix.pop();
                }
            }
        }
        found
    }

    /// BFS levels *towards* the target (against the pattern's direction):
    /// a lower bound on the relationships any path from a node still needs.
    /// Nodes missing from the map cannot reach the target at all.
    fn distances_to_target(&self) -> HashMap<NodeId, u64> {
        let back = match self.spec.dir {
            Direction::Outgoing => Direction::Incoming,
            Direction::Incoming => Direction::Outgoing,
            Direction::Both => Direction::Both,
        };
        let mut distance = HashMap::from([(self.target, 0)]);
        let mut frontier = vec![self.target];
        let mut level = 0;
        while !frontier.is_empty() && self.within_max(level + 1) {
            level += 1;
            let mut next = Vec::new();
            for &node in &frontier {
                for (_, neighbour) in self.neighbours(node, back) {
                    if let std::collections::hash_map::Entry::Vacant(slot) =
                        distance.entry(neighbour)
                    {
                        slot.insert(level);
                        next.push(neighbour);
                    }
                }
            }
            frontier = next;
        }
        distance
    }

    /// How many distinct relationships a path from the start can use: no
    /// relationship-unique path is longer.
    fn reachable_relationships(&self) -> u64 {
        let mut seen_nodes = HashSet::from([self.start]);
        let mut seen_rels = HashSet::new();
        let mut frontier = vec![self.start];
        while let Some(node) = frontier.pop() {
            for (rel, neighbour) in self.neighbours(node, self.spec.dir) {
                seen_rels.insert(rel);
                if seen_nodes.insert(neighbour) {
                    frontier.push(neighbour);
                }
            }
        }
        seen_rels.len() as u64
    }

    /// Filtered search: for each length from the minimum up, every
    /// relationship-unique path of exactly that length to the target, handed
    /// to `accept`; stops at the first length with an accepted path.
    fn by_increasing_length(
        &self,
        accept: &mut dyn FnMut(&Found) -> ExecResult<bool>,
    ) -> ExecResult<Vec<Found>> {
        let distance = self.distances_to_target();
        if !distance.contains_key(&self.start) {
            return Ok(Vec::new());
        }
        let longest = match self.spec.max {
            Some(max) => max.min(self.reachable_relationships()),
            None => self.reachable_relationships(),
        };
        let mut found = Vec::new();
        for length in self.spec.min..=longest {
            let mut walk = Walk {
                length,
                distance: &distance,
                nodes: vec![self.start],
                rels: Vec::new(),
            };
            walk.extend(self, accept, &mut found)?;
            if !found.is_empty() {
                break;
            }
        }
        Ok(found)
    }
}

/// One depth-first enumeration of the paths of exactly `length` relationships.
struct Walk<'a> {
    length: u64,
    distance: &'a HashMap<NodeId, u64>,
    nodes: Vec<NodeId>,
    rels: Vec<RelId>,
}

impl Walk<'_> {
    /// Extends the current path; returns true once the search is over (a
    /// single shortest path was accepted).
    fn extend(
        &mut self,
        search: &Search<'_>,
        accept: &mut dyn FnMut(&Found) -> ExecResult<bool>,
        found: &mut Vec<Found>,
    ) -> ExecResult<bool> {
        let here = *self.nodes.last().unwrap_or(&search.start);
        let taken = self.rels.len() as u64;
        if taken == self.length {
            if here != search.target {
                return Ok(false);
            }
            let path = Found {
                nodes: self.nodes.clone(),
                rels: self.rels.clone(),
            };
            if accept(&path)? {
                found.push(path);
                return Ok(!search.spec.all);
            }
            return Ok(false);
        }
        for (rel, next) in search.neighbours(here, search.spec.dir) {
            let close_enough = self
                .distance
                .get(&next)
                .is_some_and(|d| taken + 1 + d <= self.length);
            if !close_enough || self.rels.contains(&rel) {
                continue;
            }
            self.rels.push(rel);
            self.nodes.push(next);
            let done = self.extend(search, accept, found)?;
            self.rels.pop();
            self.nodes.pop();
            if done {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

impl ShortestPath {
    /// The slot values a found path writes.
    fn extension(&self, path: Found) -> Vec<(usize, Value)> {
        let mut out = vec![(
            self.spec.rels,
            Value::List(path.rels.iter().copied().map(Value::Relationship).collect()),
        )];
        if let Some(slot) = self.spec.path {
            out.push((
                slot,
                Value::Path(Box::new(PathValue {
                    nodes: path.nodes,
                    rels: path.rels,
                })),
            ));
        }
        out
    }
}

impl Expander for ShortestPath {
    fn expand(
        &mut self,
        batch: &Batch,
        _position: usize,
        row: usize,
        ctx: &mut ExecContext,
    ) -> ExecResult<Extensions> {
        let Some((start, Some(target))) =
            endpoints(batch, row, self.spec.from, self.spec.to, true)?
        else {
            return Ok(Box::new(std::iter::empty()));
        };
        if start == target && self.spec.min > 0 {
            return Err(ExecError::Semantic(SAME_NODE.to_string()));
        }
        let txn = Arc::clone(&ctx.txn);
        let search = Search {
            txn: &txn,
            spec: &self.spec,
            start,
            target,
        };
        let found = match &self.spec.predicate {
            None => search.breadth_first(),
            Some(predicate) => {
                // The predicate sees the input row with the candidate bound.
                let mut accept = |path: &Found| -> ExecResult<bool> {
                    let extension = self.extension(Found {
                        nodes: path.nodes.clone(),
                        rels: path.rels.clone(),
                    });
                    let mut scratch = Batch::new(ctx.slot_count);
                    scratch.push_extended(batch, row, &extension);
                    let verdict = ctx.evaluator().eval_row(predicate, &scratch, 0)?;
                    Ok(matches!(verdict, Value::Bool(true)))
                };
                search.by_increasing_length(&mut accept)?
            }
        };
        let extensions: Vec<_> = found.into_iter().map(|p| self.extension(p)).collect();
        Ok(Box::new(extensions.into_iter()))
    }
}
