//! PROFILE: the plan of a statement that ran, with what each operator did.
//!
//! The executor measures per operator, from the batches it pulls, the rows
//! it emitted and the store calls and time spent while it and its inputs
//! produced them (`nereid_dfe::OperatorStats`, inclusive, because an
//! operator's work happens inside its inputs' calls too). Neo4j reports
//! each operator's own figures, so this subtracts the children's: what an
//! operator did beyond its inputs. The plan's operators are numbered in
//! pre-order (input, then nested plan) both by the executor and by
//! `nereid_planner::plan_tree`, which is how the two line up.

use nereid_dfe::OperatorStats;
use nereid_planner::PlanNode;
use std::sync::Arc;

/// What one operator did on its own (its inputs' work subtracted).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OperatorProfile {
    /// Rows it emitted.
    pub rows: u64,
    /// Store calls it made (Neo4j's db hits: one per call into the store,
    /// one per entity for a call reading a column of entities).
    pub db_hits: u64,
    /// Nanoseconds it spent.
    pub time_ns: u64,
}

/// A profiled statement: its plan (rooted at `ProduceResults`, as EXPLAIN
/// gives it) and, per node of the plan in pre-order, what it did.
#[derive(Clone, Debug, PartialEq)]
pub struct Profile {
    pub plan: Arc<PlanNode>,
    /// Aligned with the plan's nodes in pre-order, the root included.
    pub operators: Vec<OperatorProfile>,
}

impl Profile {
    /// Pairs `plan` (from `plan_tree`) with the executor's inclusive
    /// `stats` (one per operator below the root, in pre-order).
    pub(crate) fn new(plan: Arc<PlanNode>, stats: &[OperatorStats]) -> Profile {
        let mut operators = Vec::with_capacity(stats.len() + 1);
        // The root, ProduceResults, is not an executor operator: it hands
        // on what the plan's top operator emits and does no work itself.
        operators.push(OperatorProfile {
            rows: stats.first().map_or(0, |s| s.rows),
            ..OperatorProfile::default()
        });
        let mut next = 0;
        for child in &plan.children {
            own_figures(child, stats, &mut next, &mut operators);
        }
        Profile { plan, operators }
    }
}

/// Appends the own figures of `node` and its subtree (pre-order) to `out`;
/// `next` is the executor index of `node`. Iterative over a stack: a plan
/// may be thousands deep.
fn own_figures(
    node: &PlanNode,
    stats: &[OperatorStats],
    next: &mut usize,
    out: &mut Vec<OperatorProfile>,
) {
    // (node, its slot in `out`, its inclusive figures, children pending).
    struct Frame<'a> {
        node: &'a PlanNode,
        slot: usize,
        inclusive: (u64, u64),
        children_sum: (u64, u64),
        child: usize,
    }
    let push = |next: &mut usize, out: &mut Vec<OperatorProfile>| {
        let s = stats.get(*next).cloned();
        *next += 1;
        let slot = out.len();
        out.push(OperatorProfile {
            rows: s.as_ref().map_or(0, |s| s.rows),
            ..OperatorProfile::default()
        });
        (slot, s.map_or((0, 0), |s| (s.db_hits, s.time_ns)))
    };
    let (slot, inclusive) = push(next, out);
    let mut stack = vec![Frame {
        node,
        slot,
        inclusive,
        children_sum: (0, 0),
        child: 0,
    }];
    while let Some(top) = stack.last_mut() {
        if let Some(child) = top.node.children.get(top.child) {
            top.child += 1;
            let (slot, inclusive) = push(next, out);
            stack.push(Frame {
                node: child,
                slot,
                inclusive,
                children_sum: (0, 0),
                child: 0,
            });
            continue;
        }
        let done = stack.pop().expect("the loop saw it");
        let own = &mut out[done.slot];
        own.db_hits = done.inclusive.0.saturating_sub(done.children_sum.0);
        own.time_ns = done.inclusive.1.saturating_sub(done.children_sum.1);
        if let Some(parent) = stack.last_mut() {
            parent.children_sum.0 += done.inclusive.0;
            parent.children_sum.1 += done.inclusive.1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, children: Vec<PlanNode>) -> PlanNode {
        PlanNode {
            operator_type: name.into(),
            details: String::new(),
            identifiers: Vec::new(),
            estimated_rows: 1.0,
            children,
        }
    }

    fn stats(rows: u64, db_hits: u64, time_ns: u64) -> OperatorStats {
        OperatorStats {
            name: "x",
            rows,
            db_hits,
            time_ns,
        }
    }

    #[test]
    fn each_operator_keeps_what_its_inputs_did_not() {
        // ProduceResults <- Apply(input: Scan, nested: Expand <- Argument)
        let plan = node(
            "ProduceResults",
            vec![node(
                "Apply",
                vec![
                    node("Scan", vec![]),
                    node("Expand", vec![node("Argument", vec![])]),
                ],
            )],
        );
        let inclusive = [
            stats(7, 100, 1000), // Apply: everything below it
            stats(3, 10, 200),   // Scan
            stats(7, 80, 700),   // Expand, its Argument included
            stats(3, 0, 50),     // Argument
        ];
        let profile = Profile::new(Arc::new(plan), &inclusive);
        let own: Vec<(u64, u64, u64)> = profile
            .operators
            .iter()
            .map(|o| (o.rows, o.db_hits, o.time_ns))
            .collect();
        assert_eq!(
            own,
            vec![
                (7, 0, 0),
                (7, 10, 100),
                (3, 10, 200),
                (7, 80, 650),
                (3, 0, 50)
            ]
        );
    }
}
