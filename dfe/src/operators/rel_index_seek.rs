//! `DirectedRelationshipIndexSeek` / `UndirectedRelationshipIndexSeek`
//! (and the `...ByRange`, `...IndexScan`, `...ContainsScan`,
//! `...EndsWithScan` forms): each input row extended with the
//! relationships a relationship property index finds for the query's
//! values evaluated for that row (`Txn::seek_rels`), with their ends bound
//! as the relationship-type scan binds them: start into `from` and end
//! into `to` (the reverse for `Incoming`); undirected, one row each way, a
//! self-loop once.
//!
//! When the store has no exact answer, the relationships of the index's
//! type are read through the access-pattern layer and tested as the
//! filter would (module `index_query`), so the rows never depend on the
//! index.

use super::flat_map::{Expander, Extension, Extensions};
use super::index_query::{answer, evaluate, seeks, through_index};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use nereid_planner::{IndexQuery, Slot};
use nereid_storage::apl::{EdgePattern, Endpoint, ModeChoice};
use nereid_values::{Direction, NodeId, RelId, Value};

pub(crate) struct RelIndexSeek {
    from: Slot,
    rel: Slot,
    to: Slot,
    dir: Direction,
    query: IndexQuery,
    columns: Vec<Vec<Value>>,
}

impl RelIndexSeek {
    pub(crate) fn new(from: Slot, rel: Slot, to: Slot, dir: Direction, query: IndexQuery) -> Self {
        RelIndexSeek {
            from,
            rel,
            to,
            dir,
            query,
            columns: Vec::new(),
        }
    }
}

impl Expander for RelIndexSeek {
    fn start_batch(&mut self, batch: &Batch, ctx: &mut ExecContext) -> ExecResult<()> {
        self.columns = evaluate(&self.query, batch, ctx)?;
        Ok(())
    }

    fn expand(
        &mut self,
        _batch: &Batch,
        position: usize,
        _row: usize,
        ctx: &mut ExecContext,
    ) -> ExecResult<Extensions> {
        let seeks = seeks(&self.query, &self.columns, position)?;
        let index = &self.query.index;
        let txn = &ctx.txn;
        let found = through_index(&seeks, |seek| {
            let rels = txn.seek_rels(&index.name, seek)?;
            Some(
                rels.into_iter()
                    .filter_map(|r| txn.rel_endpoints(r).map(|(src, dst, _)| (r, src, dst)))
                    .collect(),
            )
        });
        let rels: Vec<(RelId, NodeId, NodeId)> = found.unwrap_or_else(|| {
            // The relationships of the type, tested as the filter would.
            let types = [index.label.clone()];
            let pattern = EdgePattern {
                src: Endpoint::Any,
                types: &types,
                dst: Endpoint::Any,
            };
            let mut edges = Vec::new();
            txn.apl()
                .edges(&pattern, None, ModeChoice::Auto, |m| edges.push(m));
            let candidates = edges.into_iter().map(|m| {
                let values = index.keys.iter().map(|k| txn.rel_property(m.rel, k));
                ((m.rel, m.src, m.dst), values.collect())
            });
            answer(&self.query, &seeks, candidates)
        });
        let (from, rel, to, dir) = (self.from, self.rel, self.to, self.dir);
        let row_of = move |r, a, b| -> Extension {
            smallvec::smallvec![
                (from, Value::Node(a)),
                (rel, Value::Relationship(r)),
                (to, Value::Node(b)),
            ]
        };
        Ok(Box::new(rels.into_iter().flat_map(move |(r, src, dst)| {
            let (first, second) = match dir {
                Direction::Outgoing => ((src, dst), None),
                Direction::Incoming => ((dst, src), None),
                Direction::Both => ((src, dst), (src != dst).then_some((dst, src))),
            };
            std::iter::once(first)
                .chain(second)
                .map(move |(a, b)| row_of(r, a, b))
        })))
    }
}
