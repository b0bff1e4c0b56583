//! Lowering of `EXISTS { ... }` and `COUNT { ... }`.
//!
//! The body becomes a nested plan from an `Argument` leaf, lowered with the
//! outer scope (so it reads the outer variables from their own slots, and
//! its own variables get fresh slots from the shared allocator), carried by
//! the same `Expr::PatternList` that pattern expressions use: the executor
//! runs it once per row. EXISTS asks whether it has a row (stopping at the
//! first); COUNT is the size of the list of its rows (a one-hop body's
//! count is the node's degree: `degree.rs`).

use super::procedure_snapshot::NestedCatalog;
use super::scope::Scope;
use crate::error::PlanError;
use crate::expr::Expr;
use nereid_cypher::ast::{Query, SubqueryKind};
use nereid_values::Value;

pub(crate) fn lower_subquery(
    kind: SubqueryKind,
    query: &Query,
    scope: &Scope,
) -> Result<Expr, PlanError> {
    let mut slots = scope.slots();
    // Procedures called in the body resolve against the statement's catalog
    // through the scope's snapshot.
    let catalog = NestedCatalog {
        procedures: scope.procedures(),
    };
    let (plan, _columns) = super::lower_query(query, scope, &mut slots, &catalog)?;
    let plan = Box::new(crate::rules::apply_all(plan, &catalog));
    // Both kinds project a literal: only the plan reads the outer row.
    let reads =
        crate::dead_slots::nested_reads(&plan, &Expr::Literal(Value::Null), &scope.all_slots());
    Ok(match kind {
        SubqueryKind::Exists => Expr::PatternList {
            plan,
            projection: Box::new(Expr::Literal(Value::Bool(true))),
            exists: true,
            reads,
        },
        SubqueryKind::Count => super::degree::size_of(Expr::PatternList {
            plan,
            projection: Box::new(Expr::Literal(Value::Null)),
            exists: false,
            reads,
        }),
    })
}
