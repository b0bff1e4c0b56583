//! Builds the operator pipeline for a plan.
//!
//! Operators are numbered in plan pre-order (an operator, then its input,
//! then an `Optional`'s inner plan); the number indexes the per-operator
//! statistics. An `Optional` re-builds its inner plan per outer row with the
//! same numbers, so statistics accumulate across instances.

use super::aggregate::Aggregate;
use super::apply::Apply;
use super::apply_in_transactions::ApplyInTransactions;
use super::argument::{Argument, Leaf};
use super::count_from_store::{CountFromStore, Counted as CountedKind};
use super::create::Create;
use super::delete::Delete;
use super::distinct::Distinct;
use super::eager::Eager;
use super::expand::Expand;
use super::filter::Filter;
use super::flat_map::FlatMap;
use super::gather::Gather;
use super::hash_join::HashJoin;
use super::id_seek::NodeIdSeek;
use super::limit::Limit;
use super::load_csv::LoadCsv;
use super::merge::Merge;
use super::node_index_min_max::NodeIndexMinMax;
use super::node_index_seek::NodeIndexSeek;
use super::node_property_scan::NodePropertyScan;
use super::optional::Optional;
use super::optional_batched::BatchedOptional;
use super::procedure_call::ProcedureCall;
use super::project::Project;
use super::property_seek::NodePropertySeek;
use super::rel_index_seek::RelIndexSeek;
use super::rel_type_scan::RelTypeScan;
use super::scan::NodeScan;
use super::set::SetProperties;
use super::shortest_path::ShortestPath;
use super::skip::Skip;
use super::sort::Sort;
use super::top::Top;
use super::union::Union;
use super::unresolved::Unresolved;
use super::unwind::Unwind;
use super::var_expand::VarExpand;
use super::writes::Updating;
use super::{Counted, Operator};
use crate::batch::Batch;
use crate::context::OperatorStats;
use nereid_planner::Op;
use nereid_values::Value;

/// The operator kind's name, for statistics.
fn name(op: &Op) -> &'static str {
    match op {
        Op::Argument => "Argument",
        Op::NodeScan { .. } => "NodeScan",
        Op::AllNodesScan { .. } => "AllNodesScan",
        Op::NodeByLabelScan { .. } => "NodeByLabelScan",
        Op::NodeByIdSeek { .. } => "NodeByIdSeek",
        Op::NodeByPropertySeek { .. } => "NodeByPropertySeek",
        Op::NodePropertyScan { .. } => "NodePropertyScan",
        Op::NodeIndexSeek { query, .. } => query.node_operator(),
        Op::RelIndexSeek { .. } => "RelationshipIndexSeek",
        Op::NodeCountFromStore { .. } => "NodeCountFromCountStore",
        Op::NodeIndexMinMax { .. } => "NodeIndexScan",
        Op::RelCountFromStore { .. } => "RelationshipCountFromCountStore",
        Op::RelTypeScan { .. } => "RelationshipTypeScan",
        Op::Expand { .. } => "Expand",
        Op::Filter { .. } => "Filter",
        Op::Project { .. } => "Project",
        Op::Aggregate { .. } => "Aggregate",
        Op::Distinct { .. } => "Distinct",
        Op::Sort { .. } => "Sort",
        Op::Top { .. } => "Top",
        Op::Skip { .. } => "Skip",
        Op::Limit { .. } => "Limit",
        Op::Unwind { .. } => "Unwind",
        Op::Optional { .. } => "Optional",
        Op::Apply {
            transactions: Some(_),
            ..
        } => "TransactionApply",
        Op::Apply { .. } => "Apply",
        Op::LoadCsv { .. } => "LoadCSV",
        Op::Eager { .. } => "Eager",
        Op::Gather { .. } => "Gather",
        Op::Create { .. } => "Create",
        Op::SetProperties { .. } => "SetProperties",
        Op::Delete { .. } => "Delete",
        Op::ProcedureCall { .. } => "ProcedureCall",
        Op::VarExpand { .. } => "VarExpand",
        Op::ShortestPath { .. } => "ShortestPath",
        Op::Merge { .. } => "Merge",
        Op::Union { .. } => "Union",
        Op::HashJoin { .. } => "HashJoin",
    }
}

