//! Logical plan → physical plan: the choices of operator.

use crate::expr::Expr;
use crate::logical::LogicalPlan;
use crate::physical::Op;
use crate::Catalog;

pub(crate) fn to_physical(plan: LogicalPlan, catalog: &dyn Catalog) -> Op {
    let b = |p: Box<LogicalPlan>| Box::new(nereid_stack::deeper(|| to_physical(*p, catalog)));
    match plan {
        LogicalPlan::Argument => Op::Argument,
        LogicalPlan::NodeScan { input, out, labels } => node_scan(b(input), out, labels, catalog),
        LogicalPlan::NodeByIdSeek {
            input,
            out,
            ids,
            element,
            labels,
        } => {
            let seek = Op::NodeByIdSeek {
                input: b(input),
                out,
                ids,
                element,
            };
            with_label_filter(seek, out, labels)
        }
        LogicalPlan::NodeByPropertySeek {
            input,
            out,
            key,
            value,
            labels,
        } => by_best_label(out, labels, catalog, |label| Op::NodeByPropertySeek {
            input: b(input),
            out,
            label,
            key,
            value,
        }),
        LogicalPlan::NodePropertyScan {
            input,
            out,
            labels,
            predicate,
        } => by_best_label(out, labels, catalog, |label| Op::NodePropertyScan {
            input: b(input),
            out,
            label,
            predicate,
        }),
        LogicalPlan::NodeIndexSeek {
            input,
            out,
            labels,
            query,
        } => {
            let seek = Op::NodeIndexSeek {
                input: b(input),
                out,
                query,
            };
            with_label_filter(seek, out, labels)
        }
        LogicalPlan::RelIndexSeek {
            input,
            from,
            rel,
            to,
            dir,
            query,
        } => Op::RelationshipIndexSeek {
            input: b(input),
            from,
            rel,
            to,
            dir,
            query,
        },
        LogicalPlan::NodeCountFromStore { input, out, label } => Op::NodeCountFromCountStore {
            input: b(input),
            out,
            label,
        },
        LogicalPlan::RelCountFromStore { input, out, types } => {
            Op::RelationshipCountFromCountStore {
                input: b(input),
                out,
                types,
            }
        }
        LogicalPlan::RelTypeScan {
            input,
            from,
            rel,
            to,
            dir,
            types,
            predicate,
        } => Op::RelationshipTypeScan {
            input: b(input),
            from,
            rel,
            to,
            dir,
            types,
            predicate,
        },
        LogicalPlan::Expand {
            input,
            from,
            rel,
            to,
            dir,
            types,
            into,
        } => Op::Expand {
            input: b(input),
            from,
            rel,
            to,
            dir,
            types,
            into,
        },
        LogicalPlan::Filter { input, predicate } => Op::Filter {
            input: b(input),
            predicate,
        },
        LogicalPlan::Project { input, items } => Op::Project {
            input: b(input),
            items,
        },
        LogicalPlan::Aggregate {
            input,
            keys,
            aggregates,
        } => Op::Aggregate {
            input: b(input),
            keys,
            aggregates,
        },
        LogicalPlan::Distinct { input, slots } => Op::Distinct {
            input: b(input),
            slots,
        },
        LogicalPlan::Sort { input, keys } => Op::Sort {
            input: b(input),
            keys,
        },
        LogicalPlan::Top { input, keys, limit } => Op::Top {
            input: b(input),
            keys,
            limit,
        },
        LogicalPlan::Skip { input, count } => Op::Skip {
            input: b(input),
            count,
        },
        LogicalPlan::Limit { input, count } => Op::Limit {
            input: b(input),
            count,
        },
        LogicalPlan::Unwind { input, expr, out } => Op::Unwind {
            input: b(input),
            expr,
            out,
            dead: Vec::new(),
        },
        LogicalPlan::Optional {
            input,
            inner,
            nullable,
        } => Op::Optional {
            input: b(input),
            inner: b(inner),
            nullable,
        },
        LogicalPlan::Apply {
            input,
            inner,
            returned,
            unit,
        } => Op::Apply {
            input: b(input),
            inner: b(inner),
            returned,
            unit,
        },
        LogicalPlan::Eager { input } => Op::Eager { input: b(input) },
        LogicalPlan::Create { input, items } => Op::Create {
            input: b(input),
            items,
        },
        LogicalPlan::SetProperties { input, items } => Op::SetProperties {
            input: b(input),
            items,
        },
        LogicalPlan::Delete {
            input,
            items,
            detach,
        } => Op::Delete {
            input: b(input),
            items,
            detach,
        },
        LogicalPlan::ProcedureCall {
            input,
            name,
            args,
            yields,
        } => Op::ProcedureCall {
            input: b(input),
            name,
            args,
            yields,
        },
        LogicalPlan::VarExpand {
            input,
            from,
            rels,
            to,
            dir,
            types,
            min,
            max,
            into,
            properties,
        } => Op::VarExpand {
            input: b(input),
            from,
            rels,
            to,
            dir,
            types,
            min,
            max,
            into,
            properties,
        },
        LogicalPlan::ShortestPath { input, spec } => Op::ShortestPath {
            input: b(input),
            spec,
        },
        LogicalPlan::Merge {
            input,
            pattern,
            create,
            on_create,
            on_match,
        } => Op::Merge {
            input: b(input),
            pattern: b(pattern),
            create,
            on_create,
            on_match,
        },
        LogicalPlan::Union { input, other } => Op::Union {
            input: b(input),
            other: b(other),
        },
    }
}

/// Scans the most selective label's index and checks the other labels.
/// Estimates are asked for only when there is a choice: they may cost a
/// scan of the store (until the statistics issue keeps counts).
fn node_scan(input: Box<Op>, out: usize, labels: Vec<String>, catalog: &dyn Catalog) -> Op {
    by_best_label(out, labels, catalog, |label| match label {
        None => Op::AllNodesScan { input, out },
        Some(label) => Op::NodeByLabelScan { input, out, label },
    })
}

/// `op(label)` reading the nodes in `out` by the label of `labels` with
/// the fewest estimated nodes (none without labels; no estimate asked when
/// there is only one), followed by a check of the other labels.
fn by_best_label(
    out: usize,
    mut labels: Vec<String>,
    catalog: &dyn Catalog,
    op: impl FnOnce(Option<String>) -> Op,
) -> Op {
    let best = match labels.len() {
        0 => return op(None),
        1 => 0,
        _ => labels
            .iter()
            .enumerate()
            .min_by_key(|(_, l)| catalog.estimate_nodes(Some(l.as_str())))
            .map(|(i, _)| i)
            .unwrap_or(0),
    };
    let label = labels.remove(best);
    with_label_filter(op(Some(label)), out, labels)
}

/// `op` followed by a check that the node in `out` carries `labels`.
fn with_label_filter(op: Op, out: usize, labels: Vec<String>) -> Op {
    if labels.is_empty() {
        return op;
    }
    Op::Filter {
        input: Box::new(op),
        predicate: Expr::HasLabels {
            expr: Box::new(Expr::Slot(out)),
            labels,
        },
    }
}
