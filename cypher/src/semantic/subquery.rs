//! Subqueries. `EXISTS { ... }` and `COUNT { ... }`: the body is checked as a query of
//! its own that starts with the outer variables in scope; what it binds
//! stays inside. The body only reads: an updating clause there is
//! `InvalidClauseComposition` (as in Neo4j 5 and the TCK's
//! ExistentialSubquery2 [3]). Unlike a top-level query it need not end in
//! RETURN.
//!
//! `CALL { ... }`: the body sees the outer variables through a variable
//! scope clause (`CALL (a, b) { }`, `CALL (*) { }`) or, without one, only
//! through an importing `WITH` of plain variables as its first clause; it
//! must end in RETURN or an update (`check_conclusion`); its columns join
//! the outer scope with the types they had in the body (a returned node
//! stays a node) and may not shadow an outer variable (`VariableAlreadyBound`).

use super::scope::Scope;
use super::scope::VarType;
use super::Analyzer;
use crate::ast::{CallSubquery, Clause, Foreach, ImportScope, Query, SingleQuery};
use crate::error::{CypherError, Detail};

impl Analyzer<'_> {
    pub(super) fn check_subquery(&self, query: &Query, outer: &Scope) -> Result<(), CypherError> {
        let singles = match query {
            Query::Single(single) => std::slice::from_ref(single),
            Query::Union { queries, .. } => queries.as_slice(),
        };
        let mut first_columns: Option<Vec<String>> = None;
        for single in singles {
            if let Some(update) = single.clauses.iter().find(|c| is_update(c)) {
                return Err(self.error(
                    Detail::InvalidClauseComposition,
                    "An EXISTS or COUNT subquery cannot contain an updating clause",
                    update.span(),
                ));
            }
            let columns = self.check_clauses(single, outer.clone())?;
            match &first_columns {
                None => first_columns = Some(columns),
                Some(expected) if *expected != columns => {
                    return Err(self.error(
                        Detail::DifferentColumnsInUnion,
                        "All sub queries in an UNION must have the same return column names",
                        single.span,
                    ));
                }
                Some(_) => {}
            }
        }
        Ok(())
    }
}

impl Analyzer<'_> {
    pub(super) fn check_call_subquery(
        &self,
        call: &CallSubquery,
        scope: &mut Scope,
    ) -> Result<(), CypherError> {
        let singles = match &*call.query {
            Query::Single(single) => std::slice::from_ref(single),
            Query::Union { queries, .. } => queries.as_slice(),
        };
        self.check_no_nested_transactions(call)?;
        let imported = match &call.scope {
            Some(import) => Some(self.imported_scope(import, scope)?),
            None => None,
        };
        // The returned columns with their types; a column whose type differs
        // between UNION branches is only known as a value.
        let mut first_columns: Option<Vec<(String, VarType)>> = None;
        for single in singles {
            let inner = match &imported {
                Some(imported) => imported.clone(),
                None if single.opens_with_import() => scope.clone(),
                None => Scope::default(),
            };
            let (columns, after) = self.check_clauses_to_scope(single, inner)?;
            self.check_conclusion(single)?;
            let typed: Vec<(String, VarType)> = columns
                .into_iter()
                .map(|name| {
                    let ty = after.get(&name).unwrap_or(VarType::Value);
                    (name, ty)
                })
                .collect();
            match &mut first_columns {
                None => first_columns = Some(typed),
                Some(expected)
                    if expected.len() != typed.len()
                        || expected.iter().zip(&typed).any(|(e, t)| e.0 != t.0) =>
                {
                    return Err(self.error(
                        Detail::DifferentColumnsInUnion,
                        "All sub queries in an UNION must have the same return column names",
                        single.span,
                    ));
                }
                Some(expected) => {
                    for (column, (_, ty)) in expected.iter_mut().zip(typed) {
                        if column.1 != ty {
                            column.1 = VarType::Value;
                        }
                    }
                }
            }
        }
        for (column, ty) in first_columns.unwrap_or_default() {
            if scope.get(&column).is_some() {
                return Err(self.error(
                    Detail::VariableAlreadyBound,
                    &format!("Variable `{column}` already declared in outer scope"),
                    call.span,
                ));
            }
            scope.bind(&column, ty);
        }
        if let Some(spec) = &call.in_transactions {
            self.check_in_transactions(spec, scope)?;
        }
        Ok(())
    }

    /// The body's starting scope under a variable scope clause: every outer
    /// variable for `(*)`, else exactly the listed ones, each of which must
    /// be defined outside.
    fn imported_scope(&self, import: &ImportScope, outer: &Scope) -> Result<Scope, CypherError> {
        let ImportScope::Variables(variables) = import else {
            return Ok(outer.clone());
        };
        let mut scope = Scope::default();
        for variable in variables {
            let Some(ty) = outer.get(&variable.name) else {
                return Err(self.error(
                    Detail::UndefinedVariable,
                    &format!("Variable `{}` not defined", variable.name),
                    variable.span,
                ));
            };
            scope.bind(&variable.name, ty);
        }
        Ok(scope)
    }
}

impl Analyzer<'_> {
    /// `FOREACH`: the list in the outer scope, then only update clauses
    /// (and nested FOREACH), with the variable bound; nothing leaks out.
    pub(super) fn check_foreach(
        &self,
        foreach: &Foreach,
        scope: &Scope,
    ) -> Result<(), CypherError> {
        if let Some(other) = foreach
            .clauses
            .iter()
            .find(|c| !is_update(c) && !matches!(c, Clause::Foreach(_)))
        {
            return Err(self.error(
                Detail::InvalidClauseComposition,
                "Invalid use of a non-updating clause inside FOREACH",
                other.span(),
            ));
        }
        let body = SingleQuery {
            clauses: std::iter::once(Clause::Unwind(foreach.unwind.clone()))
                .chain(foreach.clauses.iter().cloned())
                .collect(),
            span: foreach.span,
        };
        self.check_clauses(&body, scope.clone()).map(|_| ())
    }
}

fn is_update(clause: &Clause) -> bool {
    matches!(
        clause,
        Clause::Create(_)
            | Clause::Merge(_)
            | Clause::Set(_)
            | Clause::Remove(_)
            | Clause::Delete(_)
            | Clause::Foreach(_)
    )
}
