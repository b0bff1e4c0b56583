//! [`List`]: the payload of [`Value::List`], an immutable list shared by
//! reference count, so that copying a list value (into every row an expand
//! or an unwind makes from a row carrying it) costs a pointer, not the
//! list (docs/adr/0093-shared-list-values.md).

use crate::Value;
use std::fmt;
use std::ops::Deref;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// An immutable list of values; `clone` shares it. Equality, hashing and
/// `Debug` are those of the elements in order, as for the `Vec<Value>` it
/// replaced (so `[1] == [1.0]`, as in [`Value`]'s equality).
#[derive(Clone)]
pub struct List(Arc<Shared>);

/// What the holders of one list share: its elements, and the bytes they
/// occupy once counted (see `footprint.rs`). The elements do not change
/// while shared, so the count is made once: the executor charges every
/// list it builds to the query's memory budget, and a list wrapping a
/// list wrapping ... (`reduce` nesting its accumulator) would otherwise be
/// walked whole at each step, quadratic in its depth.
struct Shared {
    items: Vec<Value>,
    /// [`UNCOUNTED`], or the bytes the list's buffer and its elements
    /// occupy, nested lists counted at their share when it was made.
    bytes: AtomicUsize,
}

const UNCOUNTED: usize = usize::MAX;

impl Shared {
    fn new(items: Vec<Value>) -> Shared {
        Shared {
            items,
            bytes: AtomicUsize::new(UNCOUNTED),
        }
    }
}

impl Clone for Shared {
    /// A copy is made to be changed: it starts uncounted.
    fn clone(&self) -> Shared {
        Shared::new(self.items.clone())
    }
}

/// One empty list per thread, shared by every `List::default()`, so that
/// an empty list (and a taken one) allocates nothing.
fn empty() -> Arc<Shared> {
    thread_local! {
        static EMPTY: Arc<Shared> = Arc::new(Shared::new(Vec::new()));
    }
    EMPTY.with(Arc::clone)
}

impl Default for List {
    fn default() -> List {
        List(empty())
    }
}

impl List {
    /// An empty list.
    pub fn new() -> List {
        List::default()
    }

    /// The elements, moved out when this is the list's only holder and
    /// copied (each element cloned, which shares nested lists) otherwise.
    pub fn into_vec(self) -> Vec<Value> {
        match Arc::try_unwrap(self.0) {
            Ok(own) => own.items,
            Err(shared) => shared.items.clone(),
        }
    }

    /// The elements to change in place: this list's own when it is their
    /// only holder, a copy made for it otherwise (`Arc::make_mut`).
    pub fn make_mut(&mut self) -> &mut Vec<Value> {
        let own = Arc::make_mut(&mut self.0);
        *own.bytes.get_mut() = UNCOUNTED;
        &mut own.items
    }

    /// The list, moved out of `self`, which is left empty (allocating
    /// nothing when it was already).
    pub fn take(&mut self) -> List {
        std::mem::replace(self, List(empty()))
    }

    /// The elements to take apart when this is the list's only holder
    /// (dropping a nested value; see `nesting.rs`).
    pub(crate) fn sole_holder_items(&mut self) -> Option<&mut Vec<Value>> {
        Arc::get_mut(&mut self.0).map(|own| {
            *own.bytes.get_mut() = UNCOUNTED;
            &mut own.items
        })
    }

    /// True when this is the list's only holder and it holds lists or maps:
    /// dropping it would recurse into them.
    pub(crate) fn sole_holder_of_containers(&mut self) -> bool {
        Arc::get_mut(&mut self.0).is_some_and(|own| own.items.iter().any(Value::is_container))
    }

    /// How many values hold this list (1: only this one).
    pub fn holders(&self) -> usize {
        Arc::strong_count(&self.0)
    }

    /// Slots allocated for elements (what the list's buffer occupies).
    pub fn capacity(&self) -> usize {
        self.0.items.capacity()
    }

    /// The bytes counted for this list by `footprint.rs`, if counted.
    pub(crate) fn counted_bytes(&self) -> Option<usize> {
        match self.0.bytes.load(Ordering::Relaxed) {
            UNCOUNTED => None,
            bytes => Some(bytes),
        }
    }

