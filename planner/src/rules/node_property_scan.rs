//! `node_property_scan`: a node scan filtered on `n.key <op> constant` (a
//! literal or parameter; `=`, `<>`, `<`, `<=`, `>`, `>=`, or `IS NOT
//! NULL`) becomes one scan of the vertex properties with the test pushed
//! into it: the store reads the key's tuples column by column and decides
//! integers and floats on their stored bits (Poseidon's value-relation
//! scan), instead of producing every node of the label as a row and
//! reading its property back.
//!
//! Preconditions: only filters lie between the predicate and the scan (the
//! pushdown rule has put it there). The scan reads every node's tuples of
//! the partition, where the label scan reads only the label's nodes, so
//! with labels the rewrite is made only when the catalog estimates the
//! label to hold at least a tenth of all nodes (a property read per
//! labelled node costs about what scanning ten nodes' tuples does). Runs
//! after `id_seek` and `property_seek` (a seek names fewer nodes); only one
//! predicate is pushed, further ones stay filters. The pushed test is the
//! executor's own comparison, so the filter it replaces is dropped.

use super::{transform_up, RewriteRule};
use crate::expr::Expr;
use crate::plan::Op;
use crate::property_predicate::pushable;
use crate::Catalog;

pub struct NodePropertyScan;

impl RewriteRule for NodePropertyScan {
    fn name(&self) -> &'static str {
        "node_property_scan"
    }

    fn rewrite(&self, plan: Op, catalog: &dyn Catalog) -> Op {
        transform_up(plan, &|op| match op {
            Op::Filter {
                mut input,
                predicate,
            } => {
                if absorb(&mut input, &predicate, catalog) {
                    *input
                } else {
                    Op::Filter { input, predicate }
                }
            }
            other => other,
        })
    }
}

/// Turns the node scan under `plan` (looking through filters) into a
/// property scan testing `predicate` when it is pushable for the scanned
/// node and worth it; whether it did (`plan` is unchanged if not).
fn absorb(plan: &mut Op, predicate: &Expr, catalog: &dyn Catalog) -> bool {
    match plan {
        Op::NodeScan { out, labels, .. } => {
            let Some(pushed) = pushable(predicate, *out) else {
                return false;
            };
            if !worth_it(labels, catalog) {
                return false;
            }
            let taken = std::mem::replace(plan, Op::Argument);
            let Op::NodeScan { input, out, labels } = taken else {
                unreachable!("matched a node scan above");
            };
            *plan = Op::NodePropertyScan {
                input,
                out,
                labels,
                predicate: Box::new(pushed),
            };
            true
        }
        Op::Filter { input, .. } => nereid_stack::deeper(|| absorb(input, predicate, catalog)),
        _ => false,
    }
}

/// Whether scanning every node's tuples beats reading the property of each
/// node of `labels` (always, without labels).
fn worth_it(labels: &[String], catalog: &dyn Catalog) -> bool {
    let Some(smallest) = labels.iter().map(|l| catalog.estimate_nodes(Some(l))).min() else {
        return true;
    };
    smallest.saturating_mul(10) >= catalog.estimate_nodes(None)
}
