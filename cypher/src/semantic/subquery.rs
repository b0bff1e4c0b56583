//! `EXISTS { ... }` and `COUNT { ... }`: the body is checked as a query of
//! its own that starts with the outer variables in scope; what it binds
//! stays inside. The body only reads: an updating clause there is
//! `InvalidClauseComposition` (as in Neo4j 5 and the TCK's
//! ExistentialSubquery2 [3]). Unlike a top-level query it need not end in
//! RETURN.

use super::scope::Scope;
use super::Analyzer;
use crate::ast::{Clause, Query};
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

fn is_update(clause: &Clause) -> bool {
    matches!(
        clause,
        Clause::Create(_)
            | Clause::Merge(_)
            | Clause::Set(_)
            | Clause::Remove(_)
            | Clause::Delete(_)
    )
}
