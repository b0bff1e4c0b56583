//! Expression checks: variables defined, aggregation placement, pattern predicates.

use super::scope::{Scope, VarType};
use super::types;
use super::Analyzer;
use crate::ast::{Expr, ExprKind, MapProjectionItem, PatternElement};
use crate::error::{CypherError, Detail};

/// Whether a function name denotes an aggregate (the function catalogue's
/// aggregating rows, compared case-insensitively).
pub(crate) fn is_aggregate_name(name: &str) -> bool {
    nereid_functions::is_aggregate(name)
}

/// Whether `expr` itself (not its children) is an aggregation.
pub(crate) fn is_aggregation(expr: &Expr) -> bool {
    match &expr.kind {
        ExprKind::CountStar => true,
        ExprKind::FunctionCall { name, .. } => is_aggregate_name(name),
        _ => false,
    }
}

/// Whether `expr` itself is a call of a non-deterministic function (`rand()`).
fn is_random(expr: &Expr) -> bool {
    matches!(&expr.kind, ExprKind::FunctionCall { name, .. } if name.eq_ignore_ascii_case("rand"))
}

/// Whether `expr` contains an aggregation anywhere.
pub(crate) fn contains_aggregation(expr: &Expr) -> bool {
    is_aggregation(expr)
        || children(expr)
            .into_iter()
            .any(|child| nereid_stack::deeper(|| contains_aggregation(child)))
}

/// The direct sub-expressions of `expr`, including property maps inside patterns.
pub(crate) fn children(expr: &Expr) -> Vec<&Expr> {
    match &expr.kind {
        ExprKind::Literal(_)
        | ExprKind::Parameter(_)
        | ExprKind::Variable(_)
        | ExprKind::CountStar => Vec::new(),
        // A subquery's body is checked as a query of its own (`subquery.rs`).
        ExprKind::Subquery(..) => Vec::new(),
        ExprKind::Property(inner, _)
        | ExprKind::Unary(_, inner)
        | ExprKind::IsNull(inner)
        | ExprKind::IsNotNull(inner)
        | ExprKind::HasLabels(inner, _)
        | ExprKind::HasLabelExpr(inner, _) => vec![inner],
        ExprKind::List(items) | ExprKind::FunctionCall { args: items, .. } => {
            items.iter().collect()
        }
        ExprKind::Map(entries) => entries.iter().map(|(_, v)| v).collect(),
        ExprKind::Binary(_, left, right) | ExprKind::Index(left, right) => vec![left, right],
        ExprKind::Case {
            operand,
            whens,
            else_,
        } => operand
            .iter()
            .map(|e| &**e)
            .chain(whens.iter().flat_map(|(w, t)| [w, t]))
            .chain(else_.iter().map(|e| &**e))
            .collect(),
        ExprKind::Slice(list, from, to) => std::iter::once(&**list)
            .chain(from.iter().map(|e| &**e))
            .chain(to.iter().map(|e| &**e))
            .collect(),
        ExprKind::ListComprehension {
            list,
            predicate,
            projection,
            ..
        } => std::iter::once(&**list)
            .chain(predicate.iter().map(|e| &**e))
            .chain(projection.iter().map(|e| &**e))
            .collect(),
        ExprKind::Quantifier {
            list, predicate, ..
        } => vec![list, predicate],
        ExprKind::Reduce(r) => vec![&r.init, &r.list, &r.step],
        ExprKind::PatternExpression(pattern) => pattern_properties(pattern),
        ExprKind::PatternComprehension {
            pattern,
            predicate,
            projection,
            ..
        } => pattern_properties(pattern)
            .into_iter()
            .chain(predicate.iter().map(|e| &**e))
            .chain(std::iter::once(&**projection))
            .collect(),
        ExprKind::MapProjection { items, .. } => items
            .iter()
            .filter_map(|item| match item {
                MapProjectionItem::Literal(_, e) => Some(e),
                _ => None,
            })
            .collect(),
    }
}

/// Property-map expressions of every node and relationship in a pattern element.
fn pattern_properties(pattern: &PatternElement) -> Vec<&Expr> {
    std::iter::once(&pattern.start.properties)
        .chain(
            pattern
                .chain
                .iter()
                .flat_map(|(rel, node)| [&rel.properties, &node.properties]),
        )
        .filter_map(Option::as_ref)
        .collect()
}

/// Where an expression sits, which decides whether aggregation is allowed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum AggregationRule {
    /// Projection items (and ORDER BY of an aggregating projection).
    Allowed,
    /// Everywhere else (WHERE, SKIP/LIMIT, patterns, updates, UNWIND, ...).
    Forbidden,
}

