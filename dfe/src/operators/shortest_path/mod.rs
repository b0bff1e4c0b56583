//! `ShortestPath`: each input row extended with the shortest path (or, for
//! `allShortestPaths`, every shortest path) between two bound nodes.
//!
//! Three searches (docs/adr/0015-shortest-path.md,
//! docs/adr/0124-shortest-paths-bidirectional-and-shared-start.md):
//! - without a path predicate, a breadth-first search from both ends
//!   (`bidirectional.rs`), level by level on the smaller frontier, reading a
//!   whole level's relationships set-at-a-time. A shortest walk never
//!   repeats a node, so it never repeats a relationship either: BFS answers
//!   are relationship-unique without checking.
//! - when consecutive rows search from the same start without predicate or
//!   element filters, one breadth-first tree from that start
//!   (`source_tree.rs`) answers them all.
//! - with a predicate over the path, paths by increasing length until one
//!   satisfies it (`filtered.rs`).
//!
//! The graph is read through the statement's `Txn`, like every expand, so
//! MVCC visibility and the transaction's own writes hold.

mod bidirectional;
mod filtered;
mod frontier;
mod source_tree;

use super::endpoints::endpoints;
use super::flat_map::{Expander, Extension, Extensions};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::{ExecError, ExecResult};
use crate::memory::MemoryBudget;
use crate::stop::StopSignals;
use nereid_planner::{ElementFilter, Expr, ShortestPathSpec};
use nereid_storage::Txn;
use nereid_values::{Direction, NodeId, PathValue, RelId, Value};
use source_tree::SourceTree;
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

/// Neo4j's refusal (its default `forbid_shortestpath_common_nodes`) of a
/// search that starts where it must end with a minimum length of 1.
const SAME_NODE: &str = "The shortest path algorithm does not work when the start and end nodes are the same. This can happen if you perform a shortestPath search after a cartesian product that might have the same start and end nodes for some of the rows passed to shortestPath. Use a minimum length of 0 (`[*0..]`) to accept the empty path for such rows.";

/// How many consecutive rows must search from one start before they share
/// its tree: the first row of a start runs the single-pair search, which
/// stops as soon as the ends meet, so a lone row never reads a whole tree.
const TREE_AFTER: usize = 2;

/// Bytes a reached node costs a search (its level and parents in two hash
/// maps), charged against the query's memory budget.
const BYTES_PER_NODE: usize = 64;

pub(crate) struct ShortestPath {
    spec: ShortestPathSpec,
    /// The start of the latest rows and how many consecutive rows had it.
    last_start: Option<(NodeId, usize)>,
    /// The tree of `last_start`, once it repeated.
    tree: Option<SourceTree>,
}

impl ShortestPath {
    pub(crate) fn new(spec: ShortestPathSpec) -> ShortestPath {
        ShortestPath {
            spec,
            last_start: None,
            tree: None,
        }
    }

    /// Whether rows may share a start's tree: no check depends on the row.
    fn shares_trees(&self) -> bool {
        self.spec.predicate.is_none()
            && self.spec.rel_filters.is_empty()
            && self.spec.node_filters.is_empty()
    }

    /// Counts `start` as the next row's; true once it repeated enough for a
    /// shared tree.
    fn repeats(&mut self, start: NodeId) -> bool {
        let count = match self.last_start {
            Some((last, count)) if last == start => count + 1,
            _ => 1,
        };
        self.last_start = Some((start, count));
        count >= TREE_AFTER
    }
}

/// A path found: `nodes.len() == rels.len() + 1`, in pattern order.
#[derive(Clone)]
struct Found {
    nodes: Vec<NodeId>,
    rels: Vec<RelId>,
}

impl Found {
    /// The same walk from its other end.
    fn reversed(mut self) -> Found {
        self.nodes.reverse();
        self.rels.reverse();
        self
    }

    /// This walk followed by `tail`, which starts where this one ends.
    fn joined(mut self, tail: &Found) -> Found {
        self.nodes.extend_from_slice(&tail.nodes[1..]);
        self.rels.extend_from_slice(&tail.rels);
        self
    }
}

/// The fixed parameters of one row's search.
struct Search<'a> {
    txn: &'a Txn,
    spec: &'a ShortestPathSpec,
    start: NodeId,
    target: NodeId,
    stop: StopSignals,
    memory: Arc<MemoryBudget>,
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

    /// Every step out of `nodes` in `dir` that the element filters allow,
    /// as `(from, relationship, to)`: one set-at-a-time read of the store
    /// for a whole level. Checks the query's stop signals first.
    fn steps(&self, nodes: &[NodeId], dir: Direction) -> ExecResult<Vec<(NodeId, RelId, NodeId)>> {
        self.stop.check()?;
        let mut steps = self.txn.expand_column(nodes, dir, &self.spec.types);
        if self.spec.rel_filters.is_empty() && self.spec.node_filters.is_empty() {
            return Ok(steps);
        }
        let mut checks = self.checks.borrow_mut();
        let mut kept = Vec::with_capacity(steps.len());
        for (from, rel, to) in steps.drain(..) {
            if checks.rel_ok(rel)? && checks.node_ok(to)? {
                kept.push((from, rel, to));
            }
        }
        Ok(kept)
    }

    /// Fails when `reached` nodes would take the query past its memory
    /// budget.
    fn charge(&self, reached: usize) -> ExecResult<()> {
        self.memory.check(reached.saturating_mul(BYTES_PER_NODE))
    }

    fn within_max(&self, length: u64) -> bool {
        self.spec.max.is_none_or(|max| length <= max)
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
    fn start_batch(&mut self, _batch: &Batch, ctx: &mut ExecContext) -> ExecResult<()> {
        // Only a statement that writes nothing keeps a tree across batches:
        // otherwise the graph may change between them.
        if ctx.memo.is_none() {
            self.last_start = None;
            self.tree = None;
        }
        Ok(())
    }

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
        let shared = self.shares_trees() && self.repeats(start);
        let txn = Arc::clone(&ctx.txn);
        let stop = ctx.stop.clone();
        let memory = Arc::clone(&ctx.memory);
        let spec = &self.spec;
        let search = Search {
            txn: &txn,
            spec,
            start,
            target,
            stop,
            memory,
            checks: RefCell::new(Checks {
                ctx,
                batch,
                row,
                spec,
                rels: HashMap::new(),
                nodes: HashMap::new(),
            }),
        };
        let found = if shared {
            if self.tree.as_ref().is_none_or(|t| t.start() != start) {
                self.tree = Some(SourceTree::build(&search)?);
            }
            match self.tree.as_mut() {
                Some(tree) => tree.paths_to(target, &search)?,
                None => Vec::new(),
            }
        } else {
            let ends_pass = {
                let mut checks = search.checks.borrow_mut();
                checks.node_ok(start)? && checks.node_ok(target)?
            };
            if !ends_pass {
                Vec::new()
            } else if spec.predicate.is_none() {
                search.bidirectional()?
            } else {
                search.by_increasing_length()?
            }
        };
        let extensions: Vec<_> = found
            .into_iter()
            .map(|p| extension(spec, p.nodes, p.rels))
            .collect();
        Ok(Box::new(extensions.into_iter()))
    }
}
