//! Subqueries. `EXISTS { ... }` and `COUNT { ... }`: the body is checked as a query of
//! its own that starts with the outer variables in scope; what it binds
//! stays inside. The body only reads: an updating clause there is
//! `InvalidClauseComposition` (as in Neo4j 5 and the TCK's
//! ExistentialSubquery2 [3]). Unlike a top-level query it need not end in
//! RETURN.
//!
//! `CALL { ... }`: the body sees the outer variables only through an
//! importing `WITH` of plain variables as its first clause; it must end in
//! RETURN or an update (`check_conclusion`); its columns join the outer
//! scope and may not shadow an outer variable (`VariableAlreadyBound`).

use super::scope::Scope;
use super::scope::VarType;
use super::Analyzer;
use crate::ast::{CallSubquery, Clause, Foreach, Query, SingleQuery};
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
        let mut first_columns: Option<Vec<String>> = None;
        for single in singles {
            let inner = if single.opens_with_import() {
                scope.clone()
            } else {
                Scope::default()
            };
            let columns = self.check_clauses(single, inner)?;
            self.check_conclusion(single)?;
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
        for column in first_columns.unwrap_or_default() {
            if scope.get(&column).is_some() {
                return Err(self.error(
                    Detail::VariableAlreadyBound,
                    &format!("Variable `{column}` already declared in outer scope"),
                    call.span,
                ));
            }
            scope.bind(&column, VarType::Value);
        }
        Ok(())
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
