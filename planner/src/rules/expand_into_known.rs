//! `expand_into_known`: an expand whose new end is then pinned to a few
//! nodes an index names (`(post)-[:HAS_TAG]->(t:Tag {id: knownTagId})`,
//! with `knownTagId` bound long before) finds those nodes once, where the
//! value is bound, and keeps only the relationships reaching them
//! (`ExpandInto`, a binary search in the source's adjacency per row),
//! instead of listing every relationship of every source row and reading
//! each neighbour's property and labels to drop nearly all of them (LDBC
//! SNB IC6: friends' posts tested against one tag).
//!
//! Shape recognised (after `join_order`, before the seek rules, which then
//! make the scan placed here an index or id seek):
//!
//! ```text
//! Filter* (some read only `t` and slots bound below)      Filter* (the rest)
//!   Expand (a)-[r]->(t)                               =>    ExpandInto (a)-[r]->(t)
//!     chain (Filter/Project/Expand/VarExpand/Unwind)          chain
//!       P (binds what the filters' values read)                 Filter (the conditions on t)
//!                                                                 NodeScan t:labels
//!                                                                   P
//! ```
//!
//! Label tests of `a` right under the expand move above it (a lookup of
//! the known node, `dfe`'s `expand_into_table.rs`, drops most rows for
//! less than a label test; both only drop rows).
//!
//! The rows are the same multiset: each row at `P` is paired with each
//! node the conditions keep (none drops it, as the filters above the
//! expand would have dropped its descendants), and the expand keeps a
//! relationship exactly when it reaches one of them. Only labels and
//! index or id conditions whose value is a literal, a parameter or a slot
//! move down (they cannot fail, so evaluating them on rows the expand
//! would never have produced changes nothing); the rest stay above. The
//! rewrite happens only when the value is bound by a row (a literal or a
//! parameter leaves the node to the rules choosing where a pattern
//! starts, except over the rows of an earlier part of the query: ADR
//! 0198), an index or id seek serves the conditions and the estimate
//! names at most [`MAX_KNOWN`] nodes, and not when the chain
//! reaches an `Argument` (the values are then bound outside the plan: a
//! seek per argument row would also end an `Optional`'s batching).

use super::{peel_filters, walk_children, wrap_filters, RewriteRule};
use crate::cardinality::node_frontier;
use crate::expr::{slots_of, Expr, Slot};
use crate::id_predicate::seekable;
use crate::index_predicate::condition;
use crate::index_query::{IndexDescriptor, IndexEntity, IndexHint};
use crate::plan::{ExpandSpec, Op};
use crate::Catalog;

/// Most nodes the conditions may be estimated to name: each is an
/// `ExpandInto` probe per row, which beats listing the row's relationships
/// only while they are few.
const MAX_KNOWN: f64 = 4.0;

pub struct ExpandIntoKnown;

impl RewriteRule for ExpandIntoKnown {
    fn name(&self) -> &'static str {
        "expand_into_known"
    }

    fn rewrite(&self, plan: Op, catalog: &dyn Catalog) -> Op {
        let indexes = super::indexes_of(catalog, IndexEntity::Node);
        let hints = catalog.hints();
        walk(
            plan,
            &Known {
                catalog,
                indexes: &indexes,
                hints: &hints,
            },
        )
    }
}

struct Known<'a> {
    catalog: &'a dyn Catalog,
    indexes: &'a [IndexDescriptor],
    hints: &'a [IndexHint],
}

/// Top-down, so that an expand is seen with every filter above it at once.
fn walk(plan: Op, known: &Known) -> Op {
    let recurse = |p: Op| walk(p, known);
    if !matches!(plan, Op::Filter { .. }) {
        return walk_children(plan, &recurse);
    }
    let (filters, core) = peel_filters(plan);
    let core = match core {
        Op::Expand { input, spec } if !spec.into => {
            match into_known(*input, spec, filters, known) {
                Ok(rewritten) => return walk_children(rewritten, &recurse),
                Err(unchanged) => {
                    let (input, spec, filters) = *unchanged;
                    return wrap_filters(
                        walk_children(Op::Expand { input, spec }, &recurse),
                        filters,
                    );
                }
            }
        }
        other => other,
    };
    wrap_filters(walk_children(core, &recurse), filters)
}

/// Boxed: the parts are large and the rewrite usually applies.
type Unchanged = Box<(Box<Op>, ExpandSpec, Vec<Expr>)>;

