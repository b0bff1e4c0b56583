//! Parameters a plan's procedure calls read as arguments, checked before
//! execution. A standalone `CALL proc` without parentheses takes its
//! arguments from the parameters named like the procedure's inputs; Neo4j
//! (and the TCK, Call1 [11]) reports a missing one when the query is
//! compiled, not when the first row is pulled.

use crate::error::{ExecError, ExecResult};
use crate::Params;
use nereid_planner::{Expr, Op, PhysicalPlan};

/// `MissingParameter` naming every parameter that procedure-call arguments
/// read directly and `params` lacks.
pub fn check_call_parameters(plan: &PhysicalPlan, params: &Params) -> ExecResult<()> {
    let mut missing = Vec::new();
    collect_missing(&plan.root, params, &mut missing);
    if missing.is_empty() {
        Ok(())
    } else {
        Err(ExecError::ParameterMissing(missing.join(", ")))
    }
}

fn collect_missing(op: &Op, params: &Params, missing: &mut Vec<String>) {
    if let Op::ProcedureCall { args, .. } = op {
        for arg in args {
            if let Expr::Param(name) = arg {
                if !params.contains_key(name) && !missing.contains(name) {
                    missing.push(name.clone());
                }
            }
        }
    }
    if let Some(input) = op.input() {
        nereid_stack::deeper(|| collect_missing(input, params, missing));
    }
    if let Some(nested) = op.nested() {
        nereid_stack::deeper(|| collect_missing(nested, params, missing));
    }
}
