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
            Value::String(s) => return s.capacity(),
            Value::Bytes(b) => return b.capacity(),
            Value::List(_) if !shared_lists => return 0,
            Value::List(_) | Value::Map(_) => {}
            _ if !self.owns_heap() => return 0,
            _ => {}
        }
        let mut total = 0usize;
        // Each pending value with the number of holders its bytes are
        // divided among (the product of its enclosing lists' holders).
        let mut pending: Vec<(&Value, usize)> = vec![(self, 1)];
        while let Some((value, holders)) = pending.pop() {
            let bytes = match value {
                Value::String(s) => s.capacity(),
                Value::Bytes(b) => b.capacity(),
                Value::List(_) if !shared_lists => 0,
                Value::List(items) => {
                    let holders = holders.saturating_mul(items.holders());
                    pending.extend(
                        items
                            .iter()
                            .filter(|v| v.owns_heap())
                            .map(|item| (item, holders)),
                    );
                    total = total.saturating_add(
                        items.capacity().saturating_mul(size_of::<Value>()) / holders,
                    );
                    continue;
                }
                Value::Map(map) => map_entries(map, holders, &mut pending),
                // Shared like lists: each holder charged its share.
                Value::VirtualNode(_) | Value::VirtualRelationship(_) if !shared_lists => 0,
                Value::VirtualNode(node) => {
                    let holders = holders.saturating_mul(std::sync::Arc::strong_count(node));
                    let names: usize = node.labels.iter().map(|l| l.capacity()).sum();
                    let entries = map_entries(&node.properties, holders, &mut pending);
                    total = total.saturating_add(
                        (size_of::<crate::VirtualNode>() + names + entries) / holders,
                    );
                    continue;
                }
                // Its end nodes are charged where their own values are held.
                Value::VirtualRelationship(rel) => {
                    let holders = holders.saturating_mul(std::sync::Arc::strong_count(rel));
                    let entries = map_entries(&rel.properties, holders, &mut pending);
                    total = total.saturating_add(
                        (size_of::<crate::VirtualRelationship>()
                            + rel.rel_type.capacity()
                            + entries)
                            / holders,
                    );
                    continue;
                }
                Value::Path(path) => {
                    size_of::<crate::PathValue>()
                        + (path.nodes.capacity() + path.rels.capacity()) * size_of::<u64>()
                }
                Value::DateTime(_) => size_of::<crate::ZonedDateTime>(),
                Value::WideLocal(_) => size_of::<crate::WideLocal>(),
                _ => 0,
            };
            total = total.saturating_add(bytes / holders);
        }
        total
    }

    /// Whether the value owns heap memory (what [`Value::heap_footprint`]
    /// needs to look into).
    fn owns_heap(&self) -> bool {
        matches!(
            self,
            Value::String(_)
                | Value::Bytes(_)
                | Value::List(_)
                | Value::Map(_)
                | Value::Path(_)
                | Value::VirtualNode(_)
                | Value::VirtualRelationship(_)
                | Value::DateTime(_)
                | Value::WideLocal(_)
        )
    }
}

/// A map's (or a virtual entity's properties') entries, keys and slots;
/// its values queued on `pending` to be looked into with `holders`.
fn map_entries<'a>(
    properties: &'a std::collections::BTreeMap<String, Value>,
    holders: usize,
    pending: &mut Vec<(&'a Value, usize)>,
) -> usize {
    let mut bytes = 0usize;
    for (key, item) in properties {
        bytes = bytes.saturating_add(
            key.capacity() + size_of::<String>() + size_of::<Value>() + MAP_ENTRY_OVERHEAD,
        );
        if item.owns_heap() {
            pending.push((item, holders));
        }
    }
    bytes
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
