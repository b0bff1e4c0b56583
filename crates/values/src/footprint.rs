//! How many bytes a value occupies, for the executor's per-query memory
//! budget. An estimate, not an exact count: allocator overhead is ignored,
//! a `BTreeMap` entry is charged its key and value plus a pointer's worth of
//! node overhead. What matters is that the figure grows with the value, so
//! that a query building a huge list is refused before the machine is.
//!
//! Lists are shared ([`crate::List`]): a list held by `k` values is charged
//! a `k`-th of its size to each of them, so that summing the footprints of
//! every holder counts the list once (the way a proportional set size counts
//! shared pages), and a list only this value holds is charged in full, as
//! when it is built. Copying a value ([`Value::clone_heap_footprint`])
//! allocates nothing for a list (docs/adr/0093-shared-list-values.md).
//!
//! A list's own count (its buffer and elements) is made once and kept in
//! the list, which does not change while shared: charging each list a
//! query builds stays linear when lists nest lists (`reduce` wrapping its
//! accumulator level by level walked the whole value at each step). A
//! nested shared list is counted at its share when the outer list is
//! counted; later changes in its holders do not move the outer's count.

use crate::Value;
use std::mem::size_of;

/// Node overhead charged per map entry (B-tree nodes hold up to eleven
/// entries with their edges; one pointer per entry is a fair average).
const MAP_ENTRY_OVERHEAD: usize = size_of::<usize>();

impl Value {
    /// Bytes this value occupies: its own slot plus its share of everything
    /// it holds on the heap, nested values included (see
    /// [`Value::heap_footprint`]).
    pub fn footprint(&self) -> usize {
        size_of::<Value>() + self.heap_footprint()
    }

    /// Bytes this value holds on the heap (0 for scalars), a list shared by
    /// `k` holders counting a `k`-th of its size (its elements' included):
    /// what dropping every holder frees, divided among them. Walks nested
    /// lists and maps with an explicit stack, so the nesting of a value
    /// cannot exhaust the thread's.
    pub fn heap_footprint(&self) -> usize {
        self.walk(true)
    }

    /// Bytes a copy of this value allocates (`clone`): a string's or a
    /// map's contents, but nothing for a list, which the copy shares.
    pub fn clone_heap_footprint(&self) -> usize {
        self.walk(false)
    }

    /// Sums the heap bytes under `self`; with `shared_lists`, lists are
    /// looked into (each charged its share), else they count nothing.
    fn walk(&self, shared_lists: bool) -> usize {
        // Most values own nothing or one buffer: answered without the
        // stack's allocation (the executor asks for every slot of every row
        // it copies).
        match self {
            Value::List(_) if !shared_lists => 0,
            Value::List(_) | Value::Map(_) => Counting::new(shared_lists).total(self),
            _ => leaf_bytes(self),
        }
    }
}

/// Bytes a value that holds no other value occupies on the heap.
fn leaf_bytes(value: &Value) -> usize {
    match value {
        Value::String(s) => s.capacity(),
        Value::Bytes(b) => b.capacity(),
        Value::Path(path) => {
            size_of::<crate::PathValue>()
                + (path.nodes.capacity() + path.rels.capacity()) * size_of::<u64>()
        }
        Value::DateTime(_) => size_of::<crate::ZonedDateTime>(),
        Value::WideLocal(_) => size_of::<crate::WideLocal>(),
        _ => 0,
    }
}

/// Bytes of a map's entries themselves (keys, slots, node overhead), not
/// of the values they hold.
fn map_entry_bytes(map: &std::collections::BTreeMap<String, Value>) -> usize {
    map.keys().fold(0usize, |sum, key| {
        sum.saturating_add(
            key.capacity() + size_of::<String>() + size_of::<Value>() + MAP_ENTRY_OVERHEAD,
        )
    })
}

