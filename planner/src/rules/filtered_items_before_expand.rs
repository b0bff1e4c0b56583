//! `filtered_items_before_expand`: the items of a projection that a filter
//! above it reads, when they read nothing an expand under the projection
//! binds, are computed (and the filter applied) before that expand, so the
//! rows the filter drops never fan out.
//!
//! Why: a `WITH` that computes a value from an earlier variable and filters
//! on it (`WITH friend, city, datetime({epochMillis: friend.birthday}) AS
//! birthday WHERE birthday.month = $month ...`, LDBC IC10) projects after
//! the whole `MATCH`, so the filter, reading a projected slot, cannot sink
//! (`filter_pushdown` stops at the operator binding what it reads): every
//! friend was expanded to its city first, and 88% of the rows then dropped.
//!
//! Shape, top-down: `Filter*` over `Project` over `Filter*` over
//! `Expand`/`VarExpand` over the rest. The movable items are those that
//! are repeatable (no `rand()`: computed once per row before the expand,
//! it would be shared by the rows the expand makes of it), read no slot
//! the expand binds, no slot the projection writes, and whose
//! slots neither the filters under the projection nor the expand read; the
//! filters above that read one of them and otherwise only slots bound
//! under the expand move with them:
//!
//! ```text
//! Filter* (the rest)                      Filter* (the rest)
//!   Project (items)                         Project (items not moved)
//!     Filter* (g)               =>            Filter* (g)
//!       Expand e                                Expand e
//!         below                                   Filter* (moved)
//!                                                   Project (moved items)
//!                                                     below
//! ```
//!
//! and again from there while another expand lies under. The rows are the
//! same: a projection computes each item from its row alone, a filter only
//! drops rows, and an expand copies the slots it does not bind, so
//! computing and testing before it or after it gives the same values on
//! each surviving row (as for `filter_pushdown`, an item or filter may now
//! be evaluated on a row the expand would have dropped).

use super::{peel_filters, projection_reads_own, walk_children, wrap_filters, RewriteRule};
use crate::expr::{repeatable, slots_of, Expr, Slot};
use crate::plan::Op;
use crate::Catalog;

pub struct FilteredItemsBeforeExpand;

impl RewriteRule for FilteredItemsBeforeExpand {
    fn name(&self) -> &'static str {
        "filtered_items_before_expand"
    }

    fn rewrite(&self, plan: Op, _catalog: &dyn Catalog) -> Op {
        walk(plan)
    }
}

/// Top-down, so that a stack of filters is seen whole from its top (a
/// filter that moves may sit above one that reads what stays).
fn walk(plan: Op) -> Op {
    let plan = if matches!(plan, Op::Filter { .. }) {
        sink(plan)
    } else {
        plan
    };
    walk_children(plan, &walk)
}

type Items = Vec<(Slot, Expr)>;

/// `plan` (filters over a projection) with the filters' items moved under
/// the expand below the projection, when the shape allows.
fn sink(plan: Op) -> Op {
    let (above, core) = peel_filters(plan);
    let Op::Project { input, items } = core else {
        return wrap_filters(core, above);
    };
    let (under, mut expand) = peel_filters(*input);
    let fans_out = matches!(expand, Op::Expand { .. } | Op::VarExpand { .. });
    let found = fans_out
        .then(|| split(&items, &above, &under, &expand, &expand.bound_here()))
        .flatten();
    let Some((moved, with)) = found else {
        let project = Op::Project {
            input: Box::new(wrap_filters(expand, under)),
            items,
        };
        return wrap_filters(project, above);
    };
    let (moved_items, kept_items) = split_at_positions(items, &moved);
    let (moved_filters, rest_filters) = split_at_positions(above, &with);
    if let Some(input) = expand.input_mut() {
        let below = std::mem::replace(input, Op::Argument);
        *input = lowered(below, moved_items, moved_filters);
    }
    let upper = wrap_filters(expand, under);
    let upper = if kept_items.is_empty() {
        upper
    } else {
        Op::Project {
            input: Box::new(upper),
            items: kept_items,
        }
    };
    wrap_filters(upper, rest_filters)
}

/// The moved projection and filters over `below`, sunk further when
/// another expand lies under.
fn lowered(below: Op, items: Items, filters: Vec<Expr>) -> Op {
    let project = Op::Project {
        input: Box::new(below),
        items,
    };
    nereid_stack::deeper(|| sink(wrap_filters(project, filters)))
}

/// Positions of (moved items, moved filters), or `None` when no filter
/// moves.
fn split(
    items: &Items,
    above: &[Expr],
    under: &[Expr],
    expand: &Op,
    expand_binds: &[Slot],
) -> Option<(Vec<usize>, Vec<usize>)> {
    if projection_reads_own(items) {
        return None;
    }
    let reads = |e: &Expr| {
        let mut out = Vec::new();
        slots_of(e, &mut out);
        out
    };
    // Slots the operators the items would cross read.
    let mut crossed_reads: Vec<Slot> = under.iter().flat_map(reads).collect();
    crossed_reads.extend(expand_reads(expand));
    let written: Vec<Slot> = items.iter().map(|(s, _)| *s).collect();
    let moved: Vec<usize> = (0..items.len())
        .filter(|&i| {
            let (slot, e) = &items[i];
            repeatable(e)
                && !crossed_reads.contains(slot)
                && !expand_binds.contains(slot)
                && reads(e).iter().all(|s| !expand_binds.contains(s))
        })
        .collect();
    let moved_slots: Vec<Slot> = moved.iter().map(|&i| items[i].0).collect();
    let with: Vec<usize> = (0..above.len())
        .filter(|&i| {
            let r = reads(&above[i]);
            r.iter().any(|s| moved_slots.contains(s))
                && r.iter().all(|s| {
                    moved_slots.contains(s) || (!written.contains(s) && !expand_binds.contains(s))
                })
        })
        .collect();
    // A filter only drops rows, so the ones that move may leave others
    // above them (each keeps its relative order on its side).
    if with.is_empty() {
        return None;
    }
    Some((moved, with))
}

/// What an expand reads of its input row: its start (and a variable-length
/// expand's property expressions).
fn expand_reads(expand: &Op) -> Vec<Slot> {
    match expand {
        Op::Expand { spec, .. } => {
            let mut out = vec![spec.from];
            if spec.into {
                out.push(spec.to);
            }
            out
        }
        Op::VarExpand { spec, .. } => {
            let mut out = vec![spec.from];
            if spec.into {
                out.push(spec.to);
            }
            for (_, e) in &spec.properties {
                slots_of(e, &mut out);
            }
            out
        }
        _ => Vec::new(),
    }
}

/// (the elements at `chosen`, the others), each in its order.
fn split_at_positions<T>(all: Vec<T>, chosen: &[usize]) -> (Vec<T>, Vec<T>) {
    let mut picked = Vec::new();
    let mut others = Vec::new();
    for (i, element) in all.into_iter().enumerate() {
        if chosen.contains(&i) {
            picked.push(element);
        } else {
            others.push(element);
        }
    }
    (picked, others)
}
