//! `rel_index_seek`: `MATCH (a)-[r:T]->(b) WHERE r.p = $x` with both ends
//! new reads the relationships of `T` that a relationship property index
//! finds instead of scanning nodes and expanding each (or scanning every
//! relationship of the type): Neo4j's `DirectedRelationshipIndexSeek`,
//! `UndirectedRelationshipIndexSeekByRange`, ... The conditions an index
//! answers are those of `index_predicate`, as for nodes.
//!
//! Shape matched (after `filter_pushdown`, `start_from_smaller_end`):
//! `Filter*` over `Expand a-[r:T]-b` (not into, exactly one type) over a
//! `NodeScan a`. The seek binds `a`, `r` and `b`, so condition values may
//! read none of them; `a`'s labels become a filter after the seek. `USING
//! INDEX r:T(p)` limits the choice to that index. Runs
//! before `rel_type_scan`, which takes the shape when no index serves it.

use super::{indexes_of, peel_filters, walk_children, wrap_filters, RewriteRule};
use crate::expr::Expr;
use crate::index_predicate::{choose, condition};
use crate::index_query::{allowed_for, IndexDescriptor, IndexEntity, IndexHint};
use crate::plan::Op;
use crate::Catalog;

pub struct RelIndexSeek;

impl RewriteRule for RelIndexSeek {
    fn name(&self) -> &'static str {
        "rel_index_seek"
    }

    fn rewrite(&self, plan: Op, catalog: &dyn Catalog) -> Op {
        let indexes = indexes_of(catalog, IndexEntity::Relationship);
        if indexes.is_empty() {
            return plan;
        }
        walk(plan, &indexes, &catalog.hints())
    }
}

fn walk(plan: Op, indexes: &[IndexDescriptor], hints: &[IndexHint]) -> Op {
    let recurse = |p: Op| walk(p, indexes, hints);
    if !matches!(plan, Op::Filter { .. } | Op::Expand { .. }) {
        return walk_children(plan, &recurse);
    }
    let (filters, core) = peel_filters(plan);
    let core = walk_children(core, &recurse);
    let Op::Expand { input, spec } = core else {
        return wrap_filters(core, filters);
    };
    let (from, rel, to, dir) = (spec.from, spec.rel, spec.to, spec.dir);
    let scan_of_from = matches!(&*input, Op::NodeScan { out, .. } if *out == from);
    if spec.into || spec.types.len() != 1 || !scan_of_from || from == to {
        return wrap_filters(Op::Expand { input, spec }, filters);
    }
    let bound = [from, rel, to];
    let conditions: Vec<_> = filters.iter().map(|f| condition(f, rel, &bound)).collect();
    let allowed = allowed_for(indexes, hints, rel);
    let Some(choice) = choose(
        &allowed,
        IndexEntity::Relationship,
        &spec.types,
        &conditions,
    ) else {
        return wrap_filters(Op::Expand { input, spec }, filters);
    };
    let Op::NodeScan {
        input: base,
        labels,
        ..
    } = *input
    else {
        unreachable!("checked to be the scan of `from`");
    };
    let mut kept: Vec<Expr> = Vec::new();
    if !labels.is_empty() {
        kept.push(Expr::HasLabels {
            expr: Box::new(Expr::Slot(from)),
            labels,
        });
    }
    kept.extend(
        filters
            .into_iter()
            .enumerate()
            .filter(|(i, _)| !choice.answered.contains(i))
            .map(|(_, f)| f),
    );
    let seek = Op::RelIndexSeek {
        input: base,
        from,
        rel,
        to,
        dir,
        query: Box::new(choice.query),
    };
    wrap_filters(seek, kept)
}
