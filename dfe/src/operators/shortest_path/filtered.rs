//! The search under a path predicate (`length(p) > 2`, `reduce(...)`, ...):
//! paths are enumerated depth-first for each length in increasing order
//! (relationship-unique, as `VarExpand`), pruned by the BFS distance to the
//! end, and the first length with a path satisfying the predicate answers:
//! the shortest path *among those that satisfy it*, as in Neo4j. It
//! terminates because a relationship-unique path is no longer than the
//! number of relationships reachable from the start.

use super::{Found, Search};
use crate::error::ExecResult;
use nereid_values::{NodeId, RelId};
use std::collections::{HashMap, HashSet};

impl Search<'_> {
    /// BFS levels *towards* the target (against the pattern's direction):
    /// a lower bound on the relationships any path from a node still needs.
    /// Nodes missing from the map cannot reach the target at all.
    fn distances_to_target(&self) -> ExecResult<HashMap<NodeId, u64>> {
        let back = self.spec.dir.reversed();
        let mut distance = HashMap::from([(self.target, 0)]);
        let mut frontier = vec![self.target];
        let mut level = 0;
        while !frontier.is_empty() && self.within_max(level + 1) {
            level += 1;
            let mut next = Vec::new();
            for &node in &frontier {
                for (_, neighbour) in self.neighbours(node, back)? {
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
        Ok(distance)
    }

    /// How many distinct relationships a path from the start can use: no
    /// relationship-unique path is longer.
    fn reachable_relationships(&self) -> ExecResult<u64> {
        let mut seen_nodes = HashSet::from([self.start]);
        let mut seen_rels = HashSet::new();
        let mut frontier = vec![self.start];
        while let Some(node) = frontier.pop() {
            for (rel, neighbour) in self.neighbours(node, self.spec.dir)? {
                seen_rels.insert(rel);
                if seen_nodes.insert(neighbour) {
                    frontier.push(neighbour);
                }
            }
        }
        Ok(seen_rels.len() as u64)
    }

    /// Filtered search: for each length from the minimum up, every
    /// relationship-unique path of exactly that length to the target, tested
    /// against the predicate; stops at the first length with an accepted path.
    pub(super) fn by_increasing_length(&self) -> ExecResult<Vec<Found>> {
        let distance = self.distances_to_target()?;
        if !distance.contains_key(&self.start) {
            return Ok(Vec::new());
        }
        let reachable = self.reachable_relationships()?;
        let longest = self.spec.max.map_or(reachable, |max| max.min(reachable));
        let mut found = Vec::new();
        for length in self.spec.min..=longest {
            let mut walk = Walk {
                length,
                distance: &distance,
                nodes: vec![self.start],
                rels: Vec::new(),
            };
            walk.extend(self, &mut found)?;
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
    fn extend(&mut self, search: &Search<'_>, found: &mut Vec<Found>) -> ExecResult<bool> {
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
            if search.checks.borrow_mut().path_ok(&path)? {
                found.push(path);
                return Ok(!search.spec.all);
            }
            return Ok(false);
        }
        for (rel, next) in search.neighbours(here, search.spec.dir)? {
            let close_enough = self
                .distance
                .get(&next)
                .is_some_and(|d| taken + 1 + d <= self.length);
            if !close_enough || self.rels.contains(&rel) {
                continue;
            }
            self.rels.push(rel);
            self.nodes.push(next);
            let done = self.extend(search, found)?;
            self.rels.pop();
            self.nodes.pop();
            if done {
                return Ok(true);
            }
        }
        Ok(false)
    }
}
