//! Reading an index: the byte range that holds every candidate of a
//! query, then each candidate decided in the reader's view with Cypher's
//! comparisons. The range is a superset (whole seek groups, whole classes
//! for open ends; module `key`); the decision makes the answer exactly
//! what a scan of the label with the same predicate would return.

use super::defs::IndexKind;
use super::image::{key_of, resolved_equals, resolved_values, Resolved};
use super::index::PropertyIndex;
use super::key;
use super::points::Point;
use crate::txn::Reader;
use nereid_values::{Comparison, Value};
use std::cmp::Ordering;
use std::ops::Bound;

/// A query an index answers: equality on its first keys, then one
/// predicate on the next key, in key order (ascending or not), at most
/// `limit` entities.
#[derive(Clone, Debug, PartialEq)]
pub struct IndexSeek {
    /// Values the first `equal.len()` keys must equal (Cypher `=`).
    pub equal: Vec<Value>,
    /// What the key after them must satisfy.
    pub next: KeyPredicate,
    pub descending: bool,
    pub limit: Option<usize>,
}

impl IndexSeek {
    /// Whether an entity whose index keys have `values` (one per key, in
    /// key order) is one of this seek's answers: the decision a seek makes
    /// per candidate, for callers that must answer the seek without the
    /// index (a scan in its place).
    pub fn matches(&self, values: &[Value]) -> bool {
        matches(self, values)
    }

    /// Every entity whose keys equal `values`.
    pub fn equal(values: Vec<Value>) -> Self {
        IndexSeek {
            equal: values,
            next: KeyPredicate::All,
            descending: false,
            limit: None,
        }
    }
}

/// A predicate on one key of an index.
#[derive(Clone, Debug, PartialEq)]
pub enum KeyPredicate {
    /// Any value (`IS NOT NULL`; with no equalities, the whole index).
    All,
    /// `lower <(=) key <(=) upper` with Cypher's `<` (values of one
    /// comparable family; anything else matches nothing).
    Range {
        lower: Bound<Value>,
        upper: Bound<Value>,
    },
    StartsWith(String),
    EndsWith(String),
    Contains(String),
}

/// The entities `index` holds for `seek` in `reader`'s view, in key order;
/// `None` when the index cannot answer it exactly (a range over lists,
/// points or durations, or over dates while the index holds a date beyond
/// chrono's range): the caller then scans.
pub(crate) fn seek(
    reader: &Reader<'_>,
    index: &PropertyIndex,
    seek: &IndexSeek,
) -> Option<Vec<u64>> {
    let keys = index.def.keys.len();
    if seek.equal.len() > keys || (seek.equal.len() == keys && seek.next != KeyPredicate::All) {
        return None;
    }
    if let Some(found) = point_seek(reader, index, seek) {
        return Some(found);
    }
    let Some((lower, upper)) = byte_range(index, seek)? else {
        return Some(Vec::new());
    };
    let mut found = Vec::new();
    let limit = seek.limit.unwrap_or(usize::MAX);
    if limit == 0 {
        return Some(found);
    }
    let resolved = Resolved::of(reader.store, index);
    index.scan(lower, upper, seek.descending, |candidate, entity| {
        if let Some(values) = resolved_values(reader, index, &resolved, entity) {
            let current = key_of(index.def.kind, &values);
            if current.is_some_and(|k| k.bytes == candidate) && matches(seek, &values) {
                found.push(entity);
            }
        }
        found.len() < limit
    });
    Some(found)
}

/// How many entries of `index` fall in the byte range of `seek`'s
/// candidates, counting at most `cap`: a planner's estimate of a seek's
/// rows for one value (issue 24's "parameter values seen at planning").
/// Entries are not decided in any view (the tree is a superset of every
/// view's keys, and equal numbers share a group), so the count may exceed
/// the seek's answer but never misses one; `None` when the index cannot
/// bound the seek (the caller keeps its average estimate).
pub(crate) fn count_candidates(index: &PropertyIndex, seek: &IndexSeek, cap: u64) -> Option<u64> {
    let Some((lower, upper)) = byte_range(index, seek)? else {
        return Some(0);
    };
    let mut count = 0u64;
    if cap == 0 {
        return Some(0);
    }
    index.scan(lower, upper, false, |_, _| {
        count += 1;
        count < cap
    });
    Some(count)
}

/// An equality on every key of a range index through its side table
/// (module `points`): `None` when the table cannot answer (other seeks,
/// a hash several entries share).
fn point_seek(reader: &Reader<'_>, index: &PropertyIndex, seek: &IndexSeek) -> Option<Vec<u64>> {
    if index.def.kind != IndexKind::Range
        || seek.equal.len() != index.def.keys.len()
        || seek.next != KeyPredicate::All
        || seek.limit == Some(0)
    {
        return None;
    }
    let mut bytes = Vec::with_capacity(32);
    for value in &seek.equal {
        if !key::encode(value, &mut bytes) {
            // Null, or a value no entry holds.
            return Some(Vec::new());
        }
    }
    key::clear_exact(&mut bytes);
    let entity = match index.point(&bytes) {
        Point::None => return Some(Vec::new()),
        Point::Shared => return None,
        Point::One(entity) => entity,
    };
    let resolved = Resolved::of(reader.store, index);
    // The entity's current key has an entry (the tree is a superset of
    // every view's keys) whose equality key is this one when its values
    // equal the seek's: it is the only entity that can match. (Values
    // equal to the seek's encodable ones are encodable: no key check.)
    Some(
        if resolved_equals(reader, index, &resolved, entity, &seek.equal) {
            vec![entity]
        } else {
            Vec::new()
        },
    )
}

