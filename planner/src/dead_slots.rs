//! Dead slots: which slots the rows an `Unwind` or an expand emits need
//! not carry, because no operator above reads them (the pass behind
//! [`Op::Unwind`]'s `dead` and [`ExpandSpec::dead`]); and whether anything
//! above a `LoadCsv` reads its row's `linenumber()` / `file()` (when
//! nothing does, the operator does not fill them).
//!
//! Why: a row carries every slot bound so far, and an operator that emits
//! several rows per input row copies the input row into each of them. A
//! `Value::List` is owned, so `WITH collect(n) AS ns UNWIND ns AS n ...`
//! copied the whole list into every one of its elements' rows (quadratic
//! memory, refused by the query's memory budget where Neo4j answers at
//! once). Once unwound, the list is usually read by nothing above. An
//! expand's rows are the same copies at a smaller price each, paid for
//! every candidate relationship: the first slots of a long pattern are
//! mostly read by nobody after their hop (docs/adr/0119-expands-carry-only-live-slots.md).
//!
//! How: one walk from the root down each input chain, keeping the set of
//! slots read at or above the current operator (plus the plan's outputs).
//! The set only grows on the way down (no operator's writes are taken to
//! end a slot's life), and an operator's reads include every slot it names,
//! everything its nested plans name and the outer slots its pattern
//! expressions read, so the set is a superset of what is really live: a
//! slot is declared dead only when nothing above could read it.
//!
//! Nested plans (`Optional`, `Apply`, `Merge`, `Union`) emit their rows
//! into the enclosing operator's output or have them read by it, so their
//! operators see the enclosing operator's set; the enclosing operator's
//! input sees, besides, everything its nested plan names (its rows are the
//! nested plan's arguments). The plan of a pattern expression
//! (`Expr::PatternList`) is marked once, when it is lowered
//! ([`mark_dead_slots_nested`]), from the slots its projection reads: its
//! rows feed that projection, not an enclosing operator.

use crate::expr::{Expr, Slot};
use crate::plan::{
    CreateItem, ExpandSpec, Op, PhysicalPlan, PropertyTest, SetItem, SortKey, VarExpandSpec,
};

/// Fills the `dead` list of every `Unwind` of `plan` (outside pattern
/// expressions) with the slots its list expression reads and nothing above
/// it does. Only those: every dead slot would make the lists quadratic in
/// the query's length (a chain of thousands of UNWINDs, each with all the
/// earlier variables dead), and the list a row no longer needs is almost
/// always the one just unwound. Fills the `dead` list of every one-hop
/// expand (outside pattern expressions) with every slot nothing above it
/// reads, up to [`EXPAND_DEAD_MAX_SLOTS`] slots. Not of a variable-length
/// expand: it usually starts a pattern, where few slots are bound, and a
/// list there would make every `Op` larger.
pub(crate) fn mark_dead_slots(plan: &mut PhysicalPlan) {
    let mut live = vec![false; plan.slot_count];
    for (_, slot) in &plan.outputs {
        mark(&mut live, *slot);
    }
    mark_chain(&mut plan.root, live);
}

/// [`mark_dead_slots`] for the plan of a pattern expression, whose rows
/// are read by nothing but `projection` (evaluated on each of them; the
/// batched run's position slot lies past every slot the plan names, so it
/// is never dead). Run once the plan is final: a rewrite after it could
/// read a slot an expand below no longer carries.
///
/// Why: a pattern comprehension runs its plan once per outer row (or
/// batch of them), and every candidate row of every hop copied each slot
/// bound before it: the weight comprehensions of SNB IC14 copy the path
/// relationship, both persons and every intermediate message into each of
/// hundreds of candidate rows per relationship.
pub(crate) fn mark_dead_slots_nested(plan: &mut Op, projection: &Expr) {
    let mut named = Vec::new();
    reads_of_plan(plan, &mut named);
    reads_of_expr(projection, &mut named);
    let mut live = vec![false; named.len()];
    reads_of_expr(projection, &mut live);
    mark_chain(plan, live);
}

