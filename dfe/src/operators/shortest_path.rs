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
use super::flat_map::{Expander, Extension, Extensions};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::{ExecError, ExecResult};
use nereid_planner::{ElementFilter, Expr, ShortestPathSpec};
use nereid_storage::Txn;
use nereid_values::{Direction, NodeId, PathValue, RelId, Value};
use std::cell::RefCell;
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
    /// Expression evaluation for this row (behind a `RefCell` so the
    /// read-only search steps can evaluate).
    checks: RefCell<Checks<'a>>,
}

/// The row's expression checks: the per-element filters (memoised per
/// relationship and node) and the whole-path predicate.
struct Checks<'a> {
    ctx: &'a mut ExecContext,
    batch: &'a Batch,
    row: usize,
    spec: &'a ShortestPathSpec,
    rels: HashMap<RelId, bool>,
    nodes: HashMap<NodeId, bool>,
}

impl Checks<'_> {
    /// Evaluates `expr` on the input row with `extension` written into it.
    fn eval(&mut self, expr: &Expr, extension: &[(usize, Value)]) -> ExecResult<Value> {
        let mut scratch = Batch::new(self.ctx.slot_count);
        scratch.push_extended(self.batch, self.row, extension);
        self.ctx.evaluator().eval_row(expr, &scratch, 0)
    }

    fn passes(&mut self, filters: &[ElementFilter], element: Value) -> ExecResult<bool> {
        for filter in filters {
            let verdict = self.eval(&filter.body, &[(filter.var, element.clone())])?;
            if verdict != Value::Bool(filter.expect) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn rel_ok(&mut self, rel: RelId) -> ExecResult<bool> {
        if self.spec.rel_filters.is_empty() {
            return Ok(true);
        }
        if let Some(&known) = self.rels.get(&rel) {
            return Ok(known);
        }
        let spec = self.spec;
        let ok = self.passes(&spec.rel_filters, Value::Relationship(rel))?;
        self.rels.insert(rel, ok);
        Ok(ok)
    }

    fn node_ok(&mut self, node: NodeId) -> ExecResult<bool> {
        if self.spec.node_filters.is_empty() {
            return Ok(true);
        }
        if let Some(&known) = self.nodes.get(&node) {
            return Ok(known);
        }
        let spec = self.spec;
        let ok = self.passes(&spec.node_filters, Value::Node(node))?;
        self.nodes.insert(node, ok);
        Ok(ok)
    }

    /// Whether a complete candidate satisfies the remaining predicate.
    fn path_ok(&mut self, path: &Found) -> ExecResult<bool> {
        let Some(predicate) = &self.spec.predicate else {
            return Ok(true);
        };
        let extension = extension(self.spec, path.nodes.clone(), path.rels.clone());
        Ok(self.eval(predicate, &extension)? == Value::Bool(true))
    }
}

impl Search<'_> {
    /// The steps from `node` that the element filters allow.
    fn neighbours(&self, node: NodeId, dir: Direction) -> ExecResult<Vec<(RelId, NodeId)>> {
        let mut steps = self.txn.expand(node, dir, &self.spec.types);
        if self.spec.rel_filters.is_empty() && self.spec.node_filters.is_empty() {
            return Ok(steps);
        }
        let mut checks = self.checks.borrow_mut();
        let mut kept = Vec::with_capacity(steps.len());
        for (rel, next) in steps.drain(..) {
            if checks.rel_ok(rel)? && checks.node_ok(next)? {
                kept.push((rel, next));
            }
        }
        Ok(kept)
    }

    fn within_max(&self, length: u64) -> bool {
        self.spec.max.is_none_or(|max| length <= max)
    }

    /// Unfiltered search: BFS recording, per node reached, the
    /// relationships that reach it from the previous level (all of them for
    /// `allShortestPaths`, the first otherwise).
    fn breadth_first(&self) -> ExecResult<Vec<Found>> {
        if self.start == self.target {
            return Ok(vec![Found {
                nodes: vec![self.start],
                rels: Vec::new(),
            }]);
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
                for (rel, neighbour) in self.neighbours(node, self.spec.dir)? {
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
            return Ok(Vec::new());
        }
        Ok(self.unwind_parents(&parents))
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
    fn by_increasing_length(&self) -> ExecResult<Vec<Found>> {
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

/// The slot values a found path writes.
fn extension(spec: &ShortestPathSpec, nodes: Vec<NodeId>, rels: Vec<RelId>) -> Extension {
    let mut out: Extension = smallvec::smallvec![(
        spec.rels,
        Value::List(rels.iter().copied().map(Value::Relationship).collect()),
    )];
    if let Some(slot) = spec.path {
        out.push((slot, Value::Path(Box::new(PathValue { nodes, rels }))));
    }
    out
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
            return Err(ExecError::ExecutionFailed(SAME_NODE.to_string()));
        }
        let txn = Arc::clone(&ctx.txn);
        let spec = &self.spec;
        let search = Search {
            txn: &txn,
            spec,
            start,
            target,
            checks: RefCell::new(Checks {
                ctx,
                batch,
                row,
                spec,
                rels: HashMap::new(),
                nodes: HashMap::new(),
            }),
        };
        let ends_pass = {
            let mut checks = search.checks.borrow_mut();
            checks.node_ok(start)? && checks.node_ok(target)?
        };
        let found = if !ends_pass {
            Vec::new()
        } else if spec.predicate.is_none() {
            search.breadth_first()?
        } else {
            search.by_increasing_length()?
        };
        let extensions: Vec<_> = found
            .into_iter()
            .map(|p| extension(spec, p.nodes, p.rels))
            .collect();
        Ok(Box::new(extensions.into_iter()))
    }
}
