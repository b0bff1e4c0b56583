//! `sort_limit_to_top`: `Sort` followed by `Limit` becomes `Top`, which keeps
//! only the best `limit` rows in a bounded heap instead of sorting them all.

use super::{transform_up, RewriteRule};
use crate::logical::LogicalPlan;
use crate::Catalog;

pub struct SortLimitToTop;

impl RewriteRule for SortLimitToTop {
    fn name(&self) -> &'static str {
        "sort_limit_to_top"
    }

    fn rewrite(&self, plan: LogicalPlan, _catalog: &dyn Catalog) -> LogicalPlan {
        transform_up(plan, &|op| match op {
            LogicalPlan::Limit { input, count } => match *input {
                LogicalPlan::Sort { input, keys } => LogicalPlan::Top {
                    input,
                    keys,
                    limit: count,
                },
                other => LogicalPlan::Limit {
                    input: Box::new(other),
                    count,
                },
            },
            other => other,
        })
    }
}
