//! `rel_type_scan`: `MATCH (a)-[r:T]->(b)` with both ends new reads the
//! relationships of `T` from the store by type instead of scanning every
//! node and expanding each (Neo4j's `DirectedRelationshipTypeScan`), and a
//! WHERE conjunct comparing a property of `r` with a literal or parameter
//! (`r.w < 10`, `=`, `<>`, `<=`, `>`, `>=`, `IS NOT NULL`) moves into the
//! scan, where the store tests the stored value before any row exists.
//!
//! Preconditions: an `Expand` (not into, at least one type) straight from a
//! `NodeScan` of its start node. Without labels on that scan the rewrite is
//! always made; with labels (kept as a filter after the scan) only when the
//! catalog's relationship count is known and no larger than the label's
//! node count, so a rare label keeps its index. The rule runs after
//! `filter_pushdown` (which put each conjunct right above the operator
//! binding its slots), `start_from_smaller_end` and `count_from_store`
//! (`count(r)` of the bare shape is answered from counts instead).
//!
//! Only one predicate is pushed; further ones stay filters. The pushed test
//! is the executor's own comparison (so null, NaN, int/float and type
//! mismatches behave exactly as in the filter it replaces).

use super::{transform_up, with_labels, RewriteRule};
use crate::expr::Expr;
use crate::plan::{ExpandSpec, Op};
use crate::property_predicate::pushable;
use crate::Catalog;

pub struct RelTypeScan;

impl RewriteRule for RelTypeScan {
    fn name(&self) -> &'static str {
        "rel_type_scan"
    }

    fn rewrite(&self, plan: Op, catalog: &dyn Catalog) -> Op {
        transform_up(plan, &|op| match op {
            Op::Expand { input, spec } if !spec.into && !spec.types.is_empty() => match *input {
                Op::NodeScan {
                    input: scan_input,
                    out,
                    labels,
                } if out == spec.from && worth_it(&labels, &spec.types, catalog) => {
                    let ExpandSpec {
                        from,
                        rel,
                        to,
                        dir,
                        types,
                        ..
                    } = spec;
                    let scan = Op::RelTypeScan {
                        input: scan_input,
                        from,
                        rel,
                        to,
                        dir,
                        types,
                        predicate: None,
                    };
                    with_labels(scan, from, labels)
                }
                other => Op::Expand {
                    input: Box::new(other),
                    spec,
                },
            },
            Op::Filter {
                mut input,
                predicate,
            } => {
                if absorb(&mut input, &predicate) {
                    *input
                } else {
                    Op::Filter { input, predicate }
                }
            }
            other => other,
        })
    }
}

/// Whether to scan by type from a scan carrying `labels`.
fn worth_it(labels: &[String], types: &[String], catalog: &dyn Catalog) -> bool {
    if labels.is_empty() {
        return true;
    }
    let mut rels = 0u64;
    for t in types {
        match catalog.relationship_statistics(t) {
            Some(stats) => rels = rels.saturating_add(stats.count),
            None => return false,
        }
    }
    let nodes = labels
        .iter()
        .map(|l| catalog.estimate_nodes(Some(l)))
        .min()
        .unwrap_or(u64::MAX);
    rels <= nodes
}

/// Moves `predicate` into the type scan under `plan` (looking through
/// filters) when it tests a property of the scanned relationship and the
/// scan has no predicate yet; whether it did (`plan` is unchanged if not).
fn absorb(plan: &mut Op, predicate: &Expr) -> bool {
    match plan {
        Op::RelTypeScan {
            rel,
            predicate: slot @ None,
            ..
        } => match pushable(predicate, *rel) {
            Some(pushed) => {
                *slot = Some(Box::new(pushed));
                true
            }
            None => false,
        },
        Op::Filter { input, .. } => nereid_stack::deeper(|| absorb(input, predicate)),
        _ => false,
    }
}
