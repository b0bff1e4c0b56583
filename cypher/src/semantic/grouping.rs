//! Aggregating projections: outside its aggregations, an item that aggregates may only use
//! grouping keys, or the result would depend on which row of a group was picked.

use super::expr::{children, contains_aggregation, is_aggregation};
use super::scope::Scope;
use super::Analyzer;
use crate::ast::{Expr, ExprKind, Projection};
use crate::error::{CypherError, Detail};

impl Analyzer<'_> {
    /// `RETURN me.age + count(you)` is ambiguous unless `me` or `me.age` is itself projected.
    /// Only variables and property accesses count as grouping keys that may be repeated
    /// (openCypher: "more complex expressions, even if returned" may not).
    pub(crate) fn check_grouping_keys(
        &self,
        projection: &Projection,
        scope: &Scope,
    ) -> Result<(), CypherError> {
        if scope.open {
            return Ok(());
        }
        let mut keys: Vec<&str> = projection
            .items
            .iter()
            .filter(|item| !contains_aggregation(&item.expr))
            .filter(|item| {
                matches!(
                    item.expr.kind,
                    ExprKind::Variable(_) | ExprKind::Property(..)
                )
            })
            .map(|item| self.text(item.expr.span))
            .collect();
        if projection.star {
            keys.extend(scope.names().map(|(name, _)| name.as_str()));
        }
        for item in &projection.items {
            if !contains_aggregation(&item.expr) {
                continue;
            }
            if let Some(culprit) = self.outside_grouping_keys(&item.expr, &keys) {
                return Err(self.error(
                    Detail::AmbiguousAggregationExpression,
                    &format!(
                        "Aggregation column contains implicit grouping expressions. Illegal expression `{}` in `{}`",
                        self.text(culprit.span),
                        item.text
                    ),
                    culprit.span,
                ));
            }
        }
        Ok(())
    }

    /// The first variable use outside aggregations of `expr` that no grouping key covers.
    fn outside_grouping_keys<'e>(&self, expr: &'e Expr, keys: &[&str]) -> Option<&'e Expr> {
        if is_aggregation(expr) || keys.contains(&self.text(expr.span)) {
            return None;
        }
        match &expr.kind {
            ExprKind::Variable(_) => Some(expr),
            // These bind variables of their own; leave them to the executor.
            ExprKind::ListComprehension { .. }
            | ExprKind::Quantifier { .. }
            | ExprKind::Reduce(_)
            | ExprKind::PatternExpression(_)
            | ExprKind::PatternComprehension { .. }
            | ExprKind::Subquery(..)
            | ExprKind::MapProjection { .. } => None,
            _ => children(expr)
                .into_iter()
                .find_map(|child| nereid_stack::deeper(|| self.outside_grouping_keys(child, keys))),
        }
    }

    /// ORDER BY of an aggregating projection sees only what it produced: each aggregation
    /// must repeat a projected one, and outside aggregations only projected names and simple
    /// grouping keys may be used; repeating a complex projected expression is ambiguous.
    pub(crate) fn check_order_by_grouping(
        &self,
        projection: &Projection,
        produced: &Scope,
    ) -> Result<(), CypherError> {
        if produced.open {
            return Ok(());
        }
        let texts = |aggregating: bool, simple_only: bool| -> Vec<&str> {
            projection
                .items
                .iter()
                .filter(|item| contains_aggregation(&item.expr) == aggregating)
                .filter(|item| {
                    !simple_only
                        || matches!(
                            item.expr.kind,
                            ExprKind::Variable(_) | ExprKind::Property(..)
                        )
                })
                .map(|item| self.text(item.expr.span))
                .collect()
        };
        let known = SortContext {
            aggregates: texts(true, false),
            keys: texts(false, true),
            complex: texts(false, false),
            produced,
        };
        for sort in &projection.order_by {
            if contains_aggregation(&sort.expr) {
                self.check_sort_expr(&sort.expr, &known)?;
            }
        }
        Ok(())
    }

    fn check_sort_expr(&self, expr: &Expr, known: &SortContext<'_>) -> Result<(), CypherError> {
        let text = self.text(expr.span);
        if is_aggregation(expr) {
            if known.aggregates.contains(&text) {
                return Ok(());
            }
            return Err(self.error(
                Detail::UndefinedVariable,
                &format!("Variable `{text}` not defined"),
                expr.span,
            ));
        }
        if known.keys.contains(&text) {
            return Ok(());
        }
        if known.complex.contains(&text) {
            return Err(self.error(
                Detail::AmbiguousAggregationExpression,
                &format!(
                    "Aggregation column contains implicit grouping expressions. Illegal expression `{text}` in ORDER BY"
                ),
                expr.span,
            ));
        }
        match &expr.kind {
            ExprKind::Variable(name) if !known.produced.contains(name) => Err(self.error(
                Detail::UndefinedVariable,
                &format!("Variable `{name}` not defined"),
                expr.span,
            )),
            ExprKind::Variable(_)
            | ExprKind::ListComprehension { .. }
            | ExprKind::Quantifier { .. }
            | ExprKind::Reduce(_)
            | ExprKind::PatternExpression(_)
            | ExprKind::PatternComprehension { .. }
            | ExprKind::Subquery(..)
            | ExprKind::MapProjection { .. } => Ok(()),
            _ => children(expr)
                .into_iter()
                .try_for_each(|child| nereid_stack::deeper(|| self.check_sort_expr(child, known))),
        }
    }
}

/// What an ORDER BY of an aggregating projection may refer to (source texts of items).
struct SortContext<'a> {
    aggregates: Vec<&'a str>,
    keys: Vec<&'a str>,
    complex: Vec<&'a str>,
    produced: &'a Scope,
}
