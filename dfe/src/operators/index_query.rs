//! What the index operators (`node_index_seek.rs`, `rel_index_seek.rs`)
//! share: turning a planned [`IndexQuery`], with its values evaluated for
//! one input row, into the store's seeks, and answering the same seeks
//! without the index when the store cannot (module docs of
//! `nereid_storage::schema::seek`: a missing index, or a range over values
//! its keys do not order).
//!
//! The fallback tests each candidate with the store's own per-candidate
//! decision (`IndexSeek::matches`: `cypher_eq` for `=` and `IN`,
//! `cypher_cmp` for ranges, string tests only between strings, as the
//! filter it replaced), then orders and limits as the query asks, so a
//! query's rows never depend on whether an index answered it.

use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::{type_mismatch, ExecResult};
use nereid_planner::{IndexCondition, IndexQuery, SeekArg};
use nereid_storage::{IndexSeek, KeyPredicate};
use nereid_values::{compare_for_order, Value};
use std::ops::Bound;

/// The query's expressions evaluated for every active row of `batch`:
/// one column per expression, in [`IndexQuery::expressions`] order.
pub(crate) fn evaluate(
    query: &IndexQuery,
    batch: &Batch,
    ctx: &mut ExecContext,
) -> ExecResult<Vec<Vec<Value>>> {
    let mut evaluator = ctx.evaluator();
    query
        .expressions()
        .into_iter()
        .map(|e| evaluator.eval(e, batch, batch.selection()))
        .collect()
}

/// The store seeks that answer `query` for the row at `position` (one
/// per combination of `IN` elements, duplicates removed); empty when no
/// entity can match (a null compared, `x IN null`, a string test with a
/// non-string). `x IN v` with `v` neither a list nor null is the type
/// error the filter would raise.
pub(crate) fn seeks(
    query: &IndexQuery,
    columns: &[Vec<Value>],
    position: usize,
) -> ExecResult<Vec<IndexSeek>> {
    let mut values = columns.iter().map(|c| c[position].clone());
    let mut combinations: Vec<Vec<Value>> = vec![Vec::new()];
    for arg in &query.equal {
        let value = values.next().unwrap_or_default();
        if value.is_null() {
            return Ok(Vec::new());
        }
        let choices = match arg {
            SeekArg::Equal(_) => vec![value],
            SeekArg::In(_) => match value.into_list() {
                Ok(items) => distinct(items.into_vec()),
                Err(other) => return Err(type_mismatch("List", &other)),
            },
        };
        combinations = combinations
            .into_iter()
            .flat_map(|prefix| {
                choices.iter().map(move |v| {
                    let mut next = prefix.clone();
                    next.push(v.clone());
                    next
                })
            })
            .collect();
    }
    let string = |values: &mut dyn Iterator<Item = Value>| values.next()?.into_string().ok();
    let next = match &query.next {
        IndexCondition::All => KeyPredicate::All,
        IndexCondition::Range { lower, upper } => {
            let mut end = |end: &Option<nereid_planner::RangeEnd>| match end {
                None => Some(Bound::Unbounded),
                Some(end) => match values.next().unwrap_or_default() {
                    Value::Null => None,
                    v if end.inclusive => Some(Bound::Included(v)),
                    v => Some(Bound::Excluded(v)),
                },
            };
            let (Some(lower), Some(upper)) = (end(lower), end(upper)) else {
                return Ok(Vec::new());
            };
            KeyPredicate::Range { lower, upper }
        }
        IndexCondition::StartsWith(_) => match string(&mut values) {
            Some(s) => KeyPredicate::StartsWith(s),
            None => return Ok(Vec::new()),
        },
        IndexCondition::EndsWith(_) => match string(&mut values) {
            Some(s) => KeyPredicate::EndsWith(s),
            None => return Ok(Vec::new()),
        },
        IndexCondition::Contains(_) => match string(&mut values) {
            Some(s) => KeyPredicate::Contains(s),
            None => return Ok(Vec::new()),
        },
    };
    let limit = match query.limit.as_ref().and_then(|_| values.next()) {
        Some(Value::Int(n)) if n >= 0 => usize::try_from(n).ok(),
        _ => None,
    };
    Ok(combinations
        .into_iter()
        .map(|equal| IndexSeek {
            equal,
            next: next.clone(),
            descending: query.order == Some(true),
            limit,
        })
        .collect())
}

/// `items` without repeats (Neo4j de-duplicates an `IN` list before
/// seeking): exact repeats only; values equal across kinds (`1`, `1.0`)
/// find the same entities, which the operators de-duplicate.
fn distinct(items: Vec<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::with_capacity(items.len());
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

/// Whether an entity whose index keys have `values` (in key order; `None`
/// where it lacks the key) is one of `seeks`' answers: every key present
/// (an index holds no other), and the store's own per-candidate decision.
fn satisfies(seeks: &[IndexSeek], values: &[Option<Value>]) -> bool {
    let Some(values) = values.iter().cloned().collect::<Option<Vec<Value>>>() else {
        return false;
    };
    seeks.iter().any(|seek| seek.matches(&values))
}

/// The fallback's answer from `candidates` (entity, its key values): those
/// that satisfy `seeks`, in the key order the query asks for (by
/// `ORDER BY`'s comparison of the first non-equality key), at most the
/// seeks' limit.
pub(crate) fn answer<T>(
    query: &IndexQuery,
    seeks: &[IndexSeek],
    candidates: impl Iterator<Item = (T, Vec<Option<Value>>)>,
) -> Vec<T> {
    let ordered_key = query.equal.len();
    let mut found: Vec<(T, Option<Value>)> = candidates
        .filter(|(_, values)| satisfies(seeks, values))
        .map(|(entity, mut values)| {
            let key = values.get_mut(ordered_key).and_then(Option::take);
            (entity, key)
        })
        .collect();
    if let Some(descending) = query.order {
        found.sort_by(|(_, a), (_, b)| {
            let order = compare_for_order(
                a.as_ref().unwrap_or(&Value::Null),
                b.as_ref().unwrap_or(&Value::Null),
            );
            if descending {
                order.reverse()
            } else {
                order
            }
        });
    }
    let limit = seeks.first().and_then(|s| s.limit).unwrap_or(usize::MAX);
    found.into_iter().take(limit).map(|(e, _)| e).collect()
}

/// The entities every seek finds (`one` asks the store), de-duplicated
/// when there are several; `None` as soon as the store cannot answer one
/// (the caller then answers them all without the index).
pub(crate) fn through_index<T: Copy + Eq + std::hash::Hash>(
    seeks: &[IndexSeek],
    mut one: impl FnMut(&IndexSeek) -> Option<Vec<T>>,
) -> Option<Vec<T>> {
    let mut found = Vec::new();
    for seek in seeks {
        found.extend(one(seek)?);
    }
    if seeks.len() > 1 {
        dedup(&mut found);
    }
    Some(found)
}

/// Keeps the first occurrence of each entity (several `IN` seeks can find
/// the same one: `1` and `1.0` are equal).
fn dedup<T: Copy + Eq + std::hash::Hash>(found: &mut Vec<T>) {
    let mut seen = std::collections::HashSet::with_capacity(found.len());
    found.retain(|e| seen.insert(*e));
}
