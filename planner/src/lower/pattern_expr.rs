//! Lowering of patterns used inside expressions: pattern expressions
//! (`WHERE (a)-[:T]->()`, a test whether the pattern matches wherever it
//! stands) and pattern comprehensions (`[(a)-->(b) WHERE b.x > 1 | b.name]`).
//!
//! The pattern becomes a nested plan that starts from an `Argument` leaf;
//! at run time the leaf emits the outer row, so the nested plan reads the
//! outer variables from their own slots (every scope of a query shares one
//! slot allocator). Variables the pattern introduces are local: they are
//! bound in a copy of the scope and never leak out.

use super::expr::lower_expr;
use super::pattern::{bind_path, match_element, MatchState};
use super::procedure_snapshot::NestedCatalog;
use super::scope::Scope;
use super::uniqueness;
use crate::error::PlanError;
use crate::expr::Expr;
use crate::plan::Op;
use nereid_cypher::ast;
use nereid_values::Value;

/// Lowers `[path_var = element WHERE predicate | projection]`. Without a
/// projection it is a bare pattern: whether there is any match.
pub(crate) fn lower_pattern_list(
    element: &ast::PatternElement,
    path_var: Option<&ast::Ident>,
    predicate: Option<&ast::Expr>,
    projection: Option<&ast::Expr>,
    scope: &Scope,
) -> Result<Expr, PlanError> {
    let mut inner_scope = scope.clone();
    let mut slots = scope.slots();
    let mut st = MatchState {
        scope: &mut inner_scope,
        slots: &mut slots,
        rels: Vec::new(),
        bound: Vec::new(),
    };
    let (plan, node_slots, rel_slots) = match_element(Op::Argument, element, &mut st)?;
    let rels = std::mem::take(&mut st.rels);
    let mut plan = uniqueness(plan, &rels, &slots);
    if let Some(var) = path_var {
        plan = bind_path(
            plan,
            var,
            &node_slots,
            &rel_slots,
            &mut inner_scope,
            &mut slots,
        );
    }
    if let Some(predicate) = predicate {
        plan = Op::Filter {
            input: Box::new(plan),
            predicate: lower_expr(predicate, &inner_scope, &mut None)?,
        };
    }
    let (projection, exists) = match projection {
        Some(p) => (lower_expr(p, &inner_scope, &mut None)?, false),
        // The executor stops at the first match and never projects it.
        None => (Expr::Literal(Value::Bool(true)), true),
    };
    let catalog = NestedCatalog {
        procedures: scope.procedures(),
    };
    let mut plan = crate::rules::apply_all(plan, &catalog);
    crate::dead_slots::mark_dead_slots_nested(&mut plan, &projection);
    let reads = crate::dead_slots::nested_reads(&plan, &projection, &scope.all_slots());
    Ok(Expr::PatternList {
        plan: Box::new(plan),
        projection: Box::new(projection),
        exists,
        reads,
    })
}