    /// Keeps `bytes` as this list's count (one below [`UNCOUNTED`] at most).
    pub(crate) fn set_counted_bytes(&self, bytes: usize) {
        self.0
            .bytes
            .store(bytes.min(UNCOUNTED - 1), Ordering::Relaxed);
    }

    /// True when both are the same shared list.
    pub fn ptr_eq(&self, other: &List) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Deref for List {
    type Target = [Value];

    fn deref(&self) -> &[Value] {
        &self.0.items
    }
}

impl AsRef<[Value]> for List {
    fn as_ref(&self) -> &[Value] {
        &self.0.items
    }
}

impl From<Vec<Value>> for List {
    fn from(items: Vec<Value>) -> List {
        List(Arc::new(Shared::new(items)))
    }
}

impl From<&[Value]> for List {
    fn from(items: &[Value]) -> List {
        List(Arc::new(Shared::new(items.to_vec())))
    }
}

impl<const N: usize> From<[Value; N]> for List {
    fn from(items: [Value; N]) -> List {
        List(Arc::new(Shared::new(items.into())))
    }
}

impl From<List> for Vec<Value> {
    fn from(list: List) -> Vec<Value> {
        list.into_vec()
    }
}

impl FromIterator<Value> for List {
    fn from_iter<I: IntoIterator<Item = Value>>(iter: I) -> List {
        List(Arc::new(Shared::new(iter.into_iter().collect())))
    }
}

impl IntoIterator for List {
    type Item = Value;
    type IntoIter = std::vec::IntoIter<Value>;

    fn into_iter(self) -> Self::IntoIter {
        self.into_vec().into_iter()
    }
}

impl<'a> IntoIterator for &'a List {
    type Item = &'a Value;
    type IntoIter = std::slice::Iter<'a, Value>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.items.iter()
    }
}

impl PartialEq for List {
    fn eq(&self, other: &List) -> bool {
        // Value's equality is reflexive (NaN equals NaN), so a list equals
        // itself without looking.
        self.ptr_eq(other) || self.0.items == other.0.items
    }
}

impl Eq for List {}

impl PartialEq<Vec<Value>> for List {
    fn eq(&self, other: &Vec<Value>) -> bool {
        self.0.items == *other
    }
}

impl PartialEq<[Value]> for List {
    fn eq(&self, other: &[Value]) -> bool {
        self.0.items.as_slice() == other
    }
}

impl std::hash::Hash for List {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.items.hash(state)
    }
}

impl fmt::Debug for List {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.items.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::hash_map::DefaultHasher;
    use std::hash::{Hash, Hasher};

    fn hash(value: &Value) -> u64 {
        let mut hasher = DefaultHasher::new();
        value.hash(&mut hasher);
        hasher.finish()
    }

    #[test]
    fn clones_share_and_writes_copy_only_when_shared() {
        let list: List = (0..3).map(Value::Int).collect();
        let copy = list.clone();
        assert!(copy.ptr_eq(&list));
        assert_eq!(list.holders(), 2);
        let mut changed = copy.clone();
        changed.make_mut().push(Value::Int(3));
        assert!(!changed.ptr_eq(&list));
        assert_eq!(list.len(), 3);
        assert_eq!(changed.len(), 4);
        drop(copy);
        assert_eq!(
            list.clone().into_vec(),
            vec![Value::Int(0), Value::Int(1), Value::Int(2)]
        );
        let unique = List::from(vec![Value::Int(9)]);
        let buffer = unique.as_ptr();
        let moved = unique.into_vec();
        assert_eq!(moved.as_ptr(), buffer, "moved out, not copied");
    }

    #[test]
    fn equality_and_hashing_are_those_of_values() {
        let ints = Value::List(vec![Value::Int(1), Value::Float(f64::NAN)].into());
        let floats = Value::List(vec![Value::Float(1.0), Value::Float(f64::NAN)].into());
        assert_eq!(ints, floats);
        assert_eq!(hash(&ints), hash(&floats));
        assert_eq!(ints, ints.clone());
        assert_eq!(format!("{ints:?}"), "List([Int(1), Float(NaN)])");
    }
}
