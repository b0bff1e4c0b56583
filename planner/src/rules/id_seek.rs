//! `id_seek`: `WHERE id(n) = e` or `WHERE id(n) IN list` (likewise with
//! `elementId(n)`) on the node a scan binds turns the scan into a seek by
//! id, so looking a node up by the id a client got earlier costs one probe
//! instead of a scan of every node (the way applications written against
//! Neo4j fetch entities).
//!
//! Preconditions: only filters lie between the predicate and the scan (the
//! pushdown rule has put it there), and `e` does not read the scanned slot,
//! so it can be evaluated once per input row. The seek keeps the scan's
//! labels as a filter; the predicate itself is fully answered by the seek
//! (`id(n) = null` or a non-integer matches nothing, as in the filter).

use super::{replace_scan_under_filters, transform_up, RewriteRule};
use crate::expr::Slot;
use crate::id_predicate::{seekable, Seek};
use crate::plan::Op;
use crate::Catalog;

pub struct IdSeek;

impl RewriteRule for IdSeek {
    fn name(&self) -> &'static str {
        "id_seek"
    }

    fn rewrite(&self, plan: Op, _catalog: &dyn Catalog) -> Op {
        transform_up(plan, &|op| match op {
            Op::Filter { input, predicate } => match seekable(&predicate) {
                Some((slot, seek)) => match absorb(*input, slot, seek) {
                    Ok(plan) => plan,
                    Err(input) => Op::Filter {
                        input: Box::new(input),
                        predicate,
                    },
                },
                None => Op::Filter { input, predicate },
            },
            other => other,
        })
    }
}

/// Replaces the scan binding `slot` by a seek if only filters lie between;
/// gives the plan back unchanged otherwise.
fn absorb(plan: Op, slot: Slot, seek: Seek) -> Result<Op, Op> {
    replace_scan_under_filters(plan, slot, |input, labels| Op::NodeByIdSeek {
        input,
        out: slot,
        ids: seek.ids,
        element: seek.element,
        labels,
    })
}
