//! The parameters a plan reads, checked before it runs. Neo4j reports a
//! missing parameter when the query is compiled ("Expected parameter(s):
//! ..."), so a client learns of it at RUN (and the Query API answers 400),
//! not after some rows. Two sources: the `$name`s of the query text, and a
//! standalone `CALL proc` without parentheses, whose arguments come from
//! the parameters named like the procedure's inputs (TCK Call1 [11]).

use crate::error::{ExecError, ExecResult};
use crate::Params;
use nereid_planner::{Expr, Op, PhysicalPlan};

/// `MissingParameter` naming every parameter the plan reads that `params`
/// lacks, in order of first use.
pub fn check_parameters(plan: &PhysicalPlan, params: &Params) -> ExecResult<()> {
    let mut missing: Vec<String> = plan
        .parameters
        .iter()
        .filter(|name| !params.contains_key(*name))
        .cloned()
        .collect();
    collect_missing_call_arguments(&plan.root, params, &mut missing);
    if missing.is_empty() {
        Ok(())
    } else {
        Err(ExecError::ParameterMissing(missing.join(", ")))
    }
}

fn collect_missing_call_arguments(op: &Op, params: &Params, missing: &mut Vec<String>) {
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
        nereid_stack::deeper(|| collect_missing_call_arguments(input, params, missing));
    }
    if let Some(nested) = op.nested() {
        nereid_stack::deeper(|| collect_missing_call_arguments(nested, params, missing));
    }
}
