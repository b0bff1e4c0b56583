//! The query type a summary reports (`type` in PULL/DISCARD SUCCESS):
//! `r`, `w`, `rw` or `s`, decided the way Neo4j decides it, because drivers
//! route and retry by it and testkit checks it.
//!
//! Neo4j's rule: a statement that changes no data is `r`; one that writes
//! is `rw` when it has result columns (it returns what it read or wrote:
//! `CREATE (n) RETURN n`) and `w` when it has none (`CREATE (n)`); schema
//! commands are `s`. Whether the plan also *reads* the graph does not
//! matter. The same holds under EXPLAIN, which reports the type of the
//! statement it explains.

use nereid_planner::PhysicalPlan;

/// The Bolt query type of `plan`.
pub(crate) fn of(plan: &PhysicalPlan) -> &'static str {
    if is_schema_statement(plan) {
        return "s";
    }
    let writes = plan.writes || calls_procedure(&plan.root, nereid_dfe::is_write_procedure);
    match (writes, plan.outputs.is_empty()) {
        (false, _) => "r",
        (true, true) => "w",
        (true, false) => "rw",
    }
}

/// Whether the plan calls a procedure `wanted` picks anywhere (a WRITE
/// procedure such as `apoc.merge.node`: the planner's write flag knows the
/// writing operators only). Walked with a work list: plans can be deep
/// (long UNION chains).
pub(crate) fn calls_procedure(root: &nereid_planner::Op, wanted: impl Fn(&str) -> bool) -> bool {
    let mut pending = vec![root];
    while let Some(op) = pending.pop() {
        if let nereid_planner::Op::ProcedureCall { name, .. } = op {
            if wanted(name) {
                return true;
            }
        }
        pending.extend(op.input().into_iter().chain(op.nested()));
    }
    false
}

/// Whether the statement is a schema command or a user administration
/// command or listing (the parser makes each a standalone call of an
/// internal procedure); Neo4j reports both as `s`.
fn is_schema_statement(plan: &PhysicalPlan) -> bool {
    matches!(&plan.root, nereid_planner::Op::ProcedureCall { name, .. }
        if nereid_dfe::is_schema_command(name) || nereid_dfe::is_user_command(name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use nereid_planner::Op;

    fn plan(writes: bool, reads: bool, columns: &[&str]) -> PhysicalPlan {
        PhysicalPlan {
            root: Op::Argument,
            slot_count: columns.len(),
            outputs: columns
                .iter()
                .enumerate()
                .map(|(i, c)| (c.to_string(), i))
                .collect(),
            writes,
            missing_hints: Vec::new(),
            parameters: Vec::new(),
            probes: Vec::new(),
            reads,
        }
    }

    #[test]
    fn a_write_with_result_columns_is_rw_whether_or_not_it_reads() {
        assert_eq!(of(&plan(true, false, &["n"])), "rw");
        assert_eq!(of(&plan(true, true, &["n"])), "rw");
        assert_eq!(of(&plan(true, true, &[])), "w");
        assert_eq!(of(&plan(true, false, &[])), "w");
        assert_eq!(of(&plan(false, true, &["n"])), "r");
        assert_eq!(of(&plan(false, false, &[])), "r");
    }
}