/// The operator's children in numbering order (the input, then the nested
/// plan of Optional, Merge or Union).
fn children(op: &Op) -> Vec<&Op> {
    let mut out: Vec<&Op> = op.input().into_iter().collect();
    out.extend(op.nested());
    out
}

/// Number of operators in the subtree rooted at `op`.
fn subtree_size(op: &Op) -> usize {
    1 + children(op)
        .into_iter()
        .map(|child| nereid_stack::deeper(|| subtree_size(child)))
        .sum::<usize>()
}

/// Whether the subtree rooted at `op` writes to the graph (then an operator
/// that needs no more rows must still run it to its end).
fn writes(op: &Op) -> bool {
    matches!(
        op,
        Op::Create { .. } | Op::SetProperties { .. } | Op::Delete { .. } | Op::Merge { .. }
    ) || children(op)
        .into_iter()
        .any(|child| nereid_stack::deeper(|| writes(child)))
}

/// Whether the plan rooted at `op` calls a procedure (whose answers a
/// statement may not assume repeatable: it then keeps no pattern memo).
pub(crate) fn calls_procedures(op: &Op) -> bool {
    matches!(op, Op::ProcedureCall { .. })
        || children(op)
            .into_iter()
            .any(|child| nereid_stack::deeper(|| calls_procedures(child)))
}

/// Zeroed statistics for every operator of the plan, in pre-order.
pub(crate) fn plan_stats(root: &Op) -> Vec<OperatorStats> {
    fn walk(op: &Op, out: &mut Vec<OperatorStats>) {
        out.push(OperatorStats {
            name: name(op),
            rows: 0,
            db_hits: 0,
            time_ns: 0,
        });
        for child in children(op) {
            nereid_stack::deeper(|| walk(child, out));
        }
    }
    let mut out = Vec::new();
    walk(root, &mut out);
    out
}

/// Builds a chain of `Union`s (`q1 UNION q2 UNION ...` lowers left-deep:
/// each Union's input is the previous one) as one operator over its parts,
/// numbered as the recursion would number the chain (so PROFILE's ids and
/// counts are unchanged). Numbering each level's other branch by the size
/// of its input subtree, level by level, was quadratic in the number of
/// parts (8,000 parts: seconds before the first row). The chain's row
/// counts are kept by the operator itself (`Union::new`), not by a
/// `Counted` wrapper.
fn build_union_chain(top: &Op, id: usize, argument: &Leaf) -> Box<dyn Operator> {
    let mut others = Vec::new();
    let mut bottom = top;
    while let Op::Union { input, other } = bottom {
        others.push(&**other);
        bottom = input;
    }
    // Pre-order: the unions first (the top one at `id`), then the first
    // part, then the other branches from the deepest union up.
    let mut next_id = id + others.len();
    let mut parts = Vec::with_capacity(others.len() + 1);
    parts.push(build_on(bottom, next_id, argument));
    next_id += subtree_size(bottom);
    for other in others.iter().rev() {
        // Each other branch starts from its own (top-level) argument.
        parts.push(build_on(other, next_id, argument));
        next_id += subtree_size(other);
    }
    Box::new(Union::new(parts, id..id + others.len()))
}

/// Builds the pipeline for `op`, numbered from `id`. `argument` is the row
/// the `Argument` leaf emits (`None`: a row of nulls).
pub(crate) fn build(op: &Op, id: usize, argument: Option<Vec<Value>>) -> Box<dyn Operator> {
    build_on(op, id, &argument.map_or(Leaf::Nulls, Leaf::Row))
}

/// [`build`] over a batch of argument rows (a pattern expression's nested
/// plan run for many rows at once).
pub(crate) fn build_on_batch(op: &Op, arguments: Batch) -> Box<dyn Operator> {
    build_on(op, 0, &Leaf::Batch(arguments))
}

/// [`build`] with what the `Argument` leaf emits, copied only into the
/// leaf (a batched `Optional`'s argument is a whole batch).
pub(crate) fn build_on(op: &Op, id: usize, argument: &Leaf) -> Box<dyn Operator> {
    build_with_inputs(op, id, argument, &|input, input_id| {
        nereid_stack::deeper(|| build_on(input, input_id, argument))
    })
}

