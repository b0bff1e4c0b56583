//! `Expand`: each input row extended with every relationship of the node in
//! `from` (and the relationship's other end). With `into`, the other end is
//! already bound and only relationships reaching it are kept.
//!
//! A batch with many rows of few relationships each is read set-at-a-time:
//! the first rows of a batch are read row by row, and when they had few
//! relationships on average, the start nodes of all the remaining rows go
//! to the store in one call (`Txn::expand_column`, through the APL), which
//! visits each grid cell once for them all instead of every cell of a
//! node's row once per row; each row then takes its node's range of the
//! answer. Rows with many relationships each gain nothing from it (the
//! per-row cost is spread over their outputs) and would hold a whole
//! batch's relationships at once, so they stay row by row, as do small
//! batches (a nested plan's argument row) and `into` (a binary search per
//! row, or a lookup in the table of an end many rows share:
//! `expand_into_table.rs`).
//!
//! With a far-end list (`ExpandSpec::far_end_in`), a neighbour not in the
//! input row's list gets no row (`far_end_in.rs`); with a far-end node
//! (`ExpandSpec::far_end_adjacent`), nor does one without a relationship
//! to it (`far_end_adjacent.rs`); with far-end comparisons
//! (`ExpandSpec::far_end_where`), nor does one whose stored property
//! fails one (`far_end_where.rs`).

use super::endpoints::endpoints;
use super::expand_into_table::IntoTable;
use super::expand_row_ranges::RowRanges;
use super::far_end_adjacent::FarEndAdjacent;
use super::far_end_in::{Admitted, FarEndIn};
use super::far_end_where::{FarEndWhere, WhereTests};
use super::flat_map::{Expander, Extension, Extensions};
use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::ExecResult;
use crate::eval::adjacency_memo::HopTable;
use nereid_planner::ExpandSpec;
use nereid_storage::apl::Neighbour;
use nereid_storage::Txn;
use nereid_values::{NodeId, RelId, Value};
use std::sync::Arc;

/// Fewest remaining start nodes in a batch for which one set-at-a-time
/// read beats a store call per row (building the APL's vertex set has a
/// fixed cost).
const SET_AT_A_TIME_MIN: usize = 16;

/// Rows of each batch read row by row to measure the relationships per row.
const PROBE_ROWS: usize = 8;

/// Most relationships per probed row for which the rest of the batch is read
/// set-at-a-time. 32, not 8: rows of ~10 relationships (SNB IC5's forums'
/// posts) paid a store call per row for nothing; the rows that lost
/// set-at-a-time (IC6's persons' ~260 messages each) stay far above it
/// (docs/adr/0196-ic5-keeps-the-forward-walk-set-at-a-time-up-to-32.md).
const SET_AT_A_TIME_MAX_FAN_OUT: usize = 32;

pub(crate) struct Expand {
    spec: ExpandSpec,
    /// The relationships of the current batch's remaining start nodes,
    /// grouped by node in ascending id order; `None` while (or when) the
    /// batch is read row by row; with where each row's lie in it.
    batch_edges: Option<(Arc<Vec<Neighbour>>, RowRanges)>,
    /// Relationships found for the current batch's probed rows.
    probed: usize,
    /// With `into`: the table of an end many rows share.
    into_table: IntoTable,
    /// In a nested plan of a read-only statement: the statement's
    /// remembered relationships for this hop (`eval/adjacency_memo.rs`),
    /// looked up at the first batch; `None` until then and elsewhere.
    remembered: Option<Option<Arc<HopTable>>>,
    /// The pre-test of the other end against a list, when the plan has one.
    far_end: Option<FarEndIn>,
    /// The pre-test of the other end against a node, when the plan has one.
    adjacent: Option<FarEndAdjacent>,
    /// The pre-test of the other end's properties, when the plan has one.
    tested: Option<FarEndWhere>,
}

impl Expand {
    pub(crate) fn new(spec: ExpandSpec) -> Expand {
        Expand {
            far_end: spec.far_end_in.as_deref().cloned().map(FarEndIn::new),
            adjacent: spec
                .far_end_adjacent
                .as_deref()
                .cloned()
                .map(FarEndAdjacent::new),
            tested: spec.far_end_where.as_deref().cloned().map(FarEndWhere::new),
            spec,
            batch_edges: None,
            probed: 0,
            into_table: IntoTable::default(),
            remembered: None,
        }
    }

    /// At the end of the probe rows, reads the rest of the batch
    /// set-at-a-time when the probed rows had few relationships each.
    /// Rows whose start is null or not a node are left to `expand`, which
    /// skips or refuses them as row by row.
    fn read_rest(&mut self, batch: &Batch, position: usize, ctx: &ExecContext) -> ExecResult<()> {
        let rest = &batch.selection()[position..];
        if self.spec.into
            || rest.len() < SET_AT_A_TIME_MIN
            || self.probed > PROBE_ROWS * SET_AT_A_TIME_MAX_FAN_OUT
        {
            return Ok(());
        }
        let rows: Vec<Option<NodeId>> = rest
            .iter()
            .map(|&row| match batch.value(self.spec.from, row) {
                Value::Node(id) => Some(*id),
                _ => None,
            })
            .collect();
        let starts: Vec<NodeId> = rows.iter().flatten().copied().collect();
        let (dir, types) = (self.spec.dir, &self.spec.types);
        let edges = match self
            .remembered
            .as_ref()
            .and_then(Option::as_ref)
            .filter(|t| t.worthwhile())
        {
            Some(table) => table.neighbours_of_all(&starts, |missing| {
                ctx.txn.expand_column(missing, dir, types)
            }),
            None => ctx.txn.expand_column(&starts, dir, types),
        };
        ctx.memory
            .check(edges.len().saturating_mul(std::mem::size_of::<Neighbour>()))?;
        let ranges = RowRanges::new(position, &rows, &edges);
        self.batch_edges = Some((Arc::new(edges), ranges));
        Ok(())
    }
}

