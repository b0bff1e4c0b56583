//! `node_index_seek`: a node scan under filters that an online property
//! index can answer (module `index_predicate`: equalities or `IN` on a
//! prefix of the index's keys, then a range, a prefix, `ENDS WITH` /
//! `CONTAINS` on a text index, or presence) reads the index instead of
//! every node of the label: `MATCH (m:Message {id: $id})` becomes one
//! probe where a scan of every message used to be (issue 23).
//!
//! The seek is exact for the conditions it was given (the store decides
//! each candidate with Cypher's own comparisons, and the executor falls
//! back to the label scan plus the same test when the store cannot), so
//! those conjuncts are dropped; the others stay filters above it, as do
//! the scan's other labels.
//!
//! `USING INDEX n:L(p)` limits the choice for `n` to that index, `USING
//! SCAN n:L` to none (whether a hint was honoured is checked after the
//! rules, in `crate::plan`).
//!
//! Preconditions: the filters lie right above the scan (`filter_pushdown`
//! put them there). Runs after `id_seek` (a seek by id names fewer nodes)
//! and before `property_seek` and `node_property_scan`, which handle what
//! no index covers.

use super::{indexes_of, peel_filters, walk_children, wrap_filters, RewriteRule};
use crate::index_predicate::{choose, condition};
use crate::index_query::{allowed_for, IndexDescriptor, IndexEntity, IndexHint};
use crate::plan::Op;
use crate::Catalog;

pub struct NodeIndexSeek;

impl RewriteRule for NodeIndexSeek {
    fn name(&self) -> &'static str {
        "node_index_seek"
    }

    fn rewrite(&self, plan: Op, catalog: &dyn Catalog) -> Op {
        let indexes = indexes_of(catalog, IndexEntity::Node);
        if indexes.is_empty() {
            return plan;
        }
        walk(plan, &indexes, &catalog.hints())
    }
}

/// Top-down, so that a scan is seen with every filter above it at once.
fn walk(plan: Op, indexes: &[IndexDescriptor], hints: &[IndexHint]) -> Op {
    let recurse = |p: Op| walk(p, indexes, hints);
    if !matches!(plan, Op::Filter { .. } | Op::NodeScan { .. }) {
        return walk_children(plan, &recurse);
    }
    let (filters, core) = peel_filters(plan);
    let Op::NodeScan { input, out, labels } = core else {
        return wrap_filters(walk_children(core, &recurse), filters);
    };
    let input = Box::new(nereid_stack::deeper(|| walk(*input, indexes, hints)));
    let conditions: Vec<_> = filters.iter().map(|f| condition(f, out, &[out])).collect();
    let allowed = allowed_for(indexes, hints, out);
    let Some(choice) = choose(&allowed, IndexEntity::Node, &labels, &conditions) else {
        return wrap_filters(Op::NodeScan { input, out, labels }, filters);
    };
    let others: Vec<String> = labels
        .into_iter()
        .filter(|l| *l != choice.query.index.label)
        .collect();
    let seek = Op::NodeIndexSeek {
        input,
        out,
        labels: others,
        query: Box::new(choice.query),
    };
    let kept = filters
        .into_iter()
        .enumerate()
        .filter(|(i, _)| !choice.answered.contains(i))
        .map(|(_, f)| f)
        .collect();
    wrap_filters(seek, kept)
}
