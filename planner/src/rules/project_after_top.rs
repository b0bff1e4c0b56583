//! `project_after_top`: of a projection just under a `Top`, only the items
//! the sort keys read are computed before it; the others move above, so
//! they are computed for the `limit` rows kept instead of for every row.
//! LDBC IC9 projects seven properties of each of a few hundred thousand
//! messages and keeps twenty: after this rule it reads two per message and
//! the other five for twenty.
//!
//! A later sort key (not the first) that is an item reading a property of
//! a slot becomes that property read itself, and the item moves above
//! too: `Top` evaluates later keys only for rows that may enter it (dfe),
//! so IC9's `message.id` tie-breaker is read for the rows whose date ties
//! or wins, not for every message.
//!
//! Exact because a projection computes each item from its input row alone:
//! the row a deferred item is computed on above the `Top` is the row it
//! would have been computed on below it. When an item reads a slot the same
//! projection writes (so that computing some items first could change what
//! another reads) the projection is left whole.

use super::{projection_reads_own as reads_own, transform_up, RewriteRule};
use crate::expr::{slots_of, Expr, Slot};
use crate::plan::{Op, SortKey};
use crate::Catalog;

pub struct ProjectAfterTop;

impl RewriteRule for ProjectAfterTop {
    fn name(&self) -> &'static str {
        "project_after_top"
    }

    fn rewrite(&self, plan: Op, _catalog: &dyn Catalog) -> Op {
        transform_up(plan, &|op| match op {
            Op::Top {
                input,
                keys,
                limit,
                admit: None,
            } => match *input {
                Op::Project { input, items } => {
                    let keys = later_keys_read_in_place(keys, &items);
                    let mut key_reads = Vec::new();
                    keys.iter().for_each(|k| slots_of(&k.expr, &mut key_reads));
                    let (now, later) = split(items, &key_reads);
                    let top = Op::Top {
                        input: Box::new(project(*input, now)),
                        keys,
                        limit,
                        admit: None,
                    };
                    project(top, later)
                }
                other => Op::Top {
                    input: Box::new(other),
                    keys,
                    limit,
                    admit: None,
                },
            },
            other => other,
        })
    }
}

type Items = Vec<(Slot, Expr)>;

/// `keys` with each key after the first that is the slot of an item
/// reading a property of a slot (and read by no other key), or a function
/// of such slots, replaced by that read (that function of the reads). Nothing changes when the items read each other's slots.
fn later_keys_read_in_place(keys: Vec<SortKey>, items: &Items) -> Vec<SortKey> {
    if reads_own(items) {
        return keys;
    }
    let reads_of = |k: &SortKey| {
        let mut reads = Vec::new();
        slots_of(&k.expr, &mut reads);
        reads
    };
    let all_reads: Vec<Vec<Slot>> = keys.iter().map(reads_of).collect();
    keys.iter()
        .enumerate()
        .map(|(i, key)| {
            let read_elsewhere = |slot: Slot| {
                all_reads
                    .iter()
                    .enumerate()
                    .any(|(j, reads)| j != i && reads.contains(&slot))
            };
            let read_in_place = |slot: Slot| {
                let item = items.iter().find(|(s, _)| *s == slot).map(|(_, e)| e);
                match item {
                    Some(e @ Expr::Property { expr, .. })
                        if i > 0 && !read_elsewhere(slot) && matches!(**expr, Expr::Slot(_)) =>
                    {
                        Some(e.clone())
                    }
                    _ => None,
                }
            };
            let expr = match &key.expr {
                Expr::Slot(slot) => read_in_place(*slot),
                // A function of such items (`toInteger(m.id)`, IC2 and
                // IC9's tie-breaker): the same function of the reads.
                Expr::Function { func, args } => {
                    let mut changed = false;
                    let args = args
                        .iter()
                        .map(|arg| match arg {
                            Expr::Slot(slot) => read_in_place(*slot)
                                .inspect(|_| changed = true)
                                .unwrap_or_else(|| arg.clone()),
                            other => other.clone(),
                        })
                        .collect();
                    changed.then(|| Expr::Function { func: *func, args })
                }
                _ => None,
            };
            match expr {
                Some(expr) => SortKey {
                    expr,
                    ..key.clone()
                },
                None => key.clone(),
            }
        })
        .collect()
}

/// (the items the keys read, the rest); everything first when the items
/// read each other's slots.
fn split(items: Items, key_reads: &[Slot]) -> (Items, Items) {
    if reads_own(&items) {
        return (items, Vec::new());
    }
    items
        .into_iter()
        .partition(|(slot, _)| key_reads.contains(slot))
}

fn project(input: Op, items: Items) -> Op {
    if items.is_empty() {
        return input;
    }
    Op::Project {
        input: Box::new(input),
        items,
    }
}
