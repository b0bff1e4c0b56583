//! One side of a level-by-level breadth-first search: the levels reached,
//! and per node the steps that reached it from the level before, from
//! which every shortest walk back to the root is unwound.
//!
//! Both the single-pair search (a side from each end, `bidirectional.rs`)
//! and the tree shared by the rows of one start (`source_tree.rs`) are
//! built from it.

use super::Found;
use nereid_values::{NodeId, RelId};
use smallvec::SmallVec;
use std::collections::hash_map::Entry;
use std::collections::HashMap;

/// The steps into one node from the level before: `(relationship, node one
/// level closer to the root)`.
type Parents = SmallVec<[(RelId, NodeId); 1]>;

pub(super) struct Side {
    root: NodeId,
    /// Keep every step from the level before (`allShortestPaths`), not
    /// only the first.
    all: bool,
    /// The level of every node reached (the root at 0).
    level: HashMap<NodeId, u64>,
    parents: HashMap<NodeId, Parents>,
    /// The nodes of the deepest level, each once.
    pub(super) frontier: Vec<NodeId>,
    /// The deepest level reached.
    pub(super) depth: u64,
}

impl Side {
    pub(super) fn new(root: NodeId, all: bool) -> Side {
        Side {
            root,
            all,
            level: HashMap::from([(root, 0)]),
            parents: HashMap::new(),
            frontier: vec![root],
            depth: 0,
        }
    }

    pub(super) fn root(&self) -> NodeId {
        self.root
    }

    /// How many nodes this side reached (for the memory budget).
    pub(super) fn reached(&self) -> usize {
        self.level.len()
    }

    /// Takes `steps` (`(from, relationship, to)` with `from` in the
    /// frontier: every step out of the frontier) as the next level: the
    /// nodes not reached before become the frontier. A whole level is
    /// taken at once, so a node's parents are complete when it is reached.
    pub(super) fn advance(&mut self, steps: impl IntoIterator<Item = (NodeId, RelId, NodeId)>) {
        self.depth += 1;
        let depth = self.depth;
        let mut next = Vec::new();
        for (from, rel, to) in steps {
            match self.level.entry(to) {
                Entry::Vacant(slot) => {
                    slot.insert(depth);
                    self.parents.insert(to, smallvec::smallvec![(rel, from)]);
                    next.push(to);
                }
                Entry::Occupied(seen) if *seen.get() == depth && self.all => {
                    if let Some(p) = self.parents.get_mut(&to) {
                        p.push((rel, from));
                    }
                }
                Entry::Occupied(_) => {}
            }
        }
        self.frontier = next;
    }

    pub(super) fn reaches(&self, node: NodeId) -> bool {
        self.level.contains_key(&node)
    }

    /// Whether `node` is on the deepest level reached.
    pub(super) fn on_frontier(&self, node: NodeId) -> bool {
        self.level.get(&node) == Some(&self.depth)
    }

    /// The shortest walks from `from` (a node this side reached) back to
    /// the root, each listing its nodes from `from` to the root: every one
    /// when `all`, else the first. Iterative, so a long walk cannot exhaust
    /// the stack.
    pub(super) fn walks_to_root(&self, from: NodeId) -> Vec<Found> {
        let mut found = Vec::new();
        // Frames from `from` towards the root, each with the index of the
        // next parent to try; `rels[i]` joins frame `i` to frame `i + 1`.
        let mut frames: Vec<(NodeId, usize)> = vec![(from, 0)];
        let mut rels: Vec<RelId> = Vec::new();
        while let Some((node, next)) = frames.last_mut() {
            let node = *node;
            if node == self.root {
                found.push(Found {
                    nodes: frames.iter().map(|&(n, _)| n).collect(),
                    rels: rels.clone(),
                });
                if !self.all {
                    break;
                }
                frames.pop();
                rels.pop();
                continue;
            }
            let options = self.parents.get(&node).map_or(&[][..], |p| p.as_slice());
            match options.get(*next) {
                Some(&(rel, parent)) => {
                    *next += 1;
                    rels.push(rel);
                    frames.push((parent, 0));
                }
                None => {
                    frames.pop();
                    rels.pop();
                }
            }
        }
        found
    }
}