impl Expander for Expand {
    fn start_batch(&mut self, batch: &Batch, ctx: &mut ExecContext) -> ExecResult<()> {
        if let Some(far_end) = &mut self.far_end {
            far_end.start_batch(batch, ctx)?;
        }
        if self.remembered.is_none() {
            self.remembered = Some(match &ctx.memo {
                Some(memo) if ctx.nested && !self.spec.into => {
                    Some(memo.adjacency.table(self.spec.dir, &self.spec.types))
                }
                _ => None,
            });
        }
        if let Some(adjacent) = &mut self.adjacent {
            adjacent.start_batch(ctx);
        }
        self.batch_edges = None;
        self.probed = 0;
        self.into_table.start_batch(ctx);
        Ok(())
    }

    fn expand(
        &mut self,
        batch: &Batch,
        position: usize,
        row: usize,
        ctx: &mut ExecContext,
    ) -> ExecResult<Extensions> {
        if position == PROBE_ROWS {
            self.read_rest(batch, position, ctx)?;
        }
        let spec = &self.spec;
        let Some((from, bound_to)) = endpoints(batch, row, spec.from, spec.to, spec.into)? else {
            return Ok(Box::new(std::iter::empty()));
        };
        let admitted = match &mut self.far_end {
            Some(far_end) => far_end.admitted(position),
            None => Admitted::All,
        };
        let adjacent = match &mut self.adjacent {
            Some(adjacent) => adjacent.admitted(batch, row, ctx)?,
            None => Admitted::All,
        };
        if matches!(admitted, Admitted::Nothing) || matches!(adjacent, Admitted::Nothing) {
            return Ok(Box::new(std::iter::empty()));
        }
        let tested = match &mut self.tested {
            Some(tested) => tested
                .tests(batch, row, ctx)
                .map(|tests| (tests, Arc::clone(&ctx.txn))),
            None => None,
        };
        let spec = &self.spec;
        let (rel_slot, to_slot) = (spec.rel, spec.to);
        let admits =
            move |&(_, other): &(_, NodeId)| admitted.admits(other) && adjacent.admits(other);
        let extension = move |(rel, other)| {
            smallvec::smallvec![
                (rel_slot, Value::Relationship(rel)),
                (to_slot, Value::Node(other)),
            ]
        };
        if let (Some((edges, ranges)), None) = (&self.batch_edges, bound_to) {
            let range = ranges.of(position).unwrap_or_else(|| {
                let start = edges.partition_point(|&(node, _, _)| node.0 < from.0);
                let len = edges[start..].partition_point(|&(node, _, _)| node == from);
                start..start + len
            });
            debug_assert!(edges[range.clone()]
                .iter()
                .all(|&(node, _, _)| node == from));
            if let Some(adjacent) = &mut self.adjacent {
                adjacent.reached(range.len());
            }
            let edges = Arc::clone(edges);
            let pairs = range
                .map(move |i| {
                    let (_, rel, other) = edges[i];
                    (rel, other)
                })
                .filter(admits);
            return Ok(rows(pairs, tested, extension));
        }
        let remembered = self
            .remembered
            .as_ref()
            .and_then(Option::as_ref)
            .filter(|t| t.worthwhile());
        let neighbours = match (bound_to, remembered) {
            (Some(to), _) => self.into_table.expand_into(from, to, spec, ctx)?,
            (None, Some(table)) => {
                let list = table.neighbours(from, || ctx.txn.expand(from, spec.dir, &spec.types));
                self.probed += list.len();
                if let Some(adjacent) = &mut self.adjacent {
                    adjacent.reached(list.len());
                }
                let pairs = (0..list.len()).map(move |i| list[i]).filter(admits);
                return Ok(rows(pairs, tested, extension));
            }
            (None, None) => ctx.txn.expand(from, spec.dir, &spec.types),
        };
        self.probed += neighbours.len();
        if let Some(adjacent) = &mut self.adjacent {
            adjacent.reached(neighbours.len());
        }
        Ok(rows(
            neighbours.into_iter().filter(admits),
            tested,
            extension,
        ))
    }
}

/// The output rows of `pairs`, after the far-end comparisons when the
/// plan has them (the neighbours' values read as one column per key, so
/// their probes overlap, where the rows' projection would read them one
/// batch at a time).
fn rows<I, E>(pairs: I, tested: Option<(WhereTests, Arc<Txn>)>, extension: E) -> Extensions
where
    I: Iterator<Item = (RelId, NodeId)> + Send + 'static,
    E: Fn((RelId, NodeId)) -> Extension + Send + 'static,
{
    match tested {
        None => Box::new(pairs.map(extension)),
        Some((tests, txn)) => Box::new(
            tests
                .retain(&txn, pairs.collect())
                .into_iter()
                .map(extension),
        ),
    }
}
