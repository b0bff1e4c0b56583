//! A GQL label expression (`:A|B`, `:!A`, `:%`, `:(A&$(x))`) as a predicate
//! on a bound node or relationship, built from the predicates a plain
//! label test and a dynamic name already use, so the executor and the
//! rules see nothing new but `:%`.

use super::expr::lower_expr;
use super::scope::Scope;
use crate::error::PlanError;
use crate::expr::{BinaryOp, Expr};
use nereid_cypher::ast::{DynamicNames, LabelExpr};

/// `entity` satisfies `labels`. Recursion follows the expression's depth,
/// which the parser bounds.
pub(crate) fn label_test(
    entity: &Expr,
    labels: &LabelExpr,
    scope: &Scope,
) -> Result<Expr, PlanError> {
    Ok(match labels {
        LabelExpr::Name(name) => Expr::HasLabels {
            expr: Box::new(entity.clone()),
            labels: vec![name.clone()],
        },
        LabelExpr::Dynamic(names) => dynamic_test(entity, names, scope)?,
        LabelExpr::Wildcard => Expr::HasAnyLabel(Box::new(entity.clone())),
        LabelExpr::Not(inner) => Expr::Not(Box::new(label_test(entity, inner, scope)?)),
        LabelExpr::And(items) => fold(entity, items, BinaryOp::And, scope)?,
        LabelExpr::Or(items) => fold(entity, items, BinaryOp::Or, scope)?,
    })
}

/// `entity` carries the names `names` evaluates to (ADR 0133).
pub(crate) fn dynamic_test(
    entity: &Expr,
    names: &DynamicNames,
    scope: &Scope,
) -> Result<Expr, PlanError> {
    Ok(Expr::HasDynamicNames {
        expr: Box::new(entity.clone()),
        names: Box::new(lower_expr(&names.expr, scope, &mut None)?),
        any: names.any,
    })
}

fn fold(
    entity: &Expr,
    items: &[LabelExpr],
    op: BinaryOp,
    scope: &Scope,
) -> Result<Expr, PlanError> {
    let mut tests = items.iter().map(|item| label_test(entity, item, scope));
    let first = tests
        .next()
        .expect("a label expression list has two items or more")?;
    tests.try_fold(first, |lhs, rhs| {
        Ok(Expr::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs?),
        })
    })
}
