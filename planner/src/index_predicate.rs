//! Which WHERE conjuncts an index can answer, and which index answers the
//! most of them: recognised once, here, for the rules that turn scans into
//! index seeks (`rules/node_index_seek.rs`, `rules/rel_index_seek.rs`) and
//! for the estimates (`cardinality.rs`), so that what is estimated is what
//! gets planned.
//!
//! A conjunct is a *condition* on a key when it is `x.key = e`, `x.key IN
//! e`, `x.key < e` (`<=`, `>`, `>=`, mirrored forms too), `x.key STARTS
//! WITH e` (`ENDS WITH`, `CONTAINS`) or `x.key IS NOT NULL`, with `e`
//! reading none of the slots the seek binds (so it can be evaluated before
//! the seek, once per input row).
//!
//! An index holds only entities that have every one of its keys, so it can
//! serve a query only when every key has a condition (any condition on a
//! key is false or null where the key is missing). Then: equalities (or
//! `IN`) on a prefix of the keys, one condition on the next key, and the
//! rest is implied presence. The store answers exactly what it was asked,
//! so the conjuncts it answers are dropped and the others stay filters.

use crate::expr::{slots_of, BinaryOp, Expr, Slot};
use crate::index_query::{
    IndexCondition, IndexDescriptor, IndexEntity, IndexKind, IndexQuery, RangeEnd, SeekArg,
};
use crate::property_predicate::{mirrored, property_of};

/// What one conjunct asks of one key.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Condition {
    Equal(Expr),
    In(Expr),
    Lower(RangeEnd),
    Upper(RangeEnd),
    StartsWith(Expr),
    EndsWith(Expr),
    Contains(Expr),
    NotNull,
}

/// `(key, condition)` when `predicate` is a condition on a property of the
/// entity in `slot` whose value reads none of `bound` (the slots the seek
/// would bind, `slot` among them).
pub(crate) fn condition(
    predicate: &Expr,
    slot: Slot,
    bound: &[Slot],
) -> Option<(String, Condition)> {
    let known = |e: &Expr| {
        let mut reads = Vec::new();
        slots_of(e, &mut reads);
        !reads.iter().any(|s| bound.contains(s))
    };
    match predicate {
        Expr::IsNull {
            expr,
            negated: true,
        } => Some((property_of(expr, slot)?, Condition::NotNull)),
        Expr::Binary { op, lhs, rhs } => {
            let (key, value, op) = match (property_of(lhs, slot), property_of(rhs, slot)) {
                (Some(key), _) if known(rhs) => (key, (**rhs).clone(), *op),
                (None, Some(key)) if known(lhs) => (key, (**lhs).clone(), mirrored(*op)?),
                _ => return None,
            };
            let end = |inclusive| RangeEnd { value, inclusive };
            let condition = match op {
                BinaryOp::Equal => Condition::Equal(end(true).value),
                BinaryOp::In => Condition::In(end(true).value),
                BinaryOp::Greater => Condition::Lower(end(false)),
                BinaryOp::GreaterEqual => Condition::Lower(end(true)),
                BinaryOp::Less => Condition::Upper(end(false)),
                BinaryOp::LessEqual => Condition::Upper(end(true)),
                BinaryOp::StartsWith => Condition::StartsWith(end(true).value),
                BinaryOp::EndsWith => Condition::EndsWith(end(true).value),
                BinaryOp::Contains => Condition::Contains(end(true).value),
                _ => return None,
            };
            Some((key, condition))
        }
        _ => None,
    }
}

/// An index query and the positions (in the conditions given) of the
/// conjuncts it answers.
pub(crate) struct Choice {
    pub(crate) query: IndexQuery,
    pub(crate) answered: Vec<usize>,
}

/// The best index among `indexes` (of `entity`, over one of `labels`) for
/// `conditions` (`None` entries are conjuncts that are no condition), or
/// `None` when no index can serve them. Best: a unique index with every
/// key equal, then the most keys equal, then a condition on the next key
/// that narrows the read (a range or prefix before a scan of the whole
/// index), then a range index before a text index, then the index listed
/// first.
pub(crate) fn choose(
    indexes: &[IndexDescriptor],
    entity: IndexEntity,
    labels: &[String],
    conditions: &[Option<(String, Condition)>],
) -> Option<Choice> {
    indexes
        .iter()
        .filter(|i| i.entity == entity && labels.contains(&i.label))
        .filter_map(|i| query_for(i, conditions))
        .rev()
        .max_by_key(|c| score(&c.query))
}

