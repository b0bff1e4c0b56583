//! Rewrite rules over the logical plan. Each rule is a named unit in its own
//! file; [`RULES`] lists them in the order they run. A rule must preserve the
//! plan's results exactly (same rows, same order where order is defined).

mod filter_pushdown;
mod label_scan;
mod sort_limit_to_top;
mod start_from_smaller_end;

use crate::logical::LogicalPlan;
use crate::Catalog;

/// One rewrite rule.
pub trait RewriteRule: Sync {
    /// A stable name, shown by EXPLAIN-style tooling and in tests.
    fn name(&self) -> &'static str;
    /// Rewrites the whole plan (rules recurse themselves).
    fn rewrite(&self, plan: LogicalPlan, catalog: &dyn Catalog) -> LogicalPlan;
}

/// The rules, in application order.
pub static RULES: &[&dyn RewriteRule] = &[
    &filter_pushdown::FilterPushdown,
    &label_scan::LabelIntoScan,
    &start_from_smaller_end::StartFromSmallerEnd,
    &sort_limit_to_top::SortLimitToTop,
];

/// Applies every rule once, in order.
pub fn apply_all(mut plan: LogicalPlan, catalog: &dyn Catalog) -> LogicalPlan {
    for rule in RULES {
        plan = rule.rewrite(plan, catalog);
    }
    plan
}

/// Rebuilds `plan` bottom-up, applying `f` to every operator after its
/// inputs (including nested plans: Optional, Merge, Union) were rewritten.
pub(crate) fn transform_up(
    mut plan: LogicalPlan,
    f: &dyn Fn(LogicalPlan) -> LogicalPlan,
) -> LogicalPlan {
    if let Some(inner) = plan.nested_mut() {
        let taken = std::mem::replace(inner, LogicalPlan::Argument);
        *inner = transform_up(taken, f);
    }
    if let Some(input) = plan.input_mut() {
        let taken = std::mem::replace(input, LogicalPlan::Argument);
        *input = transform_up(taken, f);
    }
    f(plan)
}
