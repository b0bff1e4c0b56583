//! `VarExpand`: each input row extended with every path of `min..=max`
//! relationships from the node in `from`, found depth-first. A path never
//! uses a relationship twice (openCypher's relationship isomorphism); nodes
//! may repeat. The relationship list goes into `rels` (left null when no
//! operator above reads it: `VarExpandSpec::rels_unread`, so each path
//! costs no list), the last node into `to`.
//!
//! In a read-only statement a node's relationships are read from the
//! statement's adjacency memo (`eval/adjacency_memo.rs`) while it finds
//! nodes again: walks from many start nodes meet the same nodes (IC12 walks
//! `HAS_TYPE|IS_SUBCLASS_OF*0..` from each of 16,080 tags up through the
//! same few dozen tag classes, ~80,000 store reads for ~16,100 nodes).

use super::endpoints::endpoints;
use super::flat_map::{Expander, Extensions};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use crate::eval::adjacency_memo::HopTable;
use nereid_planner::VarExpandSpec;
use nereid_values::{Direction, NodeId, RelId, Value};
use std::sync::Arc;

pub(crate) struct VarExpand {
    spec: VarExpandSpec,
    /// The statement's remembered relationships for this hop, looked up at
    /// the first row; `Some(None)` where the statement has no memo.
    remembered: Option<Option<Arc<HopTable>>>,
}

impl VarExpand {
    pub(crate) fn new(spec: VarExpandSpec) -> VarExpand {
        VarExpand {
            spec,
            remembered: None,
        }
    }
}

/// One search: the fixed parameters of a row's traversal.
struct Search<'a> {
    ctx: &'a ExecContext,
    dir: Direction,
    types: &'a [String],
    min: u64,
    max: Option<u64>,
    properties: &'a [(String, Value)],
    target: Option<NodeId>,
    remembered: Option<&'a HopTable>,
    /// Whether each path's relationships are handed out (`rels` is read).
    keep_rels: bool,
}

impl Search<'_> {
    fn rel_matches(&self, rel: RelId) -> bool {
        self.properties.iter().all(|(key, wanted)| {
            self.ctx
                .txn
                .rel_property(rel, key)
                .is_some_and(|have| have.cypher_eq(wanted) == Some(true))
        })
    }

    /// Extends `path` (ending at `node`) depth-first, pushing every
    /// qualifying path to `out`.
    fn walk(&self, node: NodeId, path: &mut Vec<RelId>, out: &mut Vec<(Vec<RelId>, NodeId)>) {
        let length = path.len() as u64;
        if length >= self.min && self.target.is_none_or(|t| t == node) {
            let rels = if self.keep_rels {
                path.clone()
            } else {
                Vec::new()
            };
            out.push((rels, node));
        }
        if self.max.is_some_and(|max| length >= max) {
            return;
        }
        let read = || self.ctx.txn.expand(node, self.dir, self.types);
        match self.remembered.filter(|t| t.worthwhile()) {
            Some(table) => {
                for &(rel, next) in table.neighbours(node, read).iter() {
                    self.step(rel, next, path, out);
                }
            }
            None => {
                for (rel, next) in read() {
                    self.step(rel, next, path, out);
                }
            }
        }
    }

    /// Walks on over `rel` to `next` unless the path used `rel` already or
    /// `rel` lacks the wanted properties.
    fn step(
        &self,
        rel: RelId,
        next: NodeId,
        path: &mut Vec<RelId>,
        out: &mut Vec<(Vec<RelId>, NodeId)>,
    ) {
        if path.contains(&rel) || !self.rel_matches(rel) {
            return;
        }
        path.push(rel);
        nereid_stack::deeper(|| self.walk(next, path, out));
        path.pop();
    }
}

impl Expander for VarExpand {
    fn expand(
        &mut self,
        batch: &Batch,
        _position: usize,
        row: usize,
        ctx: &mut ExecContext,
    ) -> ExecResult<Extensions> {
        let spec = &self.spec;
        let remembered = self.remembered.get_or_insert_with(|| {
            ctx.memo
                .as_ref()
                .map(|memo| memo.adjacency.table(spec.dir, &spec.types))
        });
        let Some((start, target)) = endpoints(batch, row, spec.from, spec.to, spec.into)? else {
            return Ok(Box::new(std::iter::empty()));
        };
        let mut properties = Vec::with_capacity(spec.properties.len());
        for (key, expr) in &spec.properties {
            properties.push((key.clone(), ctx.evaluator().eval_row(expr, batch, row)?));
        }
        let search = Search {
            ctx,
            dir: spec.dir,
            types: &spec.types,
            min: spec.min,
            max: spec.max,
            properties: &properties,
            target,
            remembered: remembered.as_deref(),
            keep_rels: !spec.rels_unread,
        };
        let mut found = Vec::new();
        search.walk(start, &mut Vec::new(), &mut found);
        let (rels_slot, to_slot, keep_rels) = (spec.rels, spec.to, !spec.rels_unread);
        let backwards = spec.backwards;
        Ok(Box::new(found.into_iter().map(move |(mut rels, end)| {
            let rels = if keep_rels {
                // Walked from the end written last: the list in the
                // written order is the walk's, last relationship first.
                if backwards {
                    rels.reverse();
                }
                Value::List(rels.into_iter().map(Value::Relationship).collect())
            } else {
                Value::Null
            };
            smallvec::smallvec![(rels_slot, rels), (to_slot, Value::Node(end))]
        })))
    }
}
