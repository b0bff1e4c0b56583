//! Semantic analysis: walks each single query clause by clause, threading a [`Scope`] of bound
//! variables, and reports the first rule violation with its position.

mod expr;
mod grouping;
mod in_transactions;
mod pattern_placement;
mod patterns;
mod projection;
mod scope;
mod subquery;
mod types;

use expr::AggregationRule;
use pattern_placement::Position;
use patterns::PatternUse;
use scope::{Scope, VarType};

use crate::ast::{Call, Clause, Ident, Query, RemoveItem, SetItem, SingleQuery, Span, Statement};
use crate::error::{CypherError, Detail};

pub(crate) use expr::{contains_aggregation, is_aggregate_name};

/// Error construction and source access for the checks.
pub(crate) struct Analyzer<'a> {
    source: &'a str,
}

impl Analyzer<'_> {
    /// A semantic error at the start of `span`, named as the openCypher `detail`.
    pub(crate) fn error(&self, detail: Detail, message: &str, span: Span) -> CypherError {
        CypherError::semantic_detail(detail, message, self.source, span)
    }

    /// Source text of `span`.
    pub(crate) fn text(&self, span: Span) -> &str {
        self.source.get(span.start..span.end).unwrap_or("")
    }
}

/// Entry point of [`crate::analyze`].
pub(crate) fn check_statement(statement: &Statement) -> Result<(), CypherError> {
    let analyzer = Analyzer {
        source: &statement.source,
    };
    match &statement.query {
        Query::Single(query) => analyzer.check_single_query(query).map(|_| ()),
        Query::Union { queries, .. } => {
            analyzer.check_no_transactions_in_union(queries)?;
            let mut first_columns: Option<Vec<String>> = None;
            for query in queries {
                let columns = analyzer.check_single_query(query)?;
                match &first_columns {
                    None => first_columns = Some(columns),
                    Some(expected) if *expected != columns => {
                        return Err(analyzer.error(
                            Detail::DifferentColumnsInUnion,
                            "All sub queries in an UNION must have the same return column names",
                            query.span,
                        ));
                    }
                    Some(_) => {}
                }
            }
            Ok(())
        }
    }
}

