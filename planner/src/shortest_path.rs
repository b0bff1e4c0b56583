//! What a `shortestPath(...)` / `allShortestPaths(...)` pattern asks for,
//! from lowering to execution (no choice is left to `choose_operators`:
//! the executor picks its search per row, see
//! docs/adr/0015-shortest-path.md).

use crate::expr::{Expr, Slot};
use nereid_values::Direction;

/// One shortest-path search between the nodes in `from` and `to`, both bound
/// by the input (the planner scans an end that was not bound before).
///
/// Invariants: `min` is 0 or 1 (the planner rejects larger minimums, as
/// Neo4j does); `path` and `rels` are written by the search and by nothing
/// before it; every slot `predicate` reads is bound by the input or is
/// `rels` / `path`.
#[derive(Clone, Debug, PartialEq)]
pub struct ShortestPathSpec {
    pub from: Slot,
    pub to: Slot,
    /// The relationship list of the path found (always written, even when the
    /// pattern names no relationship variable).
    pub rels: Slot,
    /// The named path variable, if any.
    pub path: Option<Slot>,
    /// Seen from `from`.
    pub dir: Direction,
    /// Alternative relationship types; empty means any.
    pub types: Vec<String>,
    pub min: u64,
    /// `None`: unbounded.
    pub max: Option<u64>,
    /// `allShortestPaths`: every path of the minimum length, not just one.
    pub all: bool,
    /// The conjuncts of the MATCH's WHERE that read the path or its
    /// relationships: the answer is the shortest path among those that satisfy
    /// it, not a shortest path filtered afterwards.
    pub predicate: Option<Expr>,
    /// Conjuncts `all(x IN relationships(p) WHERE body)` (or over the
    /// relationship list) and `none(...)`, taken out of `predicate`: each
    /// relationship the search crosses must pass them all. Equivalent to the
    /// predicate on a whole path, but checked per step, so the search stays a
    /// BFS.
    pub rel_filters: Vec<ElementFilter>,
    /// The same for `all/none(n IN nodes(p) WHERE body)`: every node of the
    /// path, both ends included.
    pub node_filters: Vec<ElementFilter>,
}

/// `body` with the element written into `var`: an element passes when it
/// evaluates to `expect` (`true` for `all`, `false` for `none`; null never
/// passes, as the quantifier over the whole path would not be true).
/// Invariant: `body` reads neither the path nor its relationship list.
#[derive(Clone, Debug, PartialEq)]
pub struct ElementFilter {
    pub var: Slot,
    pub body: Expr,
    pub expect: bool,
}

impl ShortestPathSpec {
    /// The slots the search binds.
    pub fn bound_here(&self) -> Vec<Slot> {
        let mut out = vec![self.rels];
        out.extend(self.path);
        out
    }
}
