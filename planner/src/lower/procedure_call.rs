//! `CALL proc(args) [YIELD ...] [WHERE ...]`: checks the call against the
//! procedure's signature from the catalog and lowers it to a
//! `ProcedureCall`.
//!
//! Compile-time checks (openCypher/Neo4j semantics, the TCK's `Call*`
//! features): the procedure exists (`ProcedureNotFound`); explicit arguments
//! match the input count (`InvalidNumberOfArguments`); a literal argument
//! fits its input type (`InvalidArgumentType`; INTEGER is accepted for
//! FLOAT and widened at run time); arguments without parentheses come from
//! the parameters named like the inputs, which only a standalone call may
//! do (`InvalidArgumentPassingMode`); `YIELD *` only in a standalone call
//! (or one a `SHOW` command became, which also keeps its columns' order
//! for `RETURN *`); every yielded column exists.

use super::expr::lower_expr;
use super::scope::{Scope, Slots, VarKind};
use super::Columns;
use crate::error::PlanError;
use crate::expr::Expr;
use crate::plan::Op;
use crate::{Catalog, ProcedureSignature};
use nereid_cypher::ast;
use nereid_values::Value;

/// Lowers one `CALL`. A standalone call (the only clause) without `YIELD`
/// returns all the procedure's columns; the returned columns are `Some`
/// exactly for a standalone call.
pub(super) fn lower_call(
    plan: Op,
    c: &ast::Call,
    scope: &mut Scope,
    slots: &mut Slots,
    catalog: &dyn Catalog,
    query: &ast::SingleQuery,
) -> Result<(Op, Option<Columns>), PlanError> {
    let Some(signature) = catalog.procedure_signature(&c.procedure) else {
        return Err(PlanError::ProcedureNotFound {
            name: c.procedure.clone(),
            offset: Some(c.procedure_span.start),
        });
    };
    let standalone = query.clauses.len() == 1;
    let args = lower_arguments(c, &signature, scope, standalone)?;
    if c.yield_star && !standalone && !c.show {
        return Err(PlanError::semantic(
            "UnexpectedSyntax: `YIELD *` is only allowed in a standalone procedure call",
            c.span.start,
        ));
    }
    let outputs = signature.output_names();
    let mut yields = Vec::new();
    let mut columns = Vec::new();
    match &c.yields {
        Some(items) => {
            for item in items {
                if !outputs.iter().any(|o| o == &item.name.name) {
                    // A SHOW command's columns are no procedure's to the
                    // user: Neo4j's words for them.
                    let message = if c.show {
                        format!("Trying to YIELD non-existing column: `{}`", item.name.name)
                    } else {
                        format!("Unknown procedure output: `{}`", item.name.name)
                    };
                    return Err(PlanError::semantic(message, item.name.span.start));
                }
                let binding = item.binding();
                if columns.iter().any(|(name, _)| name == &binding.name) {
                    return Err(PlanError::semantic(
                        format!("Variable `{}` already declared", binding.name),
                        binding.span.start,
                    ));
                }
                let s = slots.fresh();
                scope.bind(&binding.name, s, VarKind::Value);
                yields.push((item.name.name.clone(), s));
                columns.push((binding.name.clone(), s));
            }
        }
        None => {
            for name in &outputs {
                let s = slots.fresh();
                if standalone || c.yield_star {
                    scope.bind(name, s, VarKind::Value);
                }
                yields.push((name.clone(), s));
                columns.push((name.clone(), s));
            }
        }
    }
    if c.show {
        scope.keep_star_order(columns.iter().map(|(name, _)| name.clone()).collect());
    }
    let predicate = match &c.where_ {
        Some(pred) => Some(lower_expr(pred, scope, &mut None)?),
        None => None,
    };
    let (filter, after) = if signature.filters_candidates {
        (predicate.map(Box::new), None)
    } else {
        (None, predicate)
    };
    let mut plan = Op::ProcedureCall {
        input: Box::new(plan),
        name: c.procedure.clone(),
        args,
        yields,
        filter,
    };
    if let Some(predicate) = after {
        plan = Op::Filter {
            input: Box::new(plan),
            predicate,
        };
    }
    Ok((plan, if standalone { Some(columns) } else { None }))
}

/// The argument expressions: the explicit ones, checked for count and
/// literal types, or (without parentheses) one parameter per input.
fn lower_arguments(
    c: &ast::Call,
    signature: &ProcedureSignature,
    scope: &Scope,
    standalone: bool,
) -> Result<Vec<Expr>, PlanError> {
    let Some(args) = &c.args else {
        if !standalone && !signature.inputs.is_empty() {
            return Err(PlanError::semantic(
                format!(
                    "InvalidArgumentPassingMode: Procedure call inside a query does not support passing arguments implicitly. Please pass arguments explicitly in parentheses after procedure name for {}",
                    signature.name
                ),
                c.procedure_span.start,
            ));
        }
        return Ok(signature
            .inputs
            .iter()
            .map(|input| Expr::Param(input.name.clone()))
            .collect());
    };
    // Trailing inputs left out take their defaults.
    let defaults: Vec<&Value> = signature
        .inputs
        .get(args.len()..)
        .unwrap_or(&[])
        .iter()
        .map_while(|input| input.default.as_ref())
        .collect();
    if args.len() + defaults.len() != signature.inputs.len() {
        return Err(PlanError::semantic(
            format!(
                "InvalidNumberOfArguments: Procedure call does not provide the required number of arguments: got {} expected {} (procedure `{}`)",
                args.len(),
                signature.inputs.len(),
                signature.name
            ),
            c.procedure_span.start,
        ));
    }
    let mut lowered = Vec::with_capacity(args.len());
    for (arg, input) in args.iter().zip(&signature.inputs) {
        let expr = lower_expr(arg, scope, &mut None)?;
        if let Expr::Literal(value) = &expr {
            if input.ty.coerce(value).is_none() {
                return Err(PlanError::semantic(
                    format!(
                        "InvalidArgumentType: Type mismatch: expected {} but was {} (argument `{}` of `{}`)",
                        input.ty.name(),
                        value.type_name(),
                        input.name,
                        signature.name
                    ),
                    arg.span.start,
                ));
            }
        }
        lowered.push(expr);
    }
    lowered.extend(defaults.into_iter().map(|v| Expr::Literal(v.clone())));
    Ok(lowered)
}
