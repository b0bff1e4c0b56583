//! `label_into_scan`: a label predicate on the node a scan binds becomes part
//! of the scan (looking through other filters between them), so
//! `choose_operators` can use a label index instead of scanning every node.

use super::{replace_scan_under_filters, transform_up, RewriteRule};
use crate::expr::{Expr, Slot};
use crate::plan::Op;
use crate::Catalog;

pub struct LabelIntoScan;

impl RewriteRule for LabelIntoScan {
    fn name(&self) -> &'static str {
        "label_into_scan"
    }

    fn rewrite(&self, plan: Op, _catalog: &dyn Catalog) -> Op {
        transform_up(plan, &|op| match op {
            Op::Filter {
                input,
                predicate: Expr::HasLabels { expr, labels },
            } => match *expr {
                Expr::Slot(slot) => match absorb(*input, slot, &labels) {
                    Ok(plan) => plan,
                    Err(input) => Op::Filter {
                        input: Box::new(input),
                        predicate: Expr::HasLabels {
                            expr: Box::new(Expr::Slot(slot)),
                            labels,
                        },
                    },
                },
                other => Op::Filter {
                    input,
                    predicate: Expr::HasLabels {
                        expr: Box::new(other),
                        labels,
                    },
                },
            },
            other => other,
        })
    }
}

/// Adds `labels` to the scan binding `slot` if only filters lie between;
/// gives the plan back unchanged otherwise.
fn absorb(plan: Op, slot: Slot, labels: &[String]) -> Result<Op, Op> {
    replace_scan_under_filters(plan, slot, |input, mut have| {
        for l in labels {
            if !have.contains(l) {
                have.push(l.clone());
            }
        }
        Op::NodeScan {
            input,
            out: slot,
            labels: have,
        }
    })
}
