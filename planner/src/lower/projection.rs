//! Lowering of WITH and RETURN: projection, aggregation, DISTINCT,
//! ORDER BY, SKIP and LIMIT.

use super::expr::{contains_aggregate, lower_expr};
use super::scope::{Scope, Slots, VarKind};
use crate::error::PlanError;
use crate::expr::{Expr, Slot};
use crate::plan::{Aggregate, Op, SortKey};
use nereid_cypher::ast::{self, ExprKind, Projection};

/// The result of lowering a projection: the plan, the new scope, and the
/// projected columns in order.
pub(crate) struct Projected {
    pub plan: Op,
    pub scope: Scope,
    pub columns: Vec<(String, Slot)>,
    /// The scope a WITH's WHERE sees: the projected names, and after a
    /// non-aggregating, non-distinct projection also the variables before
    /// it (their slots are still filled), shadowed by the projected names.
    pub where_scope: Scope,
}

pub(crate) fn lower_projection(
    mut plan: Op,
    proj: &Projection,
    scope: &Scope,
    slots: &mut Slots,
) -> Result<Projected, PlanError> {
    let mut new_scope = scope.emptied();
    let mut columns: Vec<(String, Slot)> = Vec::new();
    // `WITH *` with nothing in scope projects no columns but keeps the rows
    // (`MATCH () CREATE () WITH * CREATE ()`); only `RETURN *` needs a
    // variable, which the caller checks.
    if proj.star {
        new_scope.inherit_star_order(scope);
        for (name, slot) in scope.star_columns() {
            let kind = scope.get(&name).map(|(_, k)| k).unwrap_or(VarKind::Value);
            new_scope.bind(&name, slot, kind);
            columns.push((name, slot));
        }
    }

    let aggregating = proj.items.iter().any(|i| contains_aggregate(&i.expr));
    // Lowered item expressions (in the input scope), used to match ORDER BY
    // expressions against projected ones.
    let mut lowered_items: Vec<(Expr, Slot)> = Vec::new();
    // The aggregates computed, so ORDER BY may repeat one (`ORDER BY count(*)`).
    let mut computed: Vec<(Slot, Aggregate)> = Vec::new();

    if aggregating {
        let mut keys: Vec<(Slot, Expr)> = Vec::new();
        let mut aggregates: Vec<(Slot, Aggregate)> = Vec::new();
        let mut post: Vec<(Slot, Expr)> = Vec::new();
        // `RETURN *` columns are grouping keys too.
        for (_, slot) in &columns {
            keys.push((*slot, Expr::Slot(*slot)));
        }
        for item in &proj.items {
            let name = item.column_name().to_string();
            if contains_aggregate(&item.expr) {
                let mut sink = |agg: Aggregate| {
                    let s = slots.fresh();
                    aggregates.push((s, agg));
                    s
                };
                let mut sink_ref: Option<&mut dyn FnMut(Aggregate) -> Slot> = Some(&mut sink);
                let e = lower_expr(&item.expr, scope, &mut sink_ref)?;
                let out = match e {
                    Expr::Slot(s) => s,
                    other => {
                        let s = slots.fresh();
                        post.push((s, other));
                        s
                    }
                };
                columns.push((name.clone(), out));
                new_scope.bind(&name, out, VarKind::Value);
            } else {
                let e = lower_expr(&item.expr, scope, &mut None)?;
                let kind = kind_of(&item.expr, scope);
                let out = slots.fresh();
                lowered_items.push((e.clone(), out));
                keys.push((out, e));
                columns.push((name.clone(), out));
                new_scope.bind(&name, out, kind);
            }
        }
        // An item like `[a] + collect(n)` is finished after the aggregation, where only
        // key and aggregate slots are filled; a grouping-key variable it reads is carried
        // through as a key in its own slot too (same value, so the groups do not change).
        let mut read_after: Vec<Slot> = Vec::new();
        for (_, e) in &post {
            crate::expr::slots_of(e, &mut read_after);
        }
        for item in &proj.items {
            if let ast::ExprKind::Variable(v) = &item.expr.kind {
                if let Some((slot, _)) = scope.get(v) {
                    if read_after.contains(&slot) && !keys.iter().any(|(k, _)| *k == slot) {
                        keys.push((slot, Expr::Slot(slot)));
                    }
                }
            }
        }
        computed = aggregates.clone();
        plan = Op::Aggregate {
            input: Box::new(plan),
            keys,
            aggregates,
        };
        if !post.is_empty() {
            plan = Op::Project {
                input: Box::new(plan),
                items: post,
            };
        }
    } else if !proj.items.is_empty() {
        let mut items = Vec::new();
        for item in &proj.items {
            let name = item.column_name().to_string();
            let e = lower_expr(&item.expr, scope, &mut None)?;
            let kind = kind_of(&item.expr, scope);
            let out = slots.fresh();
            lowered_items.push((e.clone(), out));
            items.push((out, e));
            columns.push((name.clone(), out));
            new_scope.bind(&name, out, kind);
        }
        plan = Op::Project {
            input: Box::new(plan),
            items,
        };
    }
    check_duplicate_columns(&columns, proj)?;

    if proj.distinct {
        plan = Op::Distinct {
            input: Box::new(plan),
            slots: columns.iter().map(|(_, s)| *s).collect(),
        };
    }

    if !proj.order_by.is_empty() {
        let mut keys = Vec::new();
        for item in &proj.order_by {
            let expr = lower_sort_expr(
                &item.expr,
                scope,
                &new_scope,
                &lowered_items,
                aggregating || proj.distinct,
            )
            .or_else(|err| {
                if aggregating {
                    lower_sort_aggregate(&item.expr, scope, &new_scope, &computed).ok_or(err)
                } else {
                    Err(err)
                }
            })?;
            keys.push(SortKey {
                expr,
                ascending: item.ascending,
            });
        }
        plan = Op::Sort {
            input: Box::new(plan),
            keys,
        };
    }
    if let Some(skip) = &proj.skip {
        plan = Op::Skip {
            input: Box::new(plan),
            count: lower_expr(skip, &scope.emptied(), &mut None)?,
        };
    }
    if let Some(limit) = &proj.limit {
        plan = Op::Limit {
            input: Box::new(plan),
            count: lower_expr(limit, &scope.emptied(), &mut None)?,
        };
    }
    let where_scope = if aggregating || proj.distinct {
        new_scope.clone()
    } else {
        shadowed(scope, &new_scope)
    };
    Ok(Projected {
        plan,
        scope: new_scope,
        columns,
        where_scope,
    })
}

