//! WITH / RETURN: aliases, duplicate columns, `*`, ORDER BY scope, SKIP / LIMIT values.

use super::expr::{contains_aggregation, AggregationRule};
use super::pattern_placement::Position;
use super::scope::Scope;
use super::types::infer;
use super::Analyzer;
use crate::ast::{Expr, ExprKind, Literal, Projection};
use crate::error::{CypherError, Detail};

impl Analyzer<'_> {
    /// Checks a projection evaluated in `scope`; returns the scope it produces and its column
    /// names (in output order).
    pub(crate) fn check_projection(
        &self,
        projection: &Projection,
        scope: &Scope,
        clause: &str,
    ) -> Result<(Scope, Vec<String>), CypherError> {
        if clause == "RETURN" && projection.star && scope.is_empty() && !scope.open {
            return Err(self.error(
                Detail::NoVariablesInScope,
                &format!("{clause} * is not allowed when there are no variables in scope"),
                projection.span,
            ));
        }
        let mut columns: Vec<String> = Vec::new();
        let mut produced = Scope::default();
        produced.open = scope.open;
        if projection.star {
            for (name, ty) in scope.names() {
                columns.push(name.clone());
                produced.bind(name, *ty);
            }
        }
        for item in &projection.items {
            self.check_expr(&item.expr, scope, AggregationRule::Allowed)?;
            self.check_pattern_placement(&item.expr, Position::Value)?;
            let is_variable = matches!(item.expr.kind, ExprKind::Variable(_));
            if clause == "WITH" && item.alias.is_none() && !is_variable {
                return Err(self.error(
                    Detail::NoExpressionAlias,
                    "Expression in WITH must be aliased (use AS)",
                    item.expr.span,
                ));
            }
            let name = item.column_name().to_string();
            if columns.contains(&name) {
                let span = item.alias.as_ref().map_or(item.expr.span, |a| a.span);
                return Err(self.error(
                    Detail::ColumnNameConflict,
                    "Multiple result columns with the same name are not supported",
                    span,
                ));
            }
            produced.bind(&name, infer(&item.expr, scope));
            columns.push(name);
        }

        let aggregating = projection
            .items
            .iter()
            .any(|item| contains_aggregation(&item.expr));
        if aggregating {
            self.check_grouping_keys(projection, scope)?;
        }
        self.check_order_by(projection, scope, &produced, aggregating)?;
        if aggregating {
            self.check_order_by_grouping(projection, &produced)?;
        }
        for (keyword, expr) in [("SKIP", &projection.skip), ("LIMIT", &projection.limit)] {
            if let Some(expr) = expr {
                self.check_row_count(keyword, expr)?;
            }
        }
        Ok((produced, columns))
    }

    /// ORDER BY sees the projected names and, unless the projection is DISTINCT, also the
    /// variables from before (grouping keys and aggregate arguments may be repeated there).
    /// Under DISTINCT only items whose text repeats a projected expression may use them.
    fn check_order_by(
        &self,
        projection: &Projection,
        before: &Scope,
        produced: &Scope,
        aggregating: bool,
    ) -> Result<(), CypherError> {
        let restricted = projection.distinct;
        let visible = if restricted {
            produced.clone()
        } else {
            overlay(before, produced)
        };
        let rule = if aggregating {
            AggregationRule::Allowed
        } else {
            AggregationRule::Forbidden
        };
        for sort in &projection.order_by {
            let text = self.text(sort.expr.span);
            if restricted && projection.items.iter().any(|item| item.text == text) {
                continue;
            }
            self.check_expr(&sort.expr, &visible, rule)?;
            self.check_pattern_placement(&sort.expr, Position::Value)?;
        }
        Ok(())
    }

    /// SKIP / LIMIT take no variables, and literal values must be non-negative integers.
    fn check_row_count(&self, keyword: &str, expr: &Expr) -> Result<(), CypherError> {
        if let Err(error) = self.check_expr(expr, &Scope::default(), AggregationRule::Forbidden) {
            if error.detail == Some(Detail::UndefinedVariable) {
                return Err(self.error(
                    Detail::NonConstantExpression,
                    &format!("It is not allowed to refer to variables in {keyword}"),
                    expr.span,
                ));
            }
            return Err(error);
        }
        // Neo4j quotes the value: a string's text, `NULL` in capitals.
        let (detail, shown) = match &expr.kind {
            ExprKind::Literal(Literal::Integer(n)) if *n < 0 => (
                Detail::NegativeIntegerArgument,
                self.text(expr.span).to_string(),
            ),
            ExprKind::Literal(Literal::Float(_) | Literal::Bool(_)) => (
                Detail::InvalidArgumentType,
                self.text(expr.span).to_string(),
            ),
            ExprKind::Literal(Literal::String(text)) => (Detail::InvalidArgumentType, text.clone()),
            ExprKind::Literal(Literal::Null) => (Detail::InvalidArgumentType, "NULL".to_string()),
            _ => return Ok(()),
        };
        Err(self.error(
            detail,
            &format!(
                "Invalid input. '{shown}' is not a valid value. Must be a non-negative integer."
            ),
            expr.span,
        ))
    }
}

/// `below` with the bindings of `above` added on top (shadowing same names).
pub(crate) fn overlay(below: &Scope, above: &Scope) -> Scope {
    let mut merged = below.clone();
    for (name, ty) in above.names() {
        merged.bind(name, *ty);
    }
    merged.open = below.open || above.open;
    merged
}