fn score(q: &IndexQuery) -> (bool, usize, u8, bool) {
    let full = q.equal.len() == q.index.keys.len();
    let narrows = match q.next {
        IndexCondition::All => 0,
        _ => 1,
    };
    (
        q.index.unique && full,
        q.equal.len(),
        narrows,
        q.index.kind == IndexKind::Range,
    )
}

/// The query `index` answers for `conditions`, if every key has one.
fn query_for(
    index: &IndexDescriptor,
    conditions: &[Option<(String, Condition)>],
) -> Option<Choice> {
    let on_key = |key: &str| -> Vec<(usize, &Condition)> {
        conditions
            .iter()
            .enumerate()
            .filter_map(|(i, c)| match c {
                Some((k, c)) if k == key => Some((i, c)),
                _ => None,
            })
            .collect()
    };
    if index.keys.iter().any(|k| on_key(k).is_empty()) {
        return None;
    }
    let mut answered = Vec::new();
    let mut equal = Vec::new();
    if index.kind == IndexKind::Range {
        for key in &index.keys {
            let on = on_key(key);
            let pick = on
                .iter()
                .find(|(_, c)| matches!(c, Condition::Equal(_)))
                .or_else(|| on.iter().find(|(_, c)| matches!(c, Condition::In(_))));
            let Some(&(i, condition)) = pick else {
                break;
            };
            equal.push(match condition {
                Condition::In(e) => SeekArg::In(e.clone()),
                Condition::Equal(e) => SeekArg::Equal(e.clone()),
                _ => unreachable!("picked an equality"),
            });
            answered.push(i);
        }
    }
    let next = match index.keys.get(equal.len()) {
        Some(key) => next_condition(index.kind, &on_key(key), &mut answered)?,
        None => IndexCondition::All,
    };
    // Every entry has every key: `IS NOT NULL` on any key not yet used is
    // answered too.
    for key in index.keys.iter().skip(equal.len()) {
        for (i, c) in on_key(key) {
            if *c == Condition::NotNull && !answered.contains(&i) {
                answered.push(i);
            }
        }
    }
    Some(Choice {
        query: IndexQuery {
            index: index.clone(),
            equal,
            next,
            order: None,
            limit: None,
        },
        answered,
    })
}

/// The condition on the first key without an equality: for a range index
/// a range (one lower and one upper end), else a prefix, else the whole
/// index (the key's other conditions then stay filters); for a text index
/// a string condition, or nothing (it holds strings only, so it cannot
/// stand for a scan of every value).
fn next_condition(
    kind: IndexKind,
    on: &[(usize, &Condition)],
    answered: &mut Vec<usize>,
) -> Option<IndexCondition> {
    let first = |want: fn(&Condition) -> bool| on.iter().find(|(_, c)| want(c)).copied();
    let mut take = |found: Option<(usize, &Condition)>| {
        found.map(|(i, c)| {
            answered.push(i);
            c.clone()
        })
    };
    let string = |c: Option<Condition>| match c {
        Some(Condition::StartsWith(e)) => Some(IndexCondition::StartsWith(e)),
        Some(Condition::EndsWith(e)) => Some(IndexCondition::EndsWith(e)),
        Some(Condition::Contains(e)) => Some(IndexCondition::Contains(e)),
        _ => None,
    };
    match kind {
        IndexKind::Range => {
            let lower = take(first(|c| matches!(c, Condition::Lower(_))));
            let upper = take(first(|c| matches!(c, Condition::Upper(_))));
            let end = |c: Option<Condition>| match c {
                Some(Condition::Lower(end) | Condition::Upper(end)) => Some(end),
                _ => None,
            };
            if lower.is_some() || upper.is_some() {
                return Some(IndexCondition::Range {
                    lower: end(lower),
                    upper: end(upper),
                });
            }
            let prefix = take(first(|c| matches!(c, Condition::StartsWith(_))));
            Some(string(prefix).unwrap_or(IndexCondition::All))
        }
        IndexKind::Text => {
            let found = first(|c| matches!(c, Condition::StartsWith(_)))
                .or_else(|| first(|c| matches!(c, Condition::EndsWith(_))))
                .or_else(|| first(|c| matches!(c, Condition::Contains(_))));
            string(take(found))
        }
    }
}
