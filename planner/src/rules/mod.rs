//! Rewrite rules over the plan. Each rule is a named unit in its own
//! file; [`RULES`] lists them in the order they run. A rule must preserve the
//! plan's results exactly (same rows, same order where order is defined).

mod choose_operators;
mod count_from_store;
mod expand_into_known;
mod far_end_adjacent;
mod far_end_in;
mod far_end_where;
mod filter_pushdown;
mod filter_reads_projection;
mod filtered_items_before_expand;
mod hash_join;
mod id_seek;
mod implied_in_list;
mod index_order;
mod join_order;
mod label_scan;
mod min_max_from_index;
mod node_index_seek;
mod node_property_scan;
mod or_to_union;
mod parallel_gather;
mod project_after_top;
mod projection_shared_read;
mod property_seek;
mod rel_index_seek;
mod rel_type_scan;
mod reuse_invariant;
mod shared_property_read;
mod sort_limit_to_top;
mod start_from_smaller_end;
mod top_admits_filter;
mod walk_from_lighter_end;

use crate::expr::{Expr, Slot};
use crate::plan::Op;
use crate::Catalog;

/// One rewrite rule.
pub trait RewriteRule: Sync {
    /// A stable name, shown by EXPLAIN-style tooling and in tests.
    fn name(&self) -> &'static str;
    /// Rewrites the whole plan (rules recurse themselves).
    fn rewrite(&self, plan: Op, catalog: &dyn Catalog) -> Op;
}

/// The rules, in application order. The last, `choose_operators`, makes
/// the choices the others leave open (which label index a scan reads, ...):
/// the rules before it may meet and produce logical forms such as
/// `Op::NodeScan`, and none runs after it but `shared_property_read`
/// (which puts a projection between filters, so it must not split the
/// filters a scan is chosen from), `top_admits_filter` (which moves the
/// filters under a `Top` into it, so it must not take a filter a scan is
/// chosen from), `far_end_in`, `far_end_adjacent` and `far_end_where`
/// (which mark an expand of the final join order with the list a filter
/// above tests its other end against, the node an `ExpandInto` above
/// tests it against, or the property comparisons filters above test it
/// with), `reuse_invariant`, which
/// changes no operator (it marks parts of expressions worth evaluating
/// once per run of rows) and would hide those parts from the other rules,
/// and `parallel_gather`, which only marks where the executor may run
/// operators on several threads (read-only plans; the other rules never
/// meet its `Gather`).
pub static RULES: &[&dyn RewriteRule] = &[
    &implied_in_list::ImpliedInList,
    &filter_pushdown::FilterPushdown,
    &filtered_items_before_expand::FilteredItemsBeforeExpand,
    &label_scan::LabelIntoScan,
    &start_from_smaller_end::StartFromSmallerEnd,
    &join_order::JoinOrder,
    &or_to_union::OrToUnion,
    &walk_from_lighter_end::WalkFromLighterEnd,
    &expand_into_known::ExpandIntoKnown,
    &hash_join::HashJoin,
    &id_seek::IdSeek,
    &node_index_seek::NodeIndexSeek,
    &property_seek::PropertySeek,
    &node_property_scan::NodePropertyScan,
    &count_from_store::CountFromStore,
    &min_max_from_index::MinMaxFromIndex,
    &rel_index_seek::RelIndexSeek,
    &rel_type_scan::RelTypeScan,
    &sort_limit_to_top::SortLimitToTop,
    &index_order::IndexOrder,
    &project_after_top::ProjectAfterTop,
    &filter_reads_projection::FilterReadsProjection,
    &choose_operators::ChooseOperators,
    &top_admits_filter::TopAdmitsFilter,
    &shared_property_read::SharedPropertyRead,
    &projection_shared_read::ProjectionSharedRead,
    &far_end_in::FarEndIn,
    &far_end_adjacent::FarEndAdjacent,
    &far_end_where::FarEndWhere,
    &reuse_invariant::ReuseInvariant,
    &parallel_gather::ParallelGather,
];

/// Applies every rule once, in order.
pub fn apply_all(mut plan: Op, catalog: &dyn Catalog) -> Op {
    for rule in RULES {
        plan = rule.rewrite(plan, catalog);
    }
    plan
}

/// Replaces the `NodeScan` binding `slot` by `f(input, labels)` when only
/// filters lie between it and the top of `plan` (rules that fold a
/// predicate into the scan under it); gives the plan back unchanged
/// otherwise.
pub(crate) fn replace_scan_under_filters(
    plan: Op,
    slot: Slot,
    f: impl FnOnce(Box<Op>, Vec<String>) -> Op,
) -> Result<Op, Op> {
    match plan {
        Op::NodeScan { input, out, labels } if out == slot => Ok(f(input, labels)),
        Op::Filter { input, predicate } => {
            match nereid_stack::deeper(|| replace_scan_under_filters(*input, slot, f)) {
                Ok(inner) => Ok(Op::Filter {
                    input: Box::new(inner),
                    predicate,
                }),
                Err(inner) => Err(Op::Filter {
                    input: Box::new(inner),
                    predicate,
                }),
            }
        }
        other => Err(other),
    }
}

/// Rebuilds `plan` bottom-up, applying `f` to every operator after its
/// inputs (including nested plans: Optional, Merge, Union) were rewritten.
pub(crate) fn transform_up(plan: Op, f: &dyn Fn(Op) -> Op) -> Op {
    f(walk_children(plan, &|child| transform_up(child, f)))
}