/// The rewrite of `Filter*(filters) Expand(spec) input`, or its parts back.
fn into_known(
    input: Op,
    spec: ExpandSpec,
    filters: Vec<Expr>,
    known: &Known,
) -> Result<Op, Unchanged> {
    let t = spec.to;
    let moves: Vec<bool> = filters.iter().map(|f| movable(f, t, spec.rel)).collect();
    let moved = || {
        filters
            .iter()
            .zip(&moves)
            .filter(|(_, m)| **m)
            .map(|(f, _)| f)
    };
    let labels: Vec<String> = moved()
        .filter_map(|f| match f {
            Expr::HasLabels { expr, labels } if **expr == Expr::Slot(t) => Some(labels.clone()),
            _ => None,
        })
        .flatten()
        .collect();
    let conditions: Vec<Expr> = moved()
        .filter(|f| !matches!(f, Expr::HasLabels { .. }))
        .cloned()
        .collect();
    let mut reads = Vec::new();
    for c in &conditions {
        slots_of(c, &mut reads);
    }
    reads.retain(|s| *s != t);
    // A value that no row binds (literals, parameters) leaves the node
    // to the rules that choose where a pattern starts, unless the rows
    // come from an earlier part of the query (see `after_query_part`).
    let placed = if reads.is_empty() {
        after_query_part(&input)
    } else {
        reaches_binding(&input, &reads)
    };
    if !placed
        || !served(&conditions, t, &labels, known)
        || node_frontier(
            known.catalog,
            t,
            &labels,
            &conditions.iter().collect::<Vec<_>>(),
        ) > MAX_KNOWN
    {
        return Err(Box::new((Box::new(input), spec, filters)));
    }
    let kept: Vec<Expr> = filters
        .into_iter()
        .zip(moves)
        .filter(|(_, m)| !m)
        .map(|(f, _)| f)
        .collect();
    let seek = move |below: Op| {
        wrap_filters(
            Op::NodeScan {
                input: Box::new(below),
                out: t,
                labels,
            },
            conditions,
        )
    };
    let input = sink(input, &reads, seek);
    // The label tests of the start right under the expand go above it:
    // probing the known node drops most rows for less than a label test.
    let (under, rest) = peel_filters(input);
    let (lifted, under): (Vec<Expr>, Vec<Expr>) = under.into_iter().partition(
        |f| matches!(f, Expr::HasLabels { expr, .. } if **expr == Expr::Slot(spec.from)),
    );
    let expand = Op::Expand {
        input: Box::new(wrap_filters(rest, under)),
        spec: ExpandSpec { into: true, ..spec },
    };
    Ok(wrap_filters(wrap_filters(expand, lifted), kept))
}

/// A filter that may move below the expand to the scan of `t`: a label
/// test of `t`, or an equality on `t` a seek serves (`t.key = v`,
/// `id(t) = v`) whose value is a literal, a parameter or a slot other
/// than `t` and `rel` (an equality never fails, whatever the values).
fn movable(filter: &Expr, t: Slot, rel: Slot) -> bool {
    if let Expr::HasLabels { expr, .. } = filter {
        return **expr == Expr::Slot(t);
    }
    let Some((lhs, rhs)) = filter.as_equality() else {
        return false;
    };
    let plain = |e: &Expr| match e {
        Expr::Literal(_) | Expr::Param(_) => true,
        Expr::Slot(s) => *s != t && *s != rel,
        _ => false,
    };
    let value_is_plain = plain(lhs) || plain(rhs);
    let on_t = condition(filter, t, &[t, rel]).is_some()
        || seekable(filter).is_some_and(|(slot, _)| slot == t);
    value_is_plain && on_t
}

/// Whether a seek serves `conditions` on `t` ([`super::seek_serves`]).
fn served(conditions: &[Expr], t: Slot, labels: &[String], known: &Known) -> bool {
    let conditions: Vec<&Expr> = conditions.iter().collect();
    super::seek_serves(known.indexes, known.hints, &conditions, t, labels)
}

/// Operators the seek may sink below: per input row they emit rows that
/// carry the input row's slots unchanged. Filters only when the operator
/// under their stack passes too: the filters right above a scan stay
/// with it, for the seek rules that fold them into it.
fn passes(op: &Op, reads: &[Slot]) -> bool {
    match op {
        Op::Filter { .. } => {
            let mut below = op;
            while let Op::Filter { input, .. } = below {
                below = input.as_ref();
            }
            passes(below, reads)
        }
        Op::Project { .. } | Op::Expand { .. } | Op::VarExpand { .. } | Op::Unwind { .. } => {
            !op.bound_here().iter().any(|s| reads.contains(s))
        }
        _ => false,
    }
}

/// Whether the chain under the expand stops (at the operator binding one
/// of `reads`, or one the seek may not sink below) before an `Argument`.
fn reaches_binding(op: &Op, reads: &[Slot]) -> bool {
    chain_end(op, reads).is_some_and(|end| !matches!(end, Op::Argument))
}

/// The first operator of `op`'s input chain that [`passes`] refuses;
/// `None` when the chain ends at a leaf that passes.
fn chain_end<'a>(op: &'a Op, reads: &[Slot]) -> Option<&'a Op> {
    let mut current = op;
    while passes(current, reads) {
        current = current.input()?;
    }
    Some(current)
}

/// Whether the chain under the expand, for a seek whose values no row
/// binds, stops at an operator that ends an earlier part of the query
/// (`WITH DISTINCT`, an aggregation, an ordering or a row limit): the
/// pattern then starts from the rows that part produced (SNB IC11's
/// friends, `(company)-[:IS_LOCATED_IN]->(:Country {name: $countryName})`
/// after `WITH DISTINCT friend`), where the seek is made once per query
/// (dfe `node_index_seek.rs`) and each row probes the known node. Over a
/// scan or a seek of the same part, the rules that choose where a pattern
/// starts already weighed starting from the node, and the plan stays.
fn after_query_part(op: &Op) -> bool {
    chain_end(op, &[]).is_some_and(|end| {
        matches!(
            end,
            Op::Distinct { .. }
                | Op::Aggregate { .. }
                | Op::Sort { .. }
                | Op::Top { .. }
                | Op::Limit { .. }
                | Op::Skip { .. }
        )
    })
}

/// `op` with `seek` placed above the first operator of its input chain
/// that [`passes`] refuses.
fn sink<F: FnOnce(Op) -> Op>(mut op: Op, reads: &[Slot], seek: F) -> Op {
    if !passes(&op, reads) {
        return seek(op);
    }
    let Some(input) = op.input_mut() else {
        return seek(op);
    };
    let taken = std::mem::replace(input, Op::Argument);
    *input = nereid_stack::deeper(|| sink(taken, reads, seek));
    op
}
