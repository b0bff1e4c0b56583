//! `Expr::Degree`: the count of a one-hop pattern's relationships
//! (`COUNT { (n)-[:T]->() }`, `size([(n)-[:T]-() | 1])`; planner
//! `lower/degree.rs`), read from the store's adjacency instead of running
//! the nested expand and counting its rows.
//!
//! In a read-only statement's nested plans each node's degree is read once
//! (`node_facts_memo.rs`): nothing can change it before the statement ends.
//!
//! Exact: the store counts with the same visibility test as its expand, and
//! the start value is treated as the expand treats it (a null start matches
//! nothing, so 0; a non-node is the expand's type error).

use super::Evaluator;
use crate::batch::Batch;
use crate::error::{type_mismatch, ExecResult};
use nereid_planner::Expr;
use nereid_values::{Direction, NodeId, Value};

impl Evaluator<'_> {
    pub(super) fn eval_degree(
        &mut self,
        node: &Expr,
        dir: Direction,
        types: &[String],
        batch: &Batch,
        rows: &[usize],
    ) -> ExecResult<Vec<Value>> {
        let graph = self.graph;
        let starts = self.eval(node, batch, rows)?;
        let count = |n: u64| Value::Int(i64::try_from(n).unwrap_or(i64::MAX));
        let memo = self.nested_memo().filter(|m| m.degrees.worthwhile());
        let mut remembered = match memo {
            Some(memo) => {
                let nodes: Vec<NodeId> = starts
                    .iter()
                    .filter_map(|s| match s {
                        Value::Node(id) => Some(*id),
                        _ => None,
                    })
                    .collect();
                let kind = format!("{dir:?}{types:?}");
                memo.degrees
                    .column(&nodes, &kind, |missing| {
                        missing
                            .iter()
                            .map(|&n| graph.degree(n, dir, types))
                            .collect()
                    })
                    .into_iter()
            }
            None => Vec::new().into_iter(),
        };
        starts
            .into_iter()
            .map(|start| match start {
                Value::Null => Ok(Value::Int(0)),
                Value::Node(id) => Ok(count(
                    remembered
                        .next()
                        .unwrap_or_else(|| graph.degree(id, dir, types)),
                )),
                other => Err(type_mismatch("Node", &other)),
            })
            .collect()
    }
}
