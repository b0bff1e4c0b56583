//! `Delete`: deletes the nodes, relationships and paths the expressions
//! yield. Nulls are ignored; anything else is a type error.
//!
//! Deletions are collected over all rows and applied at the end,
//! relationships before nodes, so that `MATCH (a)-[r]->() DELETE a, r`
//! succeeds whatever the item order, and an entity reached from several rows
//! is deleted once.

use super::writes::RowWriter;
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::{type_mismatch, ExecResult};
use nereid_planner::Expr;
use nereid_values::{NodeId, RelId, Value};
use std::collections::HashSet;

pub(crate) struct Delete {
    items: Vec<Expr>,
    detach: bool,
    pending: Pending,
}

/// Deletions collected so far, in first-seen order (the sets dedup).
#[derive(Default)]
struct Pending {
    nodes: Vec<NodeId>,
    rels: Vec<RelId>,
    seen_nodes: HashSet<NodeId>,
    seen_rels: HashSet<RelId>,
}

impl Delete {
    pub(crate) fn new(items: Vec<Expr>, detach: bool) -> Delete {
        Delete {
            items,
            detach,
            pending: Pending::default(),
        }
    }
}

impl Pending {
    fn add_node(&mut self, id: NodeId) {
        if self.seen_nodes.insert(id) {
            self.nodes.push(id);
        }
    }

    fn add_rel(&mut self, id: RelId) {
        if self.seen_rels.insert(id) {
            self.rels.push(id);
        }
    }
}

impl RowWriter for Delete {
    fn write_row(
        &mut self,
        batch: &mut Batch,
        row: usize,
        ctx: &mut ExecContext,
    ) -> ExecResult<()> {
        for expr in &self.items {
            match &ctx.evaluator().eval_row(expr, batch, row)? {
                Value::Null => {}
                &Value::Node(id) => self.pending.add_node(id),
                &Value::Relationship(id) => self.pending.add_rel(id),
                Value::Path(path) => {
                    for &rel in &path.rels {
                        self.pending.add_rel(rel);
                    }
                    for &node in &path.nodes {
                        self.pending.add_node(node);
                    }
                }
                other => return Err(type_mismatch("Node, Relationship or Path", other)),
            }
        }
        Ok(())
    }

    fn finish(&mut self, ctx: &mut ExecContext) -> ExecResult<()> {
        for &rel in &self.pending.rels {
            // Already gone (e.g. removed by an earlier DETACH DELETE): nothing to do.
            if ctx.txn.rel_exists(rel) {
                ctx.txn.delete_rel(rel)?;
            }
        }
        for &node in &self.pending.nodes {
            if ctx.txn.node_exists(node) {
                ctx.txn.delete_node(node, self.detach)?;
            }
        }
        Ok(())
    }
}