/// ORDER BY sees the projected names first; after a non-aggregating,
/// non-distinct projection it may also use the variables before it (their
/// slots are still filled). An expression equal to a projected one reads the
/// projected slot.
fn lower_sort_expr(
    e: &ast::Expr,
    old: &Scope,
    new: &Scope,
    items: &[(Expr, Slot)],
    only_projected: bool,
) -> Result<Expr, PlanError> {
    if let Ok(x) = lower_expr(e, new, &mut None) {
        return Ok(x);
    }
    let in_old = lower_expr(e, old, &mut None)?;
    if let Some((_, slot)) = items.iter().find(|(x, _)| *x == in_old) {
        return Ok(Expr::Slot(*slot));
    }
    if only_projected {
        return Err(PlanError::semantic(
            "In a WITH/RETURN with DISTINCT or an aggregation, it is not possible to access variables declared before the WITH/RETURN",
            e.span.start,
        ));
    }
    lower_expr(e, &shadowed(old, new), &mut None)
}

/// An ORDER BY expression after an aggregating projection that repeats
/// aggregates of the projection, possibly combined with projected names
/// (`ORDER BY age + count(x)`). `None` unless every aggregate is one that was
/// computed and every other slot read is a projected one.
fn lower_sort_aggregate(
    e: &ast::Expr,
    old: &Scope,
    new: &Scope,
    computed: &[(Slot, Aggregate)],
) -> Option<Expr> {
    let mut unknown = false;
    let mut sink = |agg: Aggregate| match computed.iter().find(|(_, a)| *a == agg) {
        Some((slot, _)) => *slot,
        None => {
            unknown = true;
            0
        }
    };
    let mut sink_ref: Option<&mut dyn FnMut(Aggregate) -> Slot> = Some(&mut sink);
    let lowered = lower_expr(e, &shadowed(old, new), &mut sink_ref).ok()?;
    if unknown {
        return None;
    }
    let mut read = Vec::new();
    crate::expr::slots_of(&lowered, &mut read);
    let allowed: Vec<Slot> = new
        .names()
        .map(|(_, s)| s)
        .chain(computed.iter().map(|(s, _)| *s))
        .collect();
    read.iter().all(|s| allowed.contains(s)).then_some(lowered)
}

/// `old` with the names of `new` bound over it (names shadowed by a
/// projection resolve to the new binding).
fn shadowed(old: &Scope, new: &Scope) -> Scope {
    let mut merged = old.clone();
    for (name, slot) in new.names() {
        let kind = new.get(name).map(|(_, k)| k).unwrap_or(VarKind::Value);
        merged.bind(name, slot, kind);
    }
    merged
}

fn kind_of(e: &ast::Expr, scope: &Scope) -> VarKind {
    match &e.kind {
        ExprKind::Variable(name) => scope.get(name).map(|(_, k)| k).unwrap_or(VarKind::Value),
        _ => VarKind::Value,
    }
}

fn check_duplicate_columns(columns: &[(String, Slot)], proj: &Projection) -> Result<(), PlanError> {
    for (i, (name, _)) in columns.iter().enumerate() {
        if columns[..i].iter().any(|(n, _)| n == name) {
            return Err(PlanError::semantic(
                format!("Multiple result columns with the same name are not supported (`{name}`)"),
                proj.span.start,
            ));
        }
    }
    Ok(())
}