/// [`build_on`] for `op` alone, its input built by `build_input` (given
/// the input and its number): a parallel segment's workers build their
/// chain down to a leaf that emits their morsel instead of the producer.
pub(crate) fn build_with_inputs(
    op: &Op,
    id: usize,
    argument: &Leaf,
    build_input: &dyn Fn(&Op, usize) -> Box<dyn Operator>,
) -> Box<dyn Operator> {
    let input_id = id + 1;
    let input = |input: &Op| build_input(input, input_id);
    if let Some(choice) = op.unresolved() {
        return Box::new(Counted {
            id,
            inner: Box::new(Unresolved(choice)),
        });
    }
    let inner: Box<dyn Operator> = match op {
        Op::Argument => Box::new(Argument::new(argument.clone())),
        // Always unresolved (above): the planner's last rule replaces it.
        Op::NodeScan { .. } => Box::new(Unresolved("a node scan")),
        Op::AllNodesScan { input: i, out } => {
            Box::new(FlatMap::new(input(i), NodeScan::new(*out, None)))
        }
        Op::NodeByIdSeek {
            input: i,
            out,
            ids,
            element,
            ..
        } => Box::new(FlatMap::new(
            input(i),
            NodeIdSeek::new(ids.clone(), *out, *element),
        )),
        Op::NodeByPropertySeek {
            input: i,
            out,
            labels,
            key,
            value,
        } => Box::new(FlatMap::new(
            input(i),
            NodePropertySeek::new(*out, labels.first().cloned(), key.clone(), value.clone()),
        )),
        Op::NodePropertyScan {
            input: i,
            out,
            labels,
            predicate,
        } => Box::new(FlatMap::new(
            input(i),
            NodePropertyScan {
                out: *out,
                label: labels.first().cloned(),
                predicate: (**predicate).clone(),
                nodes: None,
            },
        )),
        Op::NodeByLabelScan {
            input: i,
            out,
            label,
        } => Box::new(FlatMap::new(
            input(i),
            NodeScan::new(*out, Some(label.clone())),
        )),
        Op::NodeCountFromStore {
            input: i,
            out,
            label,
        } => Box::new(CountFromStore::new(
            input(i),
            *out,
            CountedKind::Nodes(label.clone()),
        )),
        Op::NodeIndexMinMax {
            input: i,
            extremes,
            index,
            ..
        } => Box::new(NodeIndexMinMax::new(
            input(i),
            extremes.clone(),
            index.clone(),
        )),
        Op::RelCountFromStore {
            input: i,
            out,
            types,
        } => Box::new(CountFromStore::new(
            input(i),
            *out,
            CountedKind::Rels(types.clone()),
        )),
        Op::NodeIndexSeek {
            input: i,
            out,
            query,
            ..
        } => Box::new(FlatMap::new(
            input(i),
            NodeIndexSeek::new(*out, (**query).clone()),
        )),
        Op::RelIndexSeek {
            input: i,
            from,
            rel,
            to,
            dir,
            query,
        } => Box::new(FlatMap::new(
            input(i),
            RelIndexSeek::new(*from, *rel, *to, *dir, (**query).clone()),
        )),
        Op::RelTypeScan {
            input: i,
            from,
            rel,
            to,
            dir,
            types,
            predicate,
        } => Box::new(FlatMap::new(
            input(i),
            RelTypeScan {
                from: *from,
                rel: *rel,
                to: *to,
                dir: *dir,
                types: types.clone(),
                predicate: predicate.clone(),
                edges: None,
            },
        )),
        Op::Expand { input: i, spec } => {
            Box::new(FlatMap::new(input(i), Expand::new(spec.clone())).without_slots(&spec.dead))
        }
        Op::Filter {
            input: i,
            predicate,
        } => Box::new(Filter {
            input: input(i),
            predicate: predicate.clone(),
            pending: None,
        }),
        Op::Project { input: i, items } => Box::new(Project {
            input: input(i),
            items: items.clone(),
            pending: None,
        }),
        Op::Aggregate {
            input: i,
            keys,
            aggregates,
        } => Box::new(Aggregate::new(input(i), keys.clone(), aggregates.clone())),
        Op::Distinct { input: i, slots } => Box::new(Distinct::new(input(i), slots.clone())),
        Op::Sort { input: i, keys } => Box::new(Sort::new(input(i), keys.clone())),
        Op::Top {
            input: i,
            keys,
            limit,
            admit,
        } => Box::new(Top::new(
            input(i),
            keys.clone(),
            limit.clone(),
            admit.as_deref().cloned(),
            writes(i),
        )),
        Op::Skip { input: i, count } => Box::new(Skip::new(input(i), count.clone())),
        Op::Limit { input: i, count } => Box::new(Limit::new(input(i), count.clone(), writes(i))),
        Op::Unwind {
            input: i,
            expr,
            out,
            dead,
        } => Box::new(FlatMap::new(input(i), Unwind::new(expr.clone(), *out)).without_slots(dead)),
        Op::Optional {
            input: i,
            inner,
            nullable,
            origin,
        } => match origin {
            Some(origin) => Box::new(BatchedOptional::new(
                input(i),
                (**inner).clone(),
                input_id + subtree_size(i),
                nullable.clone(),
                *origin,
            )),
            None => Box::new(Optional::new(
                input(i),
                (**inner).clone(),
                input_id + subtree_size(i),
                nullable.clone(),
            )),
        },
        Op::Apply {
            input: i,
            inner,
            returned,
            unit,
            transactions: Some(batches),
        } => Box::new(ApplyInTransactions::new(
            input(i),
            (**inner).clone(),
            input_id + subtree_size(i),
            returned.clone(),
            *unit,
            (**batches).clone(),
        )),
        Op::LoadCsv { input: i, spec } => Box::new(LoadCsv::new(input(i), (**spec).clone())),
        Op::Apply {
            input: i,
            inner,
            returned,
            unit,
            transactions: None,
        } => Box::new(Apply::new(
            input(i),
            (**inner).clone(),
            input_id + subtree_size(i),
            returned.clone(),
            *unit,
        )),
        Op::Eager { input: i } => Box::new(Eager::new(input(i))),
        Op::Gather {
            input: i,
            workers,
            chain,
        } => Box::new(Gather::new(i, input_id, *chain, *workers, argument)),
        Op::Create { input: i, items } => Box::new(Updating::new(
            input(i),
            Create {
                items: items.clone(),
            },
        )),
        Op::SetProperties { input: i, items } => Box::new(Updating::new(
            input(i),
            SetProperties {
                items: items.clone(),
            },
        )),
        Op::Delete {
            input: i,
            items,
            detach,
        } => Box::new(Updating::new(input(i), Delete::new(items.clone(), *detach))),
        Op::ProcedureCall {
            input: i,
            name,
            args,
            yields,
            filter,
        } => Box::new(FlatMap::new(
            input(i),
            ProcedureCall::new(
                name.clone(),
                args.clone(),
                yields.clone(),
                filter.as_deref().cloned(),
            ),
        )),
        Op::VarExpand { input: i, spec } => {
            Box::new(FlatMap::new(input(i), VarExpand::new(spec.clone())))
        }
        Op::ShortestPath { input: i, spec } => {
            Box::new(FlatMap::new(input(i), ShortestPath::new((**spec).clone())))
        }
        Op::Merge {
            input: i,
            pattern,
            create,
            on_create,
            on_match,
        } => Box::new(Merge::new(
            input(i),
            (**pattern).clone(),
            input_id + subtree_size(i),
            create.clone(),
            on_create.clone(),
            on_match.clone(),
        )),
        Op::Union { .. } => return build_union_chain(op, id, argument),
        // The right side starts from the join's own argument: it reads
        // nothing the left side binds (rule `hash_join`).
        Op::HashJoin {
            input: i,
            right,
            spec,
        } => Box::new(HashJoin::new(
            input(i),
            nereid_stack::deeper(|| build_on(right, input_id + subtree_size(i), argument)),
            (**spec).clone(),
        )),
    };
    Box::new(Counted { id, inner })
}