/// Rewrites, bottom-up, every aggregation without grouping keys whose one
/// aggregate is `(out, aggregate)` over `input` into `f(input, aggregate,
/// out)` when that gives an operator (the rules that answer an aggregate
/// from the store or an index).
pub(crate) fn rewrite_single_aggregate(
    plan: Op,
    f: &dyn Fn(&Op, &crate::plan::Aggregate, Slot) -> Option<Op>,
) -> Op {
    transform_up(plan, &|op| match op {
        Op::Aggregate {
            input,
            keys,
            aggregates,
        } if keys.is_empty() && aggregates.len() == 1 => {
            let (out, aggregate) = &aggregates[0];
            f(&input, aggregate, *out).unwrap_or(Op::Aggregate {
                input,
                keys,
                aggregates,
            })
        }
        other => other,
    })
}

/// Whether some item of a projection reads a slot the same projection
/// writes (rules that split or move projection items leave such a
/// projection whole).
pub(crate) fn projection_reads_own(items: &[(Slot, Expr)]) -> bool {
    let written: Vec<Slot> = items.iter().map(|(slot, _)| *slot).collect();
    items.iter().any(|(_, e)| {
        let mut reads = Vec::new();
        crate::expr::slots_of(e, &mut reads);
        reads.iter().any(|s| written.contains(s))
    })
}

/// Wraps `plan` in a filter per predicate, the first innermost.
pub(crate) fn wrap_filters(plan: Op, filters: Vec<Expr>) -> Op {
    filters
        .into_iter()
        .fold(plan, |input, predicate| Op::Filter {
            input: Box::new(input),
            predicate,
        })
}
/// A walk turned around to start from its far end `b`: the filters above
/// it split into the scan of `b` (its labels, and `first` followed by
/// every filter that reads `b` alone, which now run under the walk) and
/// the filters that must stay above it. Shared by the rules that reverse
/// a first hop (`start_from_smaller_end`, `or_to_union`).
pub(crate) fn scan_of_end(
    above: Vec<Expr>,
    b: Slot,
    base: Op,
    first: Vec<Expr>,
) -> (Op, Vec<Expr>) {
    let mut labels: Vec<String> = Vec::new();
    let mut on_b = first;
    let mut still_above = Vec::new();
    for filter in above {
        match filter {
            Expr::HasLabels { expr, labels: ls } if *expr == Expr::Slot(b) => {
                for l in ls {
                    if !labels.contains(&l) {
                        labels.push(l);
                    }
                }
            }
            f if reads_only(&f, b) => on_b.push(f),
            f => still_above.push(f),
        }
    }
    let scan = Op::NodeScan {
        input: Box::new(base),
        out: b,
        labels,
    };
    (wrap_filters(scan, on_b), still_above)
}

/// Whether a seek serves `conditions` on `end`: an id predicate, or an
/// index over one of `labels` (among `indexes`, as the hints allow) that
/// answers them.
pub(crate) fn seek_serves(
    indexes: &[crate::index_query::IndexDescriptor],
    hints: &[crate::index_query::IndexHint],
    conditions: &[&Expr],
    end: Slot,
    labels: &[String],
) -> bool {
    use crate::index_query::{allowed_for, IndexEntity};
    if conditions
        .iter()
        .any(|c| crate::id_predicate::seekable(c).is_some_and(|(slot, _)| slot == end))
    {
        return true;
    }
    let found: Vec<_> = conditions
        .iter()
        .map(|c| crate::index_predicate::condition(c, end, &[end]))
        .collect();
    let allowed = allowed_for(indexes, hints, end);
    crate::index_predicate::choose(&allowed, IndexEntity::Node, labels, &found).is_some()
}

/// True when `e` reads `slot` and no other slot (a filter on one node).
pub(crate) fn reads_only(e: &Expr, slot: Slot) -> bool {
    let mut reads = Vec::new();
    crate::expr::slots_of(e, &mut reads);
    !reads.is_empty() && reads.iter().all(|s| *s == slot)
}

/// Peels the filters off the top of `plan`: (filters bottom-up, the rest).
pub(crate) fn peel_filters(mut plan: Op) -> (Vec<Expr>, Op) {
    let mut filters = Vec::new();
    while let Op::Filter { input, predicate } = plan {
        filters.push(predicate);
        plan = *input;
    }
    filters.reverse();
    (filters, plan)
}

/// `plan` with `f` applied to each of its children (the nested plan, then
/// the input), each a level deeper on the guarded stack: the step of a
/// walk, bottom-up ([`transform_up`]) or top-down (a rule that must see an
/// operator with what lies above it before its inputs).
pub(crate) fn walk_children(mut plan: Op, f: &dyn Fn(Op) -> Op) -> Op {
    if let Some(inner) = plan.nested_mut() {
        let taken = std::mem::replace(inner, Op::Argument);
        *inner = nereid_stack::deeper(|| f(taken));
    }
    if let Some(input) = plan.input_mut() {
        let taken = std::mem::replace(input, Op::Argument);
        *input = nereid_stack::deeper(|| f(taken));
    }
    plan
}

/// The catalog's online indexes over `entity` (what the index rules
/// choose from).
pub(crate) fn indexes_of(
    catalog: &dyn Catalog,
    entity: crate::index_query::IndexEntity,
) -> Vec<crate::index_query::IndexDescriptor> {
    let mut indexes = catalog.indexes();
    indexes.retain(|i| i.entity == entity);
    indexes
}

/// `plan` followed by a check that the node in `slot` carries `labels`
/// (`plan` itself without labels).
pub(crate) fn with_labels(plan: Op, slot: Slot, labels: Vec<String>) -> Op {
    if labels.is_empty() {
        return plan;
    }
    Op::Filter {
        input: Box::new(plan),
        predicate: Expr::HasLabels {
            expr: Box::new(Expr::Slot(slot)),
            labels,
        },
    }
}