/// Walks down one input chain from `op` with `live` the slots read above
/// it, recursing (on a guarded stack) only into nested plans.
fn mark_chain(op: &mut Op, mut live: Vec<bool>) {
    let mut current = op;
    loop {
        if let Op::Unwind {
            expr, out, dead, ..
        } = current
        {
            let mut read = Vec::new();
            crate::expr::slots_of(expr, &mut read);
            read.sort_unstable();
            read.dedup();
            read.retain(|&slot| slot != *out && !live.get(slot).copied().unwrap_or(false));
            *dead = read;
        }
        if let Op::LoadCsv { spec, .. } = current {
            // Nothing above reads `linenumber()` / `file()`: not filled.
            let read = |slot: &Slot| live.get(*slot).copied().unwrap_or(false);
            spec.line = spec.line.filter(read);
            spec.file = spec.file.filter(read);
        }
        if let Op::Expand { spec, .. } = current {
            spec.dead = unread(&live);
        }
        if let Op::VarExpand { spec, .. } = current {
            spec.rels_unread = !live.get(spec.rels).copied().unwrap_or(false);
        }
        reads_of_op(current, &mut live);
        if let Some(nested) = current.nested_mut() {
            // The nested plan's rows go to this operator (or past it): what
            // it reads above its own `Unwind`s is marked on its way down.
            nereid_stack::deeper(|| mark_chain(nested, live.clone()));
        }
        // The input's rows are the nested plan's arguments.
        if let Some(nested) = current.nested() {
            nereid_stack::deeper(|| reads_of_plan(nested, &mut live));
        }
        match current.input_mut() {
            Some(input) => current = input,
            None => return,
        }
    }
}

/// Most slots a plan may have for its expands to get `dead` lists: each
/// list can name every slot, and a pattern of thousands of hops has
/// thousands of slots (the lists would grow with the square of its
/// length); such a plan copies its rows whole.
const EXPAND_DEAD_MAX_SLOTS: usize = 512;

/// The slots below `live.len()` that `live` does not mark: an expand's
/// output rows leave them null. Empty past [`EXPAND_DEAD_MAX_SLOTS`].
fn unread(live: &[bool]) -> Vec<Slot> {
    if live.len() > EXPAND_DEAD_MAX_SLOTS {
        return Vec::new();
    }
    (0..live.len()).filter(|&slot| !live[slot]).collect()
}

fn mark(live: &mut Vec<bool>, slot: Slot) {
    if slot >= live.len() {
        live.resize(slot + 1, false);
    }
    live[slot] = true;
}