/// The whole-entry byte range of the candidates; `Some(None)` when nothing
/// can match (a null, bounds of two families).
#[allow(clippy::type_complexity)]
fn byte_range(
    index: &PropertyIndex,
    seek: &IndexSeek,
) -> Option<Option<(Bound<Vec<u8>>, Bound<Vec<u8>>)>> {
    let mut prefix = Vec::new();
    for value in &seek.equal {
        if value.is_null() || (index.def.kind == IndexKind::Text && !is_string(value)) {
            return Some(None);
        }
        if matches!(value, Value::Int(_) | Value::Float(_)) {
            // Equal numbers differ in their exact part: the group, and
            // the keys after it are decided per candidate.
            let Some(group) = key::group(value) else {
                return Some(None);
            };
            prefix.extend(group);
            return Some(Some(prefixed(prefix)));
        }
        if !key::encode(value, &mut prefix) {
            return Some(None);
        }
    }
    let (low, high) = match &seek.next {
        KeyPredicate::All => return Some(Some(prefixed(prefix))),
        KeyPredicate::StartsWith(s) => {
            let mut low = prefix.clone();
            low.extend(key::group(&Value::String(s.clone()))?);
            let high = low.clone();
            (low, high)
        }
        KeyPredicate::EndsWith(_) | KeyPredicate::Contains(_) => {
            let mut low = prefix.clone();
            low.push(key::STRING);
            (low.clone(), low)
        }
        KeyPredicate::Range { lower, upper } => {
            let class = match (bound_value(lower), bound_value(upper)) {
                (None, None) => return Some(Some(prefixed(prefix))),
                (Some(v), None) | (None, Some(v)) => class_of(v)?,
                (Some(a), Some(b)) => {
                    let (ca, cb) = (class_of(a)?, class_of(b)?);
                    if ca != cb {
                        return Some(None);
                    }
                    ca
                }
            };
            if matches!(class, key::LIST | key::POINT | key::DURATION | key::WIDE)
                || (matches!(class, key::DATE | key::LOCAL_DATE_TIME)
                    && index.wide.load(std::sync::atomic::Ordering::Relaxed) > 0)
            {
                return None;
            }
            if index.def.kind == IndexKind::Text && class != key::STRING {
                return Some(None);
            }
            let end = |bound: Option<&Value>| -> Option<Vec<u8>> {
                let mut at = prefix.clone();
                match bound {
                    Some(v) => at.extend(key::group(v)?),
                    None => at.push(class),
                }
                Some(at)
            };
            (end(bound_value(lower))?, end(bound_value(upper))?)
        }
    };
    let upper = match key::successor(&high) {
        Some(next) => Bound::Excluded(next),
        None => Bound::Unbounded,
    };
    Some(Some((Bound::Included(low), upper)))
}

/// Nulls match nothing; other values give their class.
fn class_of(value: &Value) -> Option<u8> {
    key::class_of(value)
}

fn prefixed(prefix: Vec<u8>) -> (Bound<Vec<u8>>, Bound<Vec<u8>>) {
    let upper = match key::successor(&prefix) {
        Some(next) => Bound::Excluded(next),
        None => Bound::Unbounded,
    };
    (Bound::Included(prefix), upper)
}

fn bound_value(bound: &Bound<Value>) -> Option<&Value> {
    match bound {
        Bound::Included(v) | Bound::Excluded(v) => Some(v),
        Bound::Unbounded => None,
    }
}

fn is_string(value: &Value) -> bool {
    matches!(value, Value::String(_))
}

/// Whether an entity's `values` (one per index key) satisfy the seek.
fn matches(seek: &IndexSeek, values: &[Value]) -> bool {
    for (want, have) in seek.equal.iter().zip(values) {
        if have.cypher_eq(want) != Some(true) {
            return false;
        }
    }
    let Some(value) = values.get(seek.equal.len()) else {
        return true;
    };
    match &seek.next {
        KeyPredicate::All => true,
        KeyPredicate::StartsWith(s) => as_str(value).is_some_and(|v| v.starts_with(s.as_str())),
        KeyPredicate::EndsWith(s) => as_str(value).is_some_and(|v| v.ends_with(s.as_str())),
        KeyPredicate::Contains(s) => as_str(value).is_some_and(|v| v.contains(s.as_str())),
        KeyPredicate::Range { lower, upper } => {
            within(value, lower, |o| o == Ordering::Greater)
                && within(value, upper, |o| o == Ordering::Less)
        }
    }
}

fn as_str(value: &Value) -> Option<&str> {
    match value {
        Value::String(s) => Some(s),
        _ => None,
    }
}

/// Whether `value` is on the right side of `bound` (`strict` says which
/// ordering of value against bound passes when the bound is excluded).
fn within(value: &Value, bound: &Bound<Value>, strict: impl Fn(Ordering) -> bool) -> bool {
    let (b, inclusive) = match bound {
        Bound::Unbounded => return true,
        Bound::Included(b) => (b, true),
        Bound::Excluded(b) => (b, false),
    };
    match value.cypher_cmp(b) {
        Comparison::Ordered(Ordering::Equal) => inclusive,
        Comparison::Ordered(o) => strict(o),
        Comparison::Undefined => false,
    }
}
