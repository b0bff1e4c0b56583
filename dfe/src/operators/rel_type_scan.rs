//! `RelationshipTypeScan`: each input row extended with every visible
//! relationship of the scan's types, read by type through the store's
//! access-pattern layer instead of scanning nodes and expanding each.
//!
//! With a pushed predicate the store tests the property's stored value
//! (`Apl::edges_with_property`) with the executor's own comparison
//! (module `pushed_test`), so only matching relationships become rows and
//! the answer is exactly the filter's: true keeps, false and null drop.
//!
//! The relationships are read once, on the first input row, and shared by
//! later rows, as `NodeScan` does (`flat_map::read_once`).

use super::flat_map::{read_once, Expander, Extension, Extensions};
use super::pushed_test::pushed_test;
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_planner::{PropertyPredicate, Slot};
use nereid_storage::apl::{EdgeMatch, EdgePattern, Endpoint, ModeChoice};
use nereid_values::{Direction, Value};
use std::sync::Arc;

pub(crate) struct RelTypeScan {
    pub(crate) from: Slot,
    pub(crate) rel: Slot,
    pub(crate) to: Slot,
    pub(crate) dir: Direction,
    pub(crate) types: Vec<String>,
    pub(crate) predicate: Option<Box<PropertyPredicate>>,
    pub(crate) edges: Option<Arc<Vec<EdgeMatch>>>,
}

/// The relationships of `types`, those passing `predicate` when pushed
/// (its constant evaluated for `row` of `batch`).
fn read(
    types: &[String],
    predicate: Option<&PropertyPredicate>,
    batch: &Batch,
    row: usize,
    ctx: &mut ExecContext,
) -> ExecResult<Vec<EdgeMatch>> {
    let mut edges = Vec::new();
    let Some(predicate) = predicate else {
        let pattern = EdgePattern {
            src: Endpoint::Any,
            types,
            dst: Endpoint::Any,
        };
        ctx.txn
            .apl()
            .edges(&pattern, None, ModeChoice::Auto, |m| edges.push(m));
        return Ok(edges);
    };
    let (fast, test) = pushed_test(predicate, batch, row, ctx)?;
    ctx.txn
        .apl()
        .edges_with_property(types, &predicate.key, fast, test, |m| edges.push(m));
    Ok(edges)
}

impl Expander for RelTypeScan {
    fn expand(
        &mut self,
        batch: &Batch,
        _position: usize,
        row: usize,
        ctx: &mut ExecContext,
    ) -> ExecResult<Extensions> {
        let (types, predicate) = (&self.types, self.predicate.as_deref());
        let edges = read_once(&mut self.edges, || read(types, predicate, batch, row, ctx))?;
        let (from, rel, to, dir) = (self.from, self.rel, self.to, self.dir);
        let row_of = move |rel_id, a, b| -> Extension {
            smallvec::smallvec![
                (from, Value::Node(a)),
                (rel, Value::Relationship(rel_id)),
                (to, Value::Node(b)),
            ]
        };
        Ok(Box::new((0..edges.len()).flat_map(move |i| {
            let m = edges[i];
            let (first, second) = match dir {
                Direction::Outgoing => (Some((m.src, m.dst)), None),
                Direction::Incoming => (Some((m.dst, m.src)), None),
                // Both ways, a self-loop once (as Expand reports it).
                Direction::Both => (
                    Some((m.src, m.dst)),
                    (m.src != m.dst).then_some((m.dst, m.src)),
                ),
            };
            first
                .into_iter()
                .chain(second)
                .map(move |(a, b)| row_of(m.rel, a, b))
        })))
    }
}