impl Analyzer<'_> {
    /// Checks one single query; returns its result column names (empty if it returns nothing).
    fn check_single_query(&self, query: &SingleQuery) -> Result<Vec<String>, CypherError> {
        let columns = self.check_clauses(query, Scope::default())?;
        self.check_conclusion(query)?;
        Ok(columns)
    }

    /// Checks the clauses of one single query starting from `scope` (the
    /// outer variables, for a subquery); returns its result column names.
    fn check_clauses(&self, query: &SingleQuery, scope: Scope) -> Result<Vec<String>, CypherError> {
        self.check_clauses_to_scope(query, scope)
            .map(|(columns, _)| columns)
    }

    /// [`Analyzer::check_clauses`], also returning the scope after the last
    /// clause (after a RETURN: its columns with their types), which a
    /// `CALL { }` needs to type the variables it returns.
    fn check_clauses_to_scope(
        &self,
        query: &SingleQuery,
        mut scope: Scope,
    ) -> Result<(Vec<String>, Scope), CypherError> {
        let mut columns = Vec::new();
        for clause in &query.clauses {
            match clause {
                Clause::Match(m) => {
                    self.check_pattern(&m.pattern, &mut scope, PatternUse::Match)?;
                    if let Some(predicate) = &m.where_ {
                        self.check_expr(predicate, &scope, AggregationRule::Forbidden)?;
                        self.check_predicate_type(predicate, &scope)?;
                        self.check_pattern_placement(predicate, Position::Predicate)?;
                    }
                }
                Clause::Unwind(unwind) => {
                    self.check_expr(&unwind.expr, &scope, AggregationRule::Forbidden)?;
                    self.check_pattern_placement(&unwind.expr, Position::Value)?;
                    self.bind_fresh(&mut scope, &unwind.alias, VarType::Value)?;
                }
                Clause::With(with) => {
                    let (next, _) = self.check_projection(&with.projection, &scope, "WITH")?;
                    if let Some(predicate) = &with.where_ {
                        // The filter may still see the incoming variables unless the
                        // projection aggregated them away.
                        let aggregating = with
                            .projection
                            .items
                            .iter()
                            .any(|item| expr::contains_aggregation(&item.expr));
                        let visible = if aggregating {
                            next.clone()
                        } else {
                            projection::overlay(&scope, &next)
                        };
                        self.check_expr(predicate, &visible, AggregationRule::Forbidden)?;
                        self.check_predicate_type(predicate, &visible)?;
                        self.check_pattern_placement(predicate, Position::Predicate)?;
                    }
                    scope = next;
                }
                Clause::Return(projection) => {
                    let (next, names) = self.check_projection(projection, &scope, "RETURN")?;
                    scope = next;
                    columns = names;
                }
                Clause::Create(create) => {
                    self.check_pattern(&create.pattern, &mut scope, PatternUse::Create)?;
                }
                Clause::Merge(merge) => {
                    self.check_pattern(
                        std::slice::from_ref(&merge.pattern),
                        &mut scope,
                        PatternUse::Merge,
                    )?;
                    for item in merge.on_create.iter().chain(&merge.on_match) {
                        self.check_set_item(item, &scope)?;
                    }
                }
                Clause::Set(set) => {
                    for item in &set.items {
                        self.check_set_item(item, &scope)?;
                    }
                }
                Clause::Remove(remove) => {
                    for item in &remove.items {
                        match item {
                            RemoveItem::Property { target, .. } => {
                                self.check_expr(target, &scope, AggregationRule::Forbidden)?
                            }
                            RemoveItem::Labels {
                                variable, dynamic, ..
                            } => {
                                self.check_defined(variable, &scope)?;
                                for expr in dynamic {
                                    self.check_dynamic_names(expr, &scope)?;
                                }
                            }
                        }
                    }
                }
                Clause::Delete(delete) => {
                    for expr in &delete.exprs {
                        self.check_expr(expr, &scope, AggregationRule::Forbidden)?;
                        self.check_deletable(expr)?;
                        self.check_pattern_placement(expr, Position::Value)?;
                    }
                }
                Clause::Call(call) => self.check_call(call, &mut scope, query.clauses.len())?,
                Clause::CallSubquery(call) => self.check_call_subquery(call, &mut scope)?,
                Clause::Foreach(foreach) => self.check_foreach(foreach, &scope)?,
                Clause::LoadCsv(load) => {
                    self.check_expr(&load.source, &scope, AggregationRule::Forbidden)?;
                    self.check_pattern_placement(&load.source, Position::Value)?;
                    self.bind_fresh(&mut scope, &load.alias, VarType::Value)?;
                }
            }
        }
        Ok((columns, scope))
    }

    /// Rejects DELETE operands that can never be an entity (label predicates, literals,
    /// arithmetic); anything else is left to runtime.
    fn check_deletable(&self, expr: &crate::ast::Expr) -> Result<(), CypherError> {
        use crate::ast::ExprKind;
        match &expr.kind {
            ExprKind::HasLabels(..) | ExprKind::HasLabelExpr(..) => Err(self.error(
                Detail::InvalidDelete,
                "Invalid delete expression: to remove a label use REMOVE, not DELETE",
                expr.span,
            )),
            ExprKind::Literal(_)
            | ExprKind::Binary(..)
            | ExprKind::Unary(..)
            | ExprKind::Map(_)
            | ExprKind::IsNull(_)
            | ExprKind::IsNotNull(_) => Err(self.error(
                Detail::InvalidArgumentType,
                "Type mismatch: expected Node, Path or Relationship",
                expr.span,
            )),
            _ => Ok(()),
        }
    }

    fn check_set_item(&self, item: &SetItem, scope: &Scope) -> Result<(), CypherError> {
        match item {
            SetItem::Property { target, value, .. } => {
                self.check_expr(target, scope, AggregationRule::Forbidden)?;
                self.check_expr(value, scope, AggregationRule::Forbidden)?;
                self.check_pattern_placement(value, Position::Value)
            }
            SetItem::Replace {
                variable, value, ..
            }
            | SetItem::MergeProperties {
                variable, value, ..
            } => {
                self.check_defined(variable, scope)?;
                self.check_expr(value, scope, AggregationRule::Forbidden)?;
                self.check_pattern_placement(value, Position::Value)
            }
            SetItem::Labels {
                variable, dynamic, ..
            } => {
                self.check_defined(variable, scope)?;
                for expr in dynamic {
                    self.check_dynamic_names(expr, scope)?;
                }
                Ok(())
            }
        }
    }

    fn check_call(
        &self,
        call: &Call,
        scope: &mut Scope,
        clause_count: usize,
    ) -> Result<(), CypherError> {
        for arg in call.args.iter().flatten() {
            self.check_expr(arg, scope, AggregationRule::Forbidden)?;
            self.check_pattern_placement(arg, Position::Value)?;
        }
        if call.yield_star {
            if clause_count > 1 && !call.show {
                return Err(self.error(
                    Detail::UnexpectedSyntax,
                    "Cannot use `YIELD *` outside standalone call",
                    call.span,
                ));
            }
            scope.open = true;
        }
        for item in call.yields.iter().flatten() {
            self.bind_fresh(scope, item.binding(), VarType::Value)?;
        }
        if let Some(predicate) = &call.where_ {
            self.check_expr(predicate, scope, AggregationRule::Forbidden)?;
        }
        Ok(())
    }

    /// The last clause must produce a result or change data.
    fn check_conclusion(&self, query: &SingleQuery) -> Result<(), CypherError> {
        let Some(last) = query.clauses.last() else {
            return Ok(());
        };
        let name = match last {
            Clause::Match(_) => "MATCH",
            Clause::Unwind(_) => "UNWIND",
            Clause::LoadCsv(_) => "LOAD CSV",
            Clause::With(_) => "WITH",
            Clause::Call(call) if call.yields.is_some() && query.clauses.len() > 1 => {
                return Err(self.error(
                    Detail::InvalidClauseComposition,
                    "Query cannot conclude with CALL together with YIELD",
                    call.span,
                ));
            }
            _ => return Ok(()),
        };
        Err(self.error(
            Detail::InvalidClauseComposition,
            &format!(
                "Query cannot conclude with {name} (must be a RETURN clause, an update clause, a unit subquery call, or a procedure call with no YIELD)"
            ),
            last.span(),
        ))
    }

    fn check_defined(&self, variable: &Ident, scope: &Scope) -> Result<(), CypherError> {
        if scope.contains(&variable.name) {
            Ok(())
        } else {
            Err(self.error(
                Detail::UndefinedVariable,
                &format!("Variable `{}` not defined", variable.name),
                variable.span,
            ))
        }
    }

    /// Binds a variable that must not exist yet (UNWIND alias, YIELD column).
    fn bind_fresh(
        &self,
        scope: &mut Scope,
        variable: &Ident,
        ty: VarType,
    ) -> Result<(), CypherError> {
        if scope.get(&variable.name).is_some() {
            return Err(self.error(
                Detail::VariableAlreadyBound,
                &format!("Variable `{}` already declared", variable.name),
                variable.span,
            ));
        }
        scope.bind(&variable.name, ty);
        Ok(())
    }
}
