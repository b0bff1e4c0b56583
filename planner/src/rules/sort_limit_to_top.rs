//! `sort_limit_to_top`: `Sort` followed by `Limit` becomes `Top`, which keeps
//! only the best `limit` rows in a bounded heap instead of sorting them all.

use super::{transform_up, RewriteRule};
use crate::plan::Op;
use crate::Catalog;

pub struct SortLimitToTop;

impl RewriteRule for SortLimitToTop {
    fn name(&self) -> &'static str {
        "sort_limit_to_top"
    }

    fn rewrite(&self, plan: Op, _catalog: &dyn Catalog) -> Op {
        transform_up(plan, &|op| match op {
            Op::Limit { input, count } => match *input {
                Op::Sort { input, keys } => Op::Top {
                    input,
                    keys,
                    limit: count,
                    admit: None,
                },
                other => Op::Limit {
                    input: Box::new(other),
                    count,
                },
            },
            other => other,
        })
    }
}
