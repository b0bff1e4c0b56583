//! Pattern checks for MATCH, CREATE and MERGE: binding variables with consistent types, and
//! the extra rules for patterns that create data.

use super::expr::AggregationRule;
use super::pattern_placement::Position;
use super::scope::{Scope, VarType};
use super::Analyzer;
use crate::ast::{Ident, NodePattern, PatternPart, RelPattern};
use crate::error::{CypherError, Detail};
use nereid_values::Direction;

/// What the pattern is used for.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum PatternUse {
    Match,
    Create,
    Merge,
}

impl Analyzer<'_> {
    /// Binds `variable` as `ty`, or checks that an existing binding has a compatible type.
    pub(crate) fn bind_typed(
        &self,
        scope: &mut Scope,
        variable: &Ident,
        ty: VarType,
    ) -> Result<(), CypherError> {
        match scope.get(&variable.name) {
            None => {
                scope.bind(&variable.name, ty);
                Ok(())
            }
            Some(existing) if existing == ty || existing == VarType::Value => Ok(()),
            // A list bound earlier (`WITH [r1, r2] AS rs MATCH ()-[rs*]->()`) may hold the
            // relationships a variable-length pattern must follow; the match checks it.
            Some(VarType::List) if ty == VarType::RelationshipList => Ok(()),
            Some(existing) => Err(self.error(
                Detail::VariableTypeConflict,
                &format!(
                    "Type mismatch: {} defined with conflicting type {} (expected {})",
                    variable.name,
                    existing.describe(),
                    ty.describe()
                ),
                variable.span,
            )),
        }
    }

    /// Checks the pattern parts of one clause and binds their variables into `scope`.
    /// Property expressions are checked after all variables of the clause are bound, so
    /// `(a)-->(b {name: a.name})` is fine.
    pub(crate) fn check_pattern(
        &self,
        parts: &[PatternPart],
        scope: &mut Scope,
        usage: PatternUse,
    ) -> Result<(), CypherError> {
        let before = scope.clone();
        let mut rel_vars: Vec<&str> = Vec::new();
        for part in parts {
            if let Some(path) = &part.variable {
                if scope.get(&path.name).is_some() {
                    return Err(self.error(
                        Detail::VariableAlreadyBound,
                        &format!("Variable `{}` already declared", path.name),
                        path.span,
                    ));
                }
            }
            let element = &part.element;
            if usage != PatternUse::Match && element.chain.is_empty() {
                if let Some(v) = &element.start.variable {
                    let bare = element.start.labels.is_empty()
                        && element.start.dynamic_labels.is_empty()
                        && element.start.label_filters.is_empty()
                        && element.start.properties.is_none();
                    if before.get(&v.name).is_some() && bare {
                        return Err(self.error(
                            Detail::VariableAlreadyBound,
                            &format!("Variable `{}` already declared", v.name),
                            v.span,
                        ));
                    }
                }
            }
            self.bind_node(&element.start, scope, usage)?;
            for (rel, node) in &element.chain {
                self.check_rel(rel, scope, &before, usage, &mut rel_vars)?;
                self.bind_node(node, scope, usage)?;
            }
            if let Some(path) = &part.variable {
                // `p = (p)-->()`: the path's own elements may not reuse its name.
                if scope.get(&path.name).is_some() {
                    return Err(self.error(
                        Detail::VariableAlreadyBound,
                        &format!("Variable `{}` already declared", path.name),
                        path.span,
                    ));
                }
                scope.bind(&path.name, VarType::Path);
            }
        }
        for part in parts {
            let element = &part.element;
            self.check_parameter_maps(element, usage)?;
            let nodes = std::iter::once(&element.start).chain(element.chain.iter().map(|(_, n)| n));
            let props = nodes
                .map(|n| &n.properties)
                .chain(element.chain.iter().map(|(r, _)| &r.properties));
            for expr in props.flatten() {
                self.check_expr(expr, scope, AggregationRule::Forbidden)?;
                self.check_pattern_placement(expr, Position::Value)?;
            }
            for dynamic in dynamic_names(element) {
                self.check_dynamic_names(&dynamic.expr, scope)?;
            }
        }
        Ok(())
    }

    /// The expression of `:$(expr)`: variables in scope, and a literal that
    /// can never name a label or type refused before anything runs, with
    /// Neo4j's messages.
    pub(super) fn check_dynamic_names(
        &self,
        expr: &crate::ast::Expr,
        scope: &Scope,
    ) -> Result<(), CypherError> {
        use crate::ast::{ExprKind, Literal};
        self.check_expr(expr, scope, AggregationRule::Forbidden)?;
        self.check_pattern_placement(expr, Position::Value)?;
        let invalid_token = |shown: &str| {
            self.error(
                Detail::InvalidArgumentType,
                &format!(
                    "{shown} is not a valid token name. Token names cannot be empty or contain any null-bytes."
                ),
                expr.span,
            )
        };
        let literals: Vec<&crate::ast::Expr> = match &expr.kind {
            ExprKind::List(items) => items.iter().collect(),
            _ => vec![expr],
        };
        for item in literals {
            match &item.kind {
                ExprKind::Literal(Literal::Null) => return Err(invalid_token("Null")),
                ExprKind::Literal(Literal::String(s)) if s.is_empty() => {
                    return Err(invalid_token("''"))
                }
                ExprKind::Literal(Literal::String(_)) => {}
                ExprKind::Literal(other) if std::ptr::eq(item, expr) => {
                    let kind = match other {
                        Literal::Integer(_) => "Integer",
                        Literal::Float(_) => "Float",
                        _ => "Boolean",
                    };
                    return Err(self.error(
                        Detail::InvalidArgumentType,
                        &format!("Type mismatch: expected String or List<String> but was {kind}"),
                        expr.span,
                    ));
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// `(n $map)` is only meaningful when creating; matching needs literal keys.
    fn check_parameter_maps(
        &self,
        element: &crate::ast::PatternElement,
        usage: PatternUse,
    ) -> Result<(), CypherError> {
        if usage == PatternUse::Create {
            return Ok(());
        }
        let verb = if usage == PatternUse::Match {
            "MATCH"
        } else {
            "MERGE"
        };
        let nodes = std::iter::once(&element.start).chain(element.chain.iter().map(|(_, n)| n));
        let props = nodes
            .map(|n| &n.properties)
            .chain(element.chain.iter().map(|(r, _)| &r.properties));
        for expr in props.flatten() {
            if matches!(expr.kind, crate::ast::ExprKind::Parameter(_)) {
                return Err(self.error(
                    Detail::InvalidParameterUse,
                    &format!(
                        "Parameter maps cannot be used in `{verb}` patterns (use a literal map instead, e.g. `{{id: $param.id}}`)"
                    ),
                    expr.span,
                ));
            }
        }
        Ok(())
    }

    fn bind_node(
        &self,
        node: &NodePattern,
        scope: &mut Scope,
        usage: PatternUse,
    ) -> Result<(), CypherError> {
        if usage != PatternUse::Match && !node.label_filters.is_empty() {
            return Err(self.error(
                Detail::UnexpectedSyntax,
                &label_expression_refusal(usage),
                node.span,
            ));
        }
        let Some(variable) = &node.variable else {
            return Ok(());
        };
        let decorated =
            !node.labels.is_empty() || !node.dynamic_labels.is_empty() || node.properties.is_some();
        if usage != PatternUse::Match && decorated && scope.get(&variable.name).is_some() {
            return Err(self.error(
                Detail::VariableAlreadyBound,
                &format!(
                    "Can't create node `{}` with labels or properties here. The variable is already declared in this context",
                    variable.name
                ),
                variable.span,
            ));
        }
        self.bind_typed(scope, variable, VarType::Node)
    }

    fn check_rel<'p>(
        &self,
        rel: &'p RelPattern,
        scope: &mut Scope,
        before: &Scope,
        usage: PatternUse,
        rel_vars: &mut Vec<&'p str>,
    ) -> Result<(), CypherError> {
        if usage != PatternUse::Match {
            let verb = if usage == PatternUse::Create {
                "CREATE"
            } else {
                "MERGE"
            };
            // A bound relationship cannot be created again, whatever else is wrong with it.
            if let Some(v) = &rel.variable {
                if before.get(&v.name).is_some() {
                    return Err(self.error(
                        Detail::VariableAlreadyBound,
                        &format!(
                            "Can't create relationship `{}`: the variable is already declared in this context",
                            v.name
                        ),
                        v.span,
                    ));
                }
            }
            if rel.type_filter.is_some() {
                return Err(self.error(
                    Detail::NoSingleRelationshipType,
                    &format!(
                        "Relationship type expressions in patterns are not allowed in a {verb} clause, but only in a MATCH clause"
                    ),
                    rel.span,
                ));
            }
            // `:$(['A', 'B'])` written out names other than one type.
            if let Some(dynamic) = &rel.dynamic_type {
                if let crate::ast::ExprKind::List(items) = &dynamic.expr.kind {
                    if items.len() != 1 {
                        return Err(self.error(
                            Detail::NoSingleRelationshipType,
                            &format!("A single relationship type must be specified for {verb}"),
                            rel.span,
                        ));
                    }
                }
            }
            if rel.types.len() + usize::from(rel.dynamic_type.is_some()) != 1 {
                return Err(self.error(
                    Detail::NoSingleRelationshipType,
                    &format!(
                        "Exactly one relationship type must be specified for {verb}. Did you forget to prefix your relationship type with a ':'?"
                    ),
                    rel.span,
                ));
            }
            if usage == PatternUse::Create && rel.direction == Direction::Both {
                return Err(self.error(
                    Detail::RequiresDirectedRelationship,
                    "Only directed relationships are supported in CREATE",
                    rel.span,
                ));
            }
            if rel.length.is_some() {
                return Err(self.error(
                    Detail::CreatingVarLength,
                    &format!("Variable length relationships cannot be used in {verb}"),
                    rel.span,
                ));
            }
        }
        let Some(variable) = &rel.variable else {
            return Ok(());
        };
        if rel_vars.contains(&variable.name.as_str()) {
            return Err(self.error(
                Detail::RelationshipUniquenessViolation,
                &format!(
                    "Cannot use the same relationship variable '{}' for multiple relationships",
                    variable.name
                ),
                variable.span,
            ));
        }
        rel_vars.push(&variable.name);
        let ty = if rel.length.is_some() {
            VarType::RelationshipList
        } else {
            VarType::Relationship
        };
        self.bind_typed(scope, variable, ty)
    }
}

/// The `:$(expr)` names of every node and relationship of a pattern element.
fn dynamic_names(element: &crate::ast::PatternElement) -> Vec<&crate::ast::DynamicNames> {
    let nodes = std::iter::once(&element.start).chain(element.chain.iter().map(|(_, n)| n));
    let rels = element.chain.iter().map(|(r, _)| r);
    let plain = nodes
        .clone()
        .flat_map(|n| &n.dynamic_labels)
        .chain(rels.clone().filter_map(|r| r.dynamic_type.as_ref()));
    let in_expressions = nodes
        .flat_map(|n| &n.label_filters)
        .chain(rels.filter_map(|r| r.type_filter.as_ref()))
        .flat_map(|expr| expr.dynamic_names());
    plain.chain(in_expressions).collect()
}

/// Neo4j's refusal of `|`, `!` and `%` in a pattern that creates.
fn label_expression_refusal(usage: PatternUse) -> String {
    let clause = if usage == PatternUse::Create {
        "CREATE"
    } else {
        "MERGE"
    };
    format!(
        "Label expressions in patterns are not allowed in a {clause} clause, but only in a MATCH clause and in expressions"
    )
}
