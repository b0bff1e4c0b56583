//! `index_order`: `ORDER BY n.p [DESC]` (with or without `LIMIT k`) over
//! an index seek whose first non-equality key is `p` reads the index in
//! that order instead of sorting: the `Sort` goes, a `Top` becomes a
//! `Limit`, and when nothing filters between the seek and the limit the
//! seek itself stops after `k` entries, so `WHERE n.p > $x ORDER BY n.p
//! LIMIT 10` reads ten entries of the index, not every one above `$x`.
//!
//! Only when the order is exactly `ORDER BY`'s: the seek's condition on
//! the key must be a range or a prefix, which only values of one ordered
//! class satisfy (numbers, strings, temporals, ...) and which the store
//! refuses to answer for classes its keys do not order (lists, points,
//! durations: the executor then scans and sorts itself). A scan of the
//! whole index (`IS NOT NULL`) is not used: its keys put points, lists
//! and dates beyond chrono's range in an order `ORDER BY` does not.
//! Equalities before the key must be single values (`IN` reads one run of
//! the index per value, each in order but not together), and the seek
//! must be the plan's leaf (one input row, or the rows of each input row
//! would be ordered apart). Rows with equal keys come in no defined order
//! either way.
//!
//! Runs last, after `sort_limit_to_top` made its `Top`s.

use super::{transform_up, RewriteRule};
use crate::expr::{Expr, Slot};
use crate::index_query::{IndexCondition, IndexQuery, SeekArg};
use crate::plan::{Op, SortKey};
use crate::Catalog;

pub struct IndexOrder;

impl RewriteRule for IndexOrder {
    fn name(&self) -> &'static str {
        "index_order"
    }

    fn rewrite(&self, plan: Op, _catalog: &dyn Catalog) -> Op {
        transform_up(plan, &|op| match op {
            Op::Top {
                mut input,
                keys,
                limit,
                admit: None,
            } => {
                if read_in_order(&mut input, &keys, Some(&limit)) {
                    Op::Limit {
                        input,
                        count: limit,
                    }
                } else {
                    Op::Top {
                        input,
                        keys,
                        limit,
                        admit: None,
                    }
                }
            }
            Op::Sort { mut input, keys } => {
                if read_in_order(&mut input, &keys, None) {
                    *input
                } else {
                    Op::Sort { input, keys }
                }
            }
            other => other,
        })
    }
}

/// Makes the seek under `plan` read in the order of `keys` (through
/// projections and filters) when it can; whether it did.
fn read_in_order(plan: &mut Op, keys: &[SortKey], limit: Option<&Expr>) -> bool {
    let [key] = keys else {
        return false;
    };
    let mut sort_expr = key.expr.clone();
    let mut filtered = false;
    let mut at = plan;
    loop {
        match at {
            Op::Project { input, items } => {
                sort_expr = through_projection(sort_expr, items);
                at = input;
            }
            Op::Filter { input, .. } => {
                filtered = true;
                at = input;
            }
            Op::NodeIndexSeek {
                input,
                out,
                query,
                labels,
            } if **input == Op::Argument => {
                // Other labels are checked after the seek: a filter too.
                let filtered = filtered || !labels.is_empty();
                return order(query, *out, &sort_expr, key.ascending, limit, filtered);
            }
            Op::RelIndexSeek {
                input, rel, query, ..
            } if **input == Op::Argument => {
                return order(query, *rel, &sort_expr, key.ascending, limit, filtered);
            }
            _ => return false,
        }
    }
}

/// `e` (a slot, or a property of a slot) in terms of the projection's
/// input: `$1` or `$1.p` where the projection computed `$1 = e'` is `e'`
/// or `e'.p`.
fn through_projection(e: Expr, items: &[(Slot, Expr)]) -> Expr {
    let computed = |s: Slot| items.iter().find(|(slot, _)| *slot == s).map(|(_, e)| e);
    match e {
        Expr::Slot(s) => computed(s).cloned().unwrap_or(Expr::Slot(s)),
        Expr::Property { expr, key } => match *expr {
            Expr::Slot(s) => match computed(s) {
                Some(inner) => Expr::Property {
                    expr: Box::new(inner.clone()),
                    key,
                },
                None => Expr::Property { expr, key },
            },
            other => Expr::Property {
                expr: Box::new(other),
                key,
            },
        },
        other => other,
    }
}

fn order(
    query: &mut IndexQuery,
    slot: Slot,
    sort_expr: &Expr,
    ascending: bool,
    limit: Option<&Expr>,
    filtered: bool,
) -> bool {
    let Expr::Property { expr, key } = sort_expr else {
        return false;
    };
    let ordered_key = query.index.keys.get(query.equal.len());
    let usable = **expr == Expr::Slot(slot)
        && ordered_key == Some(key)
        && query.order.is_none()
        && query.equal.iter().all(|a| matches!(a, SeekArg::Equal(_)))
        && matches!(
            query.next,
            IndexCondition::Range { .. } | IndexCondition::StartsWith(_)
        );
    if !usable {
        return false;
    }
    query.order = Some(!ascending);
    if !filtered {
        query.limit = limit.cloned();
    }
    true
}