impl Analyzer<'_> {
    /// Checks `expr` against `scope`.
    pub(crate) fn check_expr(
        &self,
        expr: &Expr,
        scope: &Scope,
        rule: AggregationRule,
    ) -> Result<(), CypherError> {
        self.check_expr_in(expr, scope, rule, false)
    }

    /// The recursive walk. Left-deep chains (`a OR b OR c ...`, `x.a.b.c ...`) are walked
    /// along their left spine in a loop, so their length costs no stack; only genuine nesting
    /// (bounded by the parser) recurses. Errors still come out in left-to-right order.
    fn check_expr_in(
        &self,
        expr: &Expr,
        scope: &Scope,
        rule: AggregationRule,
        inside_aggregate: bool,
    ) -> Result<(), CypherError> {
        let mut spine = Vec::new();
        let mut current = expr;
        while let ExprKind::Binary(_, left, _) | ExprKind::Property(left, _) = &current.kind {
            spine.push(current);
            current = left;
        }
        // Aggregation placement is checked top-down, as a plain recursion would.
        let mut inside = inside_aggregate;
        for node in &spine {
            inside = self.check_aggregation_placement(node, rule, inside)?;
        }
        self.check_leaf(current, scope, rule, inside)?;
        for node in spine.iter().rev() {
            if let ExprKind::Binary(_, _, right) = &node.kind {
                nereid_stack::deeper(|| self.check_expr_in(right, scope, rule, inside))?;
            }
            self.check_argument_types(node, scope)?;
        }
        Ok(())
    }

    /// Checks an expression that is neither a binary operation nor a property access.
    #[inline(never)]
    fn check_leaf(
        &self,
        expr: &Expr,
        scope: &Scope,
        rule: AggregationRule,
        inside_aggregate: bool,
    ) -> Result<(), CypherError> {
        let inside_aggregate = self.check_aggregation_placement(expr, rule, inside_aggregate)?;
        if inside_aggregate && is_random(expr) {
            // An aggregate over a random value has no stable meaning (and would defeat
            // grouping), so openCypher rejects it before running.
            return Err(self.error(
                Detail::NonConstantExpression,
                "Can't use non-deterministic (random) functions inside of aggregate functions.",
                expr.span,
            ));
        }
        self.check_leaf_kind(expr, scope, rule, inside_aggregate)?;
        self.check_argument_types(expr, scope)
    }

    #[inline(never)]
    fn check_leaf_kind(
        &self,
        expr: &Expr,
        scope: &Scope,
        rule: AggregationRule,
        inside_aggregate: bool,
    ) -> Result<(), CypherError> {
        match &expr.kind {
            ExprKind::Variable(name) => self.check_variable(name, expr, scope),
            ExprKind::Subquery(_, query) => self.check_subquery(query, scope),
            ExprKind::ListComprehension { .. }
            | ExprKind::Quantifier { .. }
            | ExprKind::Reduce { .. }
            | ExprKind::PatternExpression(_)
            | ExprKind::PatternComprehension { .. }
            | ExprKind::MapProjection { .. } => {
                self.check_binding_expr(expr, scope, rule, inside_aggregate)
            }
            _ => self.check_children(expr, scope, rule, inside_aggregate),
        }
    }

    #[inline(never)]
    fn check_children(
        &self,
        expr: &Expr,
        scope: &Scope,
        rule: AggregationRule,
        inside_aggregate: bool,
    ) -> Result<(), CypherError> {
        for child in children(expr) {
            self.check_expr_in(child, scope, rule, inside_aggregate)?;
        }
        Ok(())
    }

    #[inline(never)]
    fn check_variable(&self, name: &str, expr: &Expr, scope: &Scope) -> Result<(), CypherError> {
        if scope.contains(name) {
            Ok(())
        } else {
            Err(self.error(
                Detail::UndefinedVariable,
                &format!("Variable `{name}` not defined"),
                expr.span,
            ))
        }
    }

    /// Rejects aggregations where they are not allowed; returns whether the walk is now
    /// inside an aggregation.
    #[inline(never)]
    fn check_aggregation_placement(
        &self,
        expr: &Expr,
        rule: AggregationRule,
        inside_aggregate: bool,
    ) -> Result<bool, CypherError> {
        if !is_aggregation(expr) {
            return Ok(inside_aggregate);
        }
        if inside_aggregate {
            return Err(self.error(
                Detail::NestedAggregation,
                "Can't use aggregate functions inside of aggregate functions.",
                expr.span,
            ));
        }
        if rule == AggregationRule::Forbidden {
            let name = match &expr.kind {
                ExprKind::FunctionCall { name, .. } => name.as_str(),
                _ => "count",
            };
            return Err(self.error(
                Detail::InvalidAggregation,
                &format!("Invalid use of aggregating function {name}(...) in this context"),
                expr.span,
            ));
        }
        Ok(true)
    }

    /// Expressions that bind their own variables or constrain pattern variables.
    #[inline(never)]
    fn check_binding_expr(
        &self,
        expr: &Expr,
        scope: &Scope,
        rule: AggregationRule,
        inside_aggregate: bool,
    ) -> Result<(), CypherError> {
        match &expr.kind {
            ExprKind::ListComprehension {
                variable,
                list,
                predicate,
                projection,
            } => {
                self.check_expr_in(list, scope, rule, inside_aggregate)?;
                let mut inner = scope.clone();
                inner.bind(&variable.name, types::element_type(list, scope));
                // The body runs once per element: aggregating there has no meaning.
                for e in predicate.iter().chain(projection.iter()) {
                    self.check_expr_in(e, &inner, AggregationRule::Forbidden, inside_aggregate)?;
                }
                Ok(())
            }
            ExprKind::Quantifier {
                variable,
                list,
                predicate,
                ..
            } => {
                self.check_expr_in(list, scope, rule, inside_aggregate)?;
                let mut inner = scope.clone();
                inner.bind(&variable.name, types::element_type(list, scope));
                self.check_expr_in(
                    predicate,
                    &inner,
                    AggregationRule::Forbidden,
                    inside_aggregate,
                )
            }
            ExprKind::Reduce(r) => {
                self.check_expr_in(&r.init, scope, rule, inside_aggregate)?;
                self.check_expr_in(&r.list, scope, rule, inside_aggregate)?;
                let mut inner = scope.clone();
                inner.bind(&r.accumulator.name, VarType::Value);
                inner.bind(&r.variable.name, types::element_type(&r.list, scope));
                self.check_expr_in(
                    &r.step,
                    &inner,
                    AggregationRule::Forbidden,
                    inside_aggregate,
                )
            }
            ExprKind::PatternExpression(pattern) => {
                self.check_pattern_predicate(pattern, scope)?;
                for e in pattern_properties(pattern) {
                    self.check_expr_in(e, scope, rule, inside_aggregate)?;
                }
                Ok(())
            }
            ExprKind::PatternComprehension {
                variable,
                pattern,
                predicate,
                projection,
            } => {
                let mut inner = scope.clone();
                self.bind_comprehension_pattern(pattern, &mut inner)?;
                if let Some(path) = variable {
                    inner.bind(&path.name, VarType::Path);
                }
                for e in pattern_properties(pattern) {
                    self.check_expr_in(e, &inner, rule, inside_aggregate)?;
                }
                for e in predicate.iter().chain(std::iter::once(projection)) {
                    self.check_expr_in(e, &inner, rule, inside_aggregate)?;
                }
                Ok(())
            }
            ExprKind::MapProjection { variable, items } => {
                if !scope.contains(&variable.name) {
                    return Err(self.error(
                        Detail::UndefinedVariable,
                        &format!("Variable `{}` not defined", variable.name),
                        variable.span,
                    ));
                }
                for item in items {
                    match item {
                        MapProjectionItem::Variable(v) if !scope.contains(&v.name) => {
                            return Err(self.error(
                                Detail::UndefinedVariable,
                                &format!("Variable `{}` not defined", v.name),
                                v.span,
                            ));
                        }
                        MapProjectionItem::Literal(_, e) => {
                            self.check_expr_in(e, scope, rule, inside_aggregate)?
                        }
                        _ => {}
                    }
                }
                Ok(())
            }
            _ => self.check_children(expr, scope, rule, inside_aggregate),
        }
    }

    /// A pattern used as a predicate may only mention variables that are already bound.
    fn check_pattern_predicate(
        &self,
        pattern: &PatternElement,
        scope: &Scope,
    ) -> Result<(), CypherError> {
        let nodes = std::iter::once(&pattern.start).chain(pattern.chain.iter().map(|(_, n)| n));
        let node_vars = nodes.filter_map(|n| n.variable.as_ref());
        let rel_vars = pattern
            .chain
            .iter()
            .filter_map(|(r, _)| r.variable.as_ref());
        for variable in node_vars.chain(rel_vars) {
            if !scope.contains(&variable.name) {
                return Err(self.error(
                    Detail::UndefinedVariable,
                    &format!(
                        "PatternExpressions are not allowed to introduce new variables: '{}'.",
                        variable.name
                    ),
                    variable.span,
                ));
            }
        }
        Ok(())
    }

    /// Binds the new variables of a pattern comprehension into its local scope, checking
    /// that reused ones have a compatible type.
    fn bind_comprehension_pattern(
        &self,
        pattern: &PatternElement,
        scope: &mut Scope,
    ) -> Result<(), CypherError> {
        if let Some(v) = &pattern.start.variable {
            self.bind_typed(scope, v, VarType::Node)?;
        }
        for (rel, node) in &pattern.chain {
            if let Some(v) = &rel.variable {
                let ty = if rel.length.is_some() {
                    VarType::RelationshipList
                } else {
                    VarType::Relationship
                };
                self.bind_typed(scope, v, ty)?;
            }
            if let Some(v) = &node.variable {
                self.bind_typed(scope, v, VarType::Node)?;
            }
        }
        Ok(())
    }
}