/// A list, map or virtual entity being counted: its elements still to
/// visit and the bytes summed so far (an entity's with the holders of its
/// shared allocation, among whom they are divided).
enum Open<'a> {
    List(&'a crate::List, std::slice::Iter<'a, Value>, usize),
    Map(
        std::collections::btree_map::Values<'a, String, Value>,
        usize,
    ),
    Entity(
        std::collections::btree_map::Values<'a, String, Value>,
        usize,
        usize,
    ),
}

impl Open<'_> {
    fn add(&mut self, bytes: usize) {
        let (Open::List(_, _, sum) | Open::Map(_, sum) | Open::Entity(_, sum, _)) = self;
        *sum = sum.saturating_add(bytes);
    }
}

/// A post-order walk of nested lists and maps with an explicit stack, so
/// that the nesting of a value cannot exhaust the thread's. A list's own
/// bytes (its buffer and its elements, nested lists at their share) are
/// counted once and kept in the list (see `list.rs`); each holder is
/// charged that count divided by the list's current holders.
struct Counting<'a> {
    shared_lists: bool,
    stack: Vec<Open<'a>>,
}

/// What visiting one value gives: its bytes, or a container to open.
enum Visit<'a> {
    Bytes(usize),
    Open(Open<'a>),
}

impl<'a> Counting<'a> {
    fn new(shared_lists: bool) -> Counting<'a> {
        Counting {
            shared_lists,
            stack: Vec::new(),
        }
    }

    fn visit(&self, value: &'a Value) -> Visit<'a> {
        match value {
            Value::List(_) if !self.shared_lists => Visit::Bytes(0),
            Value::List(list) => match list.counted_bytes() {
                Some(bytes) => Visit::Bytes(bytes / list.holders()),
                None => Visit::Open(Open::List(
                    list,
                    list.iter(),
                    list.capacity().saturating_mul(size_of::<Value>()),
                )),
            },
            Value::Map(map) => Visit::Open(Open::Map(map.values(), map_entry_bytes(map))),
            // Shared like lists: each holder charged its share. A virtual
            // relationship's end nodes are charged where their own values
            // are held.
            Value::VirtualNode(_) | Value::VirtualRelationship(_) if !self.shared_lists => {
                Visit::Bytes(0)
            }
            Value::VirtualNode(node) => {
                let names: usize = node.labels.iter().map(String::capacity).sum();
                Visit::Open(Open::Entity(
                    node.properties.values(),
                    size_of::<crate::VirtualNode>() + names + map_entry_bytes(&node.properties),
                    std::sync::Arc::strong_count(node),
                ))
            }
            Value::VirtualRelationship(rel) => Visit::Open(Open::Entity(
                rel.properties.values(),
                size_of::<crate::VirtualRelationship>()
                    + rel.rel_type.capacity()
                    + map_entry_bytes(&rel.properties),
                std::sync::Arc::strong_count(rel),
            )),
            other => Visit::Bytes(leaf_bytes(other)),
        }
    }

    fn total(mut self, value: &'a Value) -> usize {
        match self.visit(value) {
            Visit::Bytes(bytes) => return bytes,
            Visit::Open(open) => self.stack.push(open),
        }
        loop {
            // The walk returns when its outermost container closes, so
            // the stack is never empty here.
            let next = match self.stack.last_mut() {
                Some(Open::List(_, items, _)) => items.next(),
                Some(Open::Map(values, _) | Open::Entity(values, _, _)) => values.next(),
                None => return 0,
            };
            let closed = match next {
                Some(child) => match self.visit(child) {
                    Visit::Bytes(bytes) => {
                        if let Some(parent) = self.stack.last_mut() {
                            parent.add(bytes);
                        }
                        continue;
                    }
                    Visit::Open(open) => {
                        self.stack.push(open);
                        continue;
                    }
                },
                None => self.stack.pop(),
            };
            let bytes = match closed {
                Some(Open::List(list, _, own)) => {
                    list.set_counted_bytes(own);
                    own / list.holders()
                }
                Some(Open::Map(_, own)) => own,
                Some(Open::Entity(_, own, holders)) => own / holders.max(1),
                None => 0,
            };
            match self.stack.last_mut() {
                Some(parent) => parent.add(bytes),
                None => return bytes,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn footprint_grows_with_the_value_and_counts_nested_values() {
        let slot = size_of::<Value>();
        assert_eq!(Value::Int(7).footprint(), slot);
        assert_eq!(Value::String("abc".into()).heap_footprint(), 3);
        let ints = Value::List((0..1000).map(Value::Int).collect());
        assert_eq!(ints.heap_footprint(), 1000 * slot);
        let nested = Value::List(vec![ints, Value::String("xy".into())].into());
        assert_eq!(nested.heap_footprint(), 2 * slot + 1000 * slot + 2);
        let fresh = Value::List((0..1000).map(Value::Int).collect());
        let map = Value::Map(BTreeMap::from([("k".to_string(), fresh)]));
        assert!(map.heap_footprint() > 1000 * slot);
    }

    #[test]
    fn a_shared_list_is_divided_among_its_holders_and_copies_for_free() {
        let slot = size_of::<Value>();
        let ints = Value::List((0..1000).map(Value::Int).collect());
        let rows = [ints.clone(), ints.clone(), ints.clone()];
        // Four holders: each is charged a quarter, together the list once.
        assert_eq!(ints.heap_footprint(), 250 * slot);
        let held: usize = rows.iter().map(Value::heap_footprint).sum();
        assert_eq!(held + ints.heap_footprint(), 1000 * slot);
        assert_eq!(ints.clone_heap_footprint(), 0);
        // A shared list inside a unique one: the outer's slots in full,
        // the inner's share (five holders now).
        let outer = Value::List(vec![ints.clone(), Value::String("xy".into())].into());
        assert_eq!(outer.heap_footprint(), 2 * slot + 2 + 1000 * slot / 5);
        assert_eq!(Value::String("xy".into()).clone_heap_footprint(), 2);
    }

    #[test]
    fn a_list_is_counted_once_and_recounted_when_changed() {
        let slot = size_of::<Value>();
        let mut list: crate::List = (0..10).map(Value::Int).collect();
        assert_eq!(list.counted_bytes(), None);
        let value = Value::List(list.clone());
        assert_eq!(value.heap_footprint(), 10 * slot / 2);
        assert_eq!(list.counted_bytes(), Some(10 * slot));
        // Changing a shared list changes a copy, counted afresh; the list
        // the value holds keeps its count.
        list.make_mut().push(Value::String("abc".into()));
        assert_eq!(list.counted_bytes(), None);
        let capacity = list.capacity();
        assert_eq!(Value::List(list).heap_footprint(), capacity * slot + 3);
        assert_eq!(value.heap_footprint(), 10 * slot);
    }

    #[test]
    fn nesting_lists_step_by_step_counts_each_level_once() {
        // What `reduce(f = x, i IN range(..) | [f])` builds: each level's
        // count reads the one below's kept count instead of walking it.
        let slot = size_of::<Value>();
        let mut value = Value::List(vec![Value::Null].into());
        for level in 2..=1000 {
            let next = Value::List(vec![value].into());
            assert_eq!(next.heap_footprint(), level * slot);
            value = next;
        }
        if let Value::List(list) = &value {
            assert_eq!(list.counted_bytes(), Some(1000 * slot));
        }
    }

    #[test]
    fn deep_nesting_does_not_recurse() {
        let mut value = Value::Null;
        for _ in 0..200_000 {
            value = Value::List(vec![value].into());
        }
        assert_eq!(value.heap_footprint(), 200_000 * size_of::<Value>());
        // Dropping a value this deep recurses; leak it in the test.
        std::mem::forget(value);
    }
}