/// Marks every slot `op` names (read or written: a superset of its reads),
/// without its input and nested plan.
fn reads_of_op(op: &Op, live: &mut Vec<bool>) {
    let exprs = |live: &mut Vec<bool>, es: &[Expr]| es.iter().for_each(|e| reads_of_expr(e, live));
    match op {
        Op::Argument | Op::Eager { .. } | Op::Gather { .. } | Op::Union { .. } => {}
        Op::NodeScan { out, .. }
        | Op::AllNodesScan { out, .. }
        | Op::NodeByLabelScan { out, .. }
        | Op::NodeCountFromStore { out, .. }
        | Op::RelCountFromStore { out, .. } => mark(live, *out),
        Op::NodeIndexMinMax { extremes, .. } => {
            extremes.iter().for_each(|(out, _)| mark(live, *out));
        }
        Op::NodeByIdSeek { out, ids: e, .. }
        | Op::NodeByPropertySeek { out, value: e, .. }
        | Op::Unwind { out, expr: e, .. } => {
            mark(live, *out);
            reads_of_expr(e, live);
        }
        Op::NodeIndexSeek { out, query, .. } => {
            mark(live, *out);
            query
                .expressions()
                .into_iter()
                .for_each(|e| reads_of_expr(e, live));
        }
        Op::RelIndexSeek {
            from,
            rel,
            to,
            query,
            ..
        } => {
            [*from, *rel, *to].into_iter().for_each(|s| mark(live, s));
            query
                .expressions()
                .into_iter()
                .for_each(|e| reads_of_expr(e, live));
        }
        Op::NodePropertyScan { out, predicate, .. } => {
            mark(live, *out);
            if let crate::plan::PropertyTest::Compare { value, .. } = &predicate.test {
                reads_of_expr(value, live);
            }
        }
        Op::RelTypeScan {
            from,
            rel,
            to,
            predicate,
            ..
        } => {
            [*from, *rel, *to].into_iter().for_each(|s| mark(live, s));
            if let Some(crate::plan::PropertyTest::Compare { value, .. }) =
                predicate.as_ref().map(|p| &p.test)
            {
                reads_of_expr(value, live);
            }
        }
        Op::Expand {
            spec:
                ExpandSpec {
                    from,
                    rel,
                    to,
                    far_end_in,
                    far_end_adjacent,
                    far_end_where,
                    ..
                },
            ..
        } => {
            [*from, *rel, *to].into_iter().for_each(|s| mark(live, s));
            far_end_in.iter().for_each(|list| reads_of_expr(list, live));
            far_end_adjacent.iter().for_each(|a| mark(live, a.node));
            for p in far_end_where.iter().flat_map(|tests| tests.iter()) {
                if let PropertyTest::Compare { value, .. } = &p.test {
                    reads_of_expr(value, live);
                }
            }
        }
        Op::VarExpand {
            spec:
                VarExpandSpec {
                    from,
                    rels,
                    to,
                    properties,
                    ..
                },
            ..
        } => {
            [*from, *rels, *to].into_iter().for_each(|s| mark(live, s));
            properties.iter().for_each(|(_, e)| reads_of_expr(e, live));
        }
        Op::Filter { predicate, .. } => reads_of_expr(predicate, live),
        Op::Project { items, .. } => items.iter().for_each(|(slot, e)| {
            mark(live, *slot);
            reads_of_expr(e, live);
        }),
        Op::Aggregate {
            keys, aggregates, ..
        } => {
            keys.iter().for_each(|(slot, e)| {
                mark(live, *slot);
                reads_of_expr(e, live);
            });
            for (slot, aggregate) in aggregates {
                mark(live, *slot);
                aggregate
                    .arg
                    .iter()
                    .chain(&aggregate.percentile)
                    .for_each(|e| reads_of_expr(e, live));
            }
        }
        Op::Distinct { slots, .. } => slots.iter().for_each(|s| mark(live, *s)),
        Op::Sort { keys, .. } => sort_keys(keys, live),
        Op::Top {
            keys, limit, admit, ..
        } => {
            sort_keys(keys, live);
            reads_of_expr(limit, live);
            admit.iter().for_each(|a| reads_of_expr(a, live));
        }
        Op::Skip { count, .. } | Op::Limit { count, .. } => reads_of_expr(count, live),
        Op::Optional { nullable, .. } => nullable.iter().for_each(|s| mark(live, *s)),
        Op::HashJoin { spec, .. } => {
            exprs(live, &spec.left_keys);
            exprs(live, &spec.right_keys);
            spec.right_slots.iter().for_each(|s| mark(live, *s));
        }
        Op::Apply {
            returned,
            transactions,
            ..
        } => {
            returned.iter().for_each(|s| mark(live, *s));
            if let Some(batches) = transactions {
                reads_of_expr(&batches.rows, live);
                batches.status.iter().for_each(|s| mark(live, *s));
            }
        }
        Op::LoadCsv { spec, .. } => {
            mark(live, spec.out);
            for slot in [spec.line, spec.file].into_iter().flatten() {
                mark(live, slot);
            }
            reads_of_expr(&spec.source, live);
        }
        Op::Create { items, .. } => create_items(items, live),
        Op::SetProperties { items, .. } => set_items(items, live),
        Op::Delete { items, .. } => exprs(live, items),
        Op::ProcedureCall {
            args,
            yields,
            filter,
            ..
        } => {
            exprs(live, args);
            filter.iter().for_each(|f| reads_of_expr(f, live));
            yields.iter().for_each(|(_, s)| mark(live, *s));
        }
        Op::ShortestPath { spec, .. } => {
            [spec.from, spec.to, spec.rels]
                .into_iter()
                .chain(spec.path)
                .for_each(|s| mark(live, s));
            spec.predicate.iter().for_each(|e| reads_of_expr(e, live));
            for filter in spec.rel_filters.iter().chain(&spec.node_filters) {
                mark(live, filter.var);
                reads_of_expr(&filter.body, live);
            }
        }
        Op::Merge {
            create,
            on_create,
            on_match,
            ..
        } => {
            create_items(create, live);
            set_items(on_create, live);
            set_items(on_match, live);
        }
    }
}

