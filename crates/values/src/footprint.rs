//! How many bytes a value occupies, for the executor's per-query memory
//! budget. An estimate, not an exact count: allocator overhead is ignored,
//! a `BTreeMap` entry is charged its key and value plus a pointer's worth of
//! node overhead. What matters is that the figure grows with the value, so
//! that a query building a huge list is refused before the machine is.

use crate::Value;
use std::mem::size_of;

/// Node overhead charged per map entry (B-tree nodes hold up to eleven
/// entries with their edges; one pointer per entry is a fair average).
const MAP_ENTRY_OVERHEAD: usize = size_of::<usize>();

impl Value {
    /// Bytes this value occupies: its own slot plus everything it owns on
    /// the heap, nested values included. Walks nested lists and maps with an
    /// explicit stack, so the nesting of a value cannot exhaust the thread's.
    pub fn footprint(&self) -> usize {
        size_of::<Value>() + self.heap_footprint()
    }

    /// Bytes this value owns on the heap (0 for scalars): what a copy of it
    /// allocates.
    pub fn heap_footprint(&self) -> usize {
        let mut total = 0usize;
        let mut pending: Vec<&Value> = vec![self];
        while let Some(value) = pending.pop() {
            total = total.saturating_add(match value {
                Value::String(s) => s.capacity(),
                Value::Bytes(b) => b.capacity(),
                Value::List(items) => {
                    pending.extend(items.iter().filter(|v| v.owns_heap()));
                    items.capacity().saturating_mul(size_of::<Value>())
                }
                Value::Map(map) => {
                    let mut bytes = 0usize;
                    for (key, item) in map {
                        bytes = bytes.saturating_add(
                            key.capacity()
                                + size_of::<String>()
                                + size_of::<Value>()
                                + MAP_ENTRY_OVERHEAD,
                        );
                        if item.owns_heap() {
                            pending.push(item);
                        }
                    }
                    bytes
                }
                Value::Path(path) => {
                    size_of::<crate::PathValue>()
                        + (path.nodes.capacity() + path.rels.capacity()) * size_of::<u64>()
                }
                Value::DateTime(_) => size_of::<crate::ZonedDateTime>(),
                Value::WideLocal(_) => size_of::<crate::WideLocal>(),
                _ => 0,
            });
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
                | Value::DateTime(_)
                | Value::WideLocal(_)
        )
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
        let nested = Value::List(vec![ints.clone(), Value::String("xy".into())]);
        assert_eq!(nested.heap_footprint(), 2 * slot + 1000 * slot + 2);
        let map = Value::Map(BTreeMap::from([("k".to_string(), ints)]));
        assert!(map.heap_footprint() > 1000 * slot);
    }

    #[test]
    fn deep_nesting_does_not_recurse() {
        let mut value = Value::Null;
        for _ in 0..200_000 {
            value = Value::List(vec![value]);
        }
        assert_eq!(value.heap_footprint(), 200_000 * size_of::<Value>());
        // Dropping a value this deep recurses; leak it in the test.
        std::mem::forget(value);
    }
}
