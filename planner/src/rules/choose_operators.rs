//! `choose_operators`, the last rule: makes the choices the other rules
//! leave open, so the plan is one the executor runs ([`Op::unresolved`]
//! holds nowhere). A node scan reads the label with the fewest estimated
//! nodes (all nodes without labels) and checks the others with a filter;
//! a property seek or property scan likewise reads through one label; an
//! id seek or index seek checks its extra labels with a filter.
//!
//! Estimates are asked for only when there is a choice: they may cost a
//! scan of the store when the catalog keeps no statistics.

use super::{transform_up, with_labels, RewriteRule};
use crate::expr::Slot;
use crate::plan::Op;
use crate::Catalog;

pub struct ChooseOperators;

impl RewriteRule for ChooseOperators {
    fn name(&self) -> &'static str {
        "choose_operators"
    }

    fn rewrite(&self, plan: Op, catalog: &dyn Catalog) -> Op {
        transform_up(plan, &|op| choose(op, catalog))
    }
}

fn choose(op: Op, catalog: &dyn Catalog) -> Op {
    match op {
        Op::NodeScan { input, out, labels } => {
            by_best_label(out, labels, catalog, |label| match label {
                None => Op::AllNodesScan { input, out },
                Some(label) => Op::NodeByLabelScan { input, out, label },
            })
        }
        Op::NodeByIdSeek {
            input,
            out,
            ids,
            element,
            labels,
        } => {
            let seek = Op::NodeByIdSeek {
                input,
                out,
                ids,
                element,
                labels: Vec::new(),
            };
            with_labels(seek, out, labels)
        }
        Op::NodeIndexSeek {
            input,
            out,
            labels,
            query,
        } => {
            let seek = Op::NodeIndexSeek {
                input,
                out,
                labels: Vec::new(),
                query,
            };
            with_labels(seek, out, labels)
        }
        Op::NodeByPropertySeek {
            input,
            out,
            key,
            value,
            labels,
        } => by_best_label(out, labels, catalog, |label| Op::NodeByPropertySeek {
            input,
            out,
            key,
            value,
            labels: label.into_iter().collect(),
        }),
        Op::NodePropertyScan {
            input,
            out,
            labels,
            predicate,
        } => by_best_label(out, labels, catalog, |label| Op::NodePropertyScan {
            input,
            out,
            labels: label.into_iter().collect(),
            predicate,
        }),
        other => other,
    }
}

/// `op(label)` reading the nodes in `out` by the label of `labels` with
/// the fewest estimated nodes (none without labels; no estimate asked when
/// there is only one), followed by a check of the other labels.
fn by_best_label(
    out: Slot,
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
    with_labels(op(Some(label)), out, labels)
}
