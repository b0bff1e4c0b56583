//! Lowering of `CALL { ... }` and `FOREACH` to `Apply`.
//!
//! The body is lowered with the variables its scope clause names (`CALL (a)
//! { }`, all for `CALL (*) { }`), or, without one, with the outer scope when
//! it opens with an importing `WITH` (which then narrows it to the imported
//! variables), otherwise with an empty scope; its plan starts from an `Argument` leaf that holds the
//! outer row. Its result columns become outer variables in the slots the
//! body wrote them to, keeping their kind (a returned node is a node). A body that writes is preceded by an `Eager`, so the
//! rows feeding it are all read before the first write (the subquery's
//! writes never feed back into the rows that drive it).

use super::scope::{Scope, Slots};
use crate::error::PlanError;
use crate::expr::Expr;
use crate::plan::{Op, TransactionBatches};
use crate::Catalog;
use nereid_cypher::ast::{self, Clause, Query, SingleQuery};

/// Returns the plan with the subquery applied and whether the body writes.
pub(super) fn lower_call_subquery(
    plan: Op,
    call: &ast::CallSubquery,
    scope: &mut Scope,
    slots: &mut Slots,
    catalog: &dyn Catalog,
) -> Result<(Op, bool), PlanError> {
    let singles = match &*call.query {
        Query::Single(single) => std::slice::from_ref(single),
        Query::Union { queries, .. } => queries.as_slice(),
    };
    // Every branch of a UNION body decides its import on its own; lowering
    // the union takes one outer scope, so use the outer scope when any
    // branch imports (the analyser has already rejected reads of variables
    // a branch does not import).
    let inner_scope = match &call.scope {
        Some(ast::ImportScope::All) => scope.clone(),
        Some(ast::ImportScope::Variables(variables)) => {
            let mut imported = scope.emptied();
            for variable in variables {
                let (slot, kind) = scope.get(&variable.name).ok_or_else(|| {
                    PlanError::semantic(
                        format!("Variable `{}` not defined", variable.name),
                        variable.span.start,
                    )
                })?;
                imported.bind(&variable.name, slot, kind);
            }
            imported
        }
        None if singles.iter().any(|s| s.opens_with_import()) => scope.clone(),
        None => scope.emptied(),
    };
    let (inner, columns, kinds) =
        super::lower_query_typed(&call.query, &inner_scope, slots, catalog)?;
    let unit = singles
        .iter()
        .all(|s| !matches!(s.clauses.last(), Some(Clause::Return(_))));
    let writes = singles.iter().any(|s| s.clauses.iter().any(may_write));
    for ((name, slot), kind) in columns.iter().zip(kinds) {
        scope.bind(name, *slot, kind);
    }
    let transactions = match &call.in_transactions {
        Some(spec) => Some(Box::new(transaction_batches(spec, scope, slots)?)),
        None => None,
    };
    // Under IN TRANSACTIONS the input is read in the outer transaction,
    // whose snapshot the inner transactions' commits never change: no
    // Eager is needed to keep the body's writes from feeding its input
    // (and a LOAD CSV is not held in memory whole).
    let input = if writes && transactions.is_none() {
        Op::Eager {
            input: Box::new(plan),
        }
    } else {
        plan
    };
    Ok((
        Op::Apply {
            input: Box::new(input),
            inner: Box::new(inner),
            returned: if unit {
                Vec::new()
            } else {
                columns.iter().map(|(_, s)| *s).collect()
            },
            unit,
            transactions,
        },
        writes,
    ))
}

/// `FOREACH (x IN list | updates)` is the unit subquery
/// `CALL { WITH * UNWIND list AS x updates }`: it sees every outer
/// variable, binds nothing outside, and keeps each row once.
pub(super) fn lower_foreach(
    plan: Op,
    foreach: &ast::Foreach,
    scope: &Scope,
    slots: &mut Slots,
    catalog: &dyn Catalog,
) -> Result<Op, PlanError> {
    let body = SingleQuery {
        clauses: std::iter::once(Clause::Unwind(foreach.unwind.clone()))
            .chain(foreach.clauses.iter().cloned())
            .collect(),
        span: foreach.span,
    };
    let (inner, _) = super::lower_query(&Query::Single(body), scope, slots, catalog)?;
    Ok(Op::Apply {
        input: Box::new(Op::Eager {
            input: Box::new(plan),
        }),
        inner: Box::new(inner),
        returned: Vec::new(),
        unit: true,
        transactions: None,
    })
}

/// Rows per inner transaction when `OF n ROWS` is absent (Neo4j's default).
const DEFAULT_BATCH_ROWS: i64 = 1000;

/// The batching of `CALL { } IN TRANSACTIONS`, its status variable bound
/// to a fresh slot in `scope`.
fn transaction_batches(
    spec: &ast::InTransactions,
    scope: &mut Scope,
    slots: &mut Slots,
) -> Result<TransactionBatches, PlanError> {
    let rows = match &spec.batch_size {
        Some(rows) => super::lower_expr(rows, &scope.emptied(), &mut None)?,
        None => Expr::Literal(nereid_values::Value::Int(DEFAULT_BATCH_ROWS)),
    };
    let status = spec.report_status.as_ref().map(|variable| {
        let slot = slots.fresh();
        scope.bind(&variable.name, slot, super::scope::VarKind::Value);
        slot
    });
    Ok(TransactionBatches {
        rows,
        on_error: spec.on_error,
        status,
    })
}

fn may_write(clause: &Clause) -> bool {
    matches!(
        clause,
        Clause::Create(_)
            | Clause::Merge(_)
            | Clause::Set(_)
            | Clause::Remove(_)
            | Clause::Delete(_)
            | Clause::CallSubquery(_)
            | Clause::Foreach(_)
    )
}
