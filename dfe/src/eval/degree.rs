//! `Expr::Degree`: the count of a one-hop pattern's relationships
//! (`COUNT { (n)-[:T]->() }`, `size([(n)-[:T]-() | 1])`; planner
//! `lower/degree.rs`), read from the store's adjacency instead of running
//! the nested expand and counting its rows.
//!
//! Exact: the store counts with the same visibility test as its expand, and
//! the start value is treated as the expand treats it (a null start matches
//! nothing, so 0; a non-node is the expand's type error).

use super::Evaluator;
use crate::batch::Batch;
use crate::error::{type_mismatch, ExecResult};
use nereid_planner::Expr;
use nereid_values::{Direction, Value};

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
        self.eval(node, batch, rows)?
            .into_iter()
            .map(|start| match start {
                Value::Null => Ok(Value::Int(0)),
                Value::Node(id) => Ok(Value::Int(
                    i64::try_from(graph.degree(id, dir, types)).unwrap_or(i64::MAX),
                )),
                other => Err(type_mismatch("Node", &other)),
            })
            .collect()
    }
}
