//! `CALL { } IN TRANSACTIONS` and `LOAD CSV`: where they may stand.
//!
//! As in Neo4j 5, `IN TRANSACTIONS` may not nest inside another `CALL { }`
//! (transactional or not) nor stand in a branch of a UNION: the inner
//! transactions commit on their own, which only makes sense at the top of
//! an auto-commit query. `REPORT STATUS` needs `ON ERROR CONTINUE` or
//! `BREAK` (with `FAIL` the query ends at the first failure, so there is
//! no status to report), and the batch size may not read variables (it is
//! evaluated once, before the first row).

use super::expr::AggregationRule;
use super::scope::{Scope, VarType};
use super::Analyzer;
use crate::ast::{CallSubquery, Clause, InTransactions, OnError, Query, SingleQuery};
use crate::error::{CypherError, Detail};

impl Analyzer<'_> {
    /// The checks of an `IN TRANSACTIONS` suffix, then its status variable
    /// bound in `scope` (after the body's columns).
    pub(super) fn check_in_transactions(
        &self,
        spec: &InTransactions,
        scope: &mut Scope,
    ) -> Result<(), CypherError> {
        for expr in spec.batch_size.iter().chain(&spec.concurrency) {
            self.check_expr(expr, &Scope::default(), AggregationRule::Forbidden)?;
        }
        if let Some(status) = &spec.report_status {
            if spec.on_error == OnError::Fail {
                return Err(self.error(
                    Detail::InvalidClauseComposition,
                    "REPORT STATUS can only be used when specifying ON ERROR CONTINUE or ON ERROR BREAK",
                    spec.span,
                ));
            }
            self.bind_fresh(scope, status, VarType::Value)?;
        }
        Ok(())
    }

    /// Refuses an `IN TRANSACTIONS` anywhere inside the body of `call`.
    pub(super) fn check_no_nested_transactions(
        &self,
        call: &CallSubquery,
    ) -> Result<(), CypherError> {
        let Some(inner) = find_in_transactions(&call.query) else {
            return Ok(());
        };
        let message = if call.in_transactions.is_some() {
            "Nested CALL { ... } IN TRANSACTIONS is not supported"
        } else {
            "CALL { ... } IN TRANSACTIONS nested in a regular CALL is not supported"
        };
        Err(self.error(Detail::InvalidClauseComposition, message, inner.span))
    }

    /// Refuses an `IN TRANSACTIONS` in a branch of a UNION.
    pub(super) fn check_no_transactions_in_union(
        &self,
        queries: &[SingleQuery],
    ) -> Result<(), CypherError> {
        for query in queries {
            if let Some(call) = query.clauses.iter().find_map(transactional_call) {
                return Err(self.error(
                    Detail::InvalidClauseComposition,
                    "CALL { ... } IN TRANSACTIONS in a UNION is not supported",
                    call.span,
                ));
            }
        }
        Ok(())
    }
}

fn transactional_call(clause: &Clause) -> Option<&CallSubquery> {
    match clause {
        Clause::CallSubquery(call) if call.in_transactions.is_some() => Some(call),
        _ => None,
    }
}

/// The first `CALL { } IN TRANSACTIONS` at any depth of `query`'s clauses.
fn find_in_transactions(query: &Query) -> Option<&CallSubquery> {
    let singles = match query {
        Query::Single(single) => std::slice::from_ref(single),
        Query::Union { queries, .. } => queries.as_slice(),
    };
    singles
        .iter()
        .flat_map(|single| &single.clauses)
        .find_map(|clause| match clause {
            Clause::CallSubquery(call) if call.in_transactions.is_some() => Some(call),
            Clause::CallSubquery(call) => find_in_transactions(&call.query),
            _ => None,
        })
}