/// The slots of `outer` that the nested plan of a pattern expression or
/// subquery (`plan`, whose rows `projection` is evaluated on) names: all
/// its `Argument` row must carry. The executor leaves the other outer slots
/// null in that row, so that each row the nested plan emits does not copy
/// the whole outer row (IC14's comprehensions ran once per relationship of
/// each path with the list of all paths in the outer row, and copied it into
/// every comment they expanded). A superset, like every read set here.
pub(crate) fn nested_reads(plan: &Op, projection: &Expr, outer: &[Slot]) -> Vec<Slot> {
    let mut live = Vec::new();
    reads_of_plan(plan, &mut live);
    reads_of_expr(projection, &mut live);
    let mut reads: Vec<Slot> = outer
        .iter()
        .copied()
        .filter(|&slot| live.get(slot).copied().unwrap_or(false))
        .collect();
    reads.sort_unstable();
    reads.dedup();
    reads
}

/// Marks every slot named anywhere in the plan rooted at `op`, nested
/// plans included.
fn reads_of_plan(op: &Op, live: &mut Vec<bool>) {
    let mut current = Some(op);
    while let Some(op) = current {
        reads_of_op(op, live);
        if let Some(nested) = op.nested() {
            nereid_stack::deeper(|| reads_of_plan(nested, live));
        }
        current = op.input();
    }
}

fn sort_keys(keys: &[SortKey], live: &mut Vec<bool>) {
    keys.iter().for_each(|k| reads_of_expr(&k.expr, live));
}

fn create_items(items: &[CreateItem], live: &mut Vec<bool>) {
    for item in items {
        match item {
            CreateItem::Node {
                out,
                dynamic,
                properties,
                ..
            } => {
                mark(live, *out);
                dynamic.iter().for_each(|e| reads_of_expr(e, live));
                properties.iter().for_each(|(_, e)| reads_of_expr(e, live));
            }
            CreateItem::Rel {
                out,
                from,
                to,
                rel_type,
                properties,
            } => {
                [*out, *from, *to].into_iter().for_each(|s| mark(live, s));
                if let crate::plan::RelTypeName::Dynamic(e) = rel_type {
                    reads_of_expr(e, live);
                }
                properties.iter().for_each(|(_, e)| reads_of_expr(e, live));
            }
        }
    }
}

fn set_items(items: &[SetItem], live: &mut Vec<bool>) {
    for item in items {
        match item {
            SetItem::Property { target, value, .. } => {
                reads_of_expr(target, live);
                reads_of_expr(value, live);
            }
            SetItem::ReplaceProperties { target, map }
            | SetItem::MergeProperties { target, map } => {
                reads_of_expr(target, live);
                reads_of_expr(map, live);
            }
            SetItem::AddLabels {
                target, dynamic, ..
            }
            | SetItem::RemoveLabels {
                target, dynamic, ..
            } => {
                reads_of_expr(target, live);
                dynamic.iter().for_each(|e| reads_of_expr(e, live));
            }
        }
    }
}

/// Marks every slot `expr` reads from the row: [`crate::expr::slots_of`],
/// the one definition the rules that move expressions rely on too (a
/// pattern expression reports the outer slots its plan reads).
fn reads_of_expr(expr: &Expr, live: &mut Vec<bool>) {
    let mut read = Vec::new();
    crate::expr::slots_of(expr, &mut read);
    read.into_iter().for_each(|slot| mark(live, slot));
}
