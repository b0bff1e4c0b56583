//! What the index operators (`node_index_seek.rs`, `rel_index_seek.rs`)
//! share: turning a planned [`IndexQuery`], with its values evaluated for
//! one input row, into the store's seeks, and answering the same seeks
//! without the index when the store cannot (module docs of
//! `nereid_storage::schema::seek`: a missing index, or a range over values
//! its keys do not order).
//!
//! The fallback is a test of candidate values with the comparisons the
//! filter it replaced would have used (`cypher_eq` for `=` and `IN`,
//! `cypher_cmp` for ranges, string tests only between strings), then the
//! order and limit the query asks for, so a query's rows never depend on
//! whether an index answered it.

use crate::batch::Batch;
use crate::context::ExecContext;
use crate::error::{type_mismatch, ExecResult};
use nereid_planner::{IndexCondition, IndexQuery, SeekArg};
use nereid_storage::{IndexSeek, KeyPredicate};
use nereid_values::{compare_for_order, Comparison, Value};
use std::cmp::Ordering;
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
        let choices = match (arg, value) {
            (_, Value::Null) => return Ok(Vec::new()),
            (SeekArg::Equal(_), v) => vec![v],
            (SeekArg::In(_), Value::List(items)) => distinct(items),
            (SeekArg::In(_), other) => return Err(type_mismatch("List", &other)),
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
    let string = |values: &mut dyn Iterator<Item = Value>| match values.next() {
        Some(Value::String(s)) => Some(s),
        _ => None,
    };
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
/// where it lacks the key) is one of `seeks`' answers: every key present,
/// the equalities `cypher_eq`-true, the next key passing the predicate.
pub(crate) fn satisfies(seeks: &[IndexSeek], values: &[Option<Value>]) -> bool {
    let Some(values) = values
        .iter()
        .map(Option::as_ref)
        .collect::<Option<Vec<&Value>>>()
    else {
        return false;
    };
    seeks.iter().any(|seek| {
        let equal = seek
            .equal
            .iter()
            .zip(&values)
            .all(|(want, have)| have.cypher_eq(want) == Some(true));
        equal
            && values
                .get(seek.equal.len())
                .is_none_or(|value| passes(&seek.next, value))
    })
}

fn passes(predicate: &KeyPredicate, value: &Value) -> bool {
    let text = match value {
        Value::String(s) => Some(s.as_str()),
        _ => None,
    };
    match predicate {
        KeyPredicate::All => true,
        KeyPredicate::StartsWith(s) => text.is_some_and(|v| v.starts_with(s.as_str())),
        KeyPredicate::EndsWith(s) => text.is_some_and(|v| v.ends_with(s.as_str())),
        KeyPredicate::Contains(s) => text.is_some_and(|v| v.contains(s.as_str())),
        KeyPredicate::Range { lower, upper } => {
            within(value, lower, Ordering::Greater) && within(value, upper, Ordering::Less)
        }
    }
}

/// Whether `value` is on the inner side of `bound` (`inside` is how the
/// value compares with it when it passes strictly).
fn within(value: &Value, bound: &Bound<Value>, inside: Ordering) -> bool {
    let (b, inclusive) = match bound {
        Bound::Unbounded => return true,
        Bound::Included(b) => (b, true),
        Bound::Excluded(b) => (b, false),
    };
    match value.cypher_cmp(b) {
        Comparison::Ordered(Ordering::Equal) => inclusive,
        Comparison::Ordered(o) => o == inside,
        Comparison::Undefined => false,
    }
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

/// Keeps the first occurrence of each entity (several `IN` seeks can find
/// the same one: `1` and `1.0` are equal).
pub(crate) fn dedup<T: Copy + Eq + std::hash::Hash>(found: &mut Vec<T>) {
    let mut seen = std::collections::HashSet::with_capacity(found.len());
    found.retain(|e| seen.insert(*e));
}
