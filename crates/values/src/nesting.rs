//! The parts of [`Value`] that every nested value goes through implicitly:
//! dropping, copying and debug printing. Derived, each would recurse once
//! per level of nesting on the thread's stack, and a query chooses the
//! nesting (`reduce(f = {}, i IN range(1, 100000) | {a: [f]})`): a stack
//! overflow aborts the process, every session with it. So `Drop` takes
//! nested containers apart with a work list, and `Clone` and `Debug`
//! recurse through [`nereid_stack::deeper`].
//!
//! A type with `Drop` cannot be taken apart by moving fields out of a
//! pattern; the `into_*` methods move a variant's payload out instead.

use crate::{List, Value};
use std::collections::BTreeMap;
use std::fmt;

/// A null to lend where a `&Value` must outlive the expression that needs
/// it (`args.get(i).unwrap_or(&NULL)`): with `Drop`, `&Value::Null` is a
/// temporary, no longer promoted to a constant.
pub static NULL: Value = Value::Null;

impl Drop for Value {
    fn drop(&mut self) {
        let nested = match self {
            Value::List(list) => list.sole_holder_of_containers(),
            Value::Map(map) => map.values().any(Value::is_container),
            _ => false,
        };
        if nested {
            drop_by_work_list(std::mem::take(self));
        }
    }
}

/// Drops `value` and everything under it, moving the children of each
/// container onto a work list before the container itself is dropped, so
/// each drop is shallow and the stack stays flat whatever the nesting.
/// A list another value still holds is left whole (dropping this holder
/// only counts it down).
fn drop_by_work_list(value: Value) {
    let mut pending = vec![value];
    while let Some(mut value) = pending.pop() {
        match &mut value {
            Value::List(list) => {
                if let Some(items) = list.sole_holder_items() {
                    pending.append(items);
                }
            }
            Value::Map(map) => pending.extend(std::mem::take(map).into_values()),
            _ => {}
        }
    }
}

impl Clone for Value {
    fn clone(&self) -> Value {
        match self {
            Value::Null => Value::Null,
            Value::Bool(b) => Value::Bool(*b),
            Value::Int(i) => Value::Int(*i),
            Value::Float(x) => Value::Float(*x),
            Value::String(s) => Value::String(s.clone()),
            Value::Bytes(b) => Value::Bytes(b.clone()),
            // Shared: copying costs a pointer, however deep the list.
            Value::List(list) => Value::List(list.clone()),
            Value::Map(map) => Value::Map(nereid_stack::deeper(|| map.clone())),
            Value::Node(n) => Value::Node(*n),
            Value::Relationship(r) => Value::Relationship(*r),
            Value::Path(p) => Value::Path(p.clone()),
            Value::VirtualNode(n) => Value::VirtualNode(n.clone()),
            Value::VirtualRelationship(r) => Value::VirtualRelationship(r.clone()),
            Value::Date(d) => Value::Date(*d),
            Value::LocalTime(t) => Value::LocalTime(*t),
            Value::Time(t) => Value::Time(*t),
            Value::LocalDateTime(t) => Value::LocalDateTime(*t),
            Value::DateTime(t) => Value::DateTime(t.clone()),
            Value::Duration(d) => Value::Duration(*d),
            Value::Point(p) => Value::Point(*p),
            Value::WideLocal(w) => Value::WideLocal(w.clone()),
        }
    }
}

/// The derived form (`Int(1)`, `List([Int(1)])`, `{:#?}` alike).
impl fmt::Debug for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let field: (&str, &dyn fmt::Debug) = match self {
            Value::Null => return f.write_str("Null"),
            Value::Bool(b) => ("Bool", b),
            Value::Int(i) => ("Int", i),
            Value::Float(x) => ("Float", x),
            Value::String(s) => ("String", s),
            Value::Bytes(b) => ("Bytes", b),
            Value::List(list) => {
                return nereid_stack::deeper(|| f.debug_tuple("List").field(list).finish())
            }
            Value::Map(map) => {
                return nereid_stack::deeper(|| f.debug_tuple("Map").field(map).finish())
            }
            Value::Node(n) => ("Node", n),
            Value::Relationship(r) => ("Relationship", r),
            Value::Path(p) => ("Path", p),
            Value::VirtualNode(n) => {
                return nereid_stack::deeper(|| f.debug_tuple("VirtualNode").field(n).finish())
            }
            Value::VirtualRelationship(r) => {
                return nereid_stack::deeper(|| {
                    f.debug_tuple("VirtualRelationship").field(r).finish()
                })
            }
            Value::Date(d) => ("Date", d),
            Value::LocalTime(t) => ("LocalTime", t),
            Value::Time(t) => ("Time", t),
            Value::LocalDateTime(t) => ("LocalDateTime", t),
            Value::DateTime(t) => ("DateTime", t),
            Value::Duration(d) => ("Duration", d),
            Value::Point(p) => ("Point", p),
            Value::WideLocal(w) => ("WideLocal", w),
        };
        f.debug_tuple(field.0).field(field.1).finish()
    }
}

impl Value {
    /// True for lists and maps: the values that can hold others.
    pub fn is_container(&self) -> bool {
        matches!(self, Value::List(_) | Value::Map(_))
    }

    /// The string, moved out; the value itself when it is not a string.
    pub fn into_string(mut self) -> Result<String, Value> {
        match &mut self {
            Value::String(s) => Ok(std::mem::take(s)),
            _ => Err(self),
        }
    }

    /// The list, moved out; the value itself when it is not a list.
    pub fn into_list(mut self) -> Result<List, Value> {
        match &mut self {
            Value::List(list) => Ok(list.take()),
            _ => Err(self),
        }
    }

    /// The map, moved out; the value itself when it is not a map.
    pub fn into_map(mut self) -> Result<BTreeMap<String, Value>, Value> {
        match &mut self {
            Value::Map(map) => Ok(std::mem::take(map)),
            _ => Err(self),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `{a: [{a: [ ... ]}]}`, `depth` levels of map and list each.
    fn nested(depth: usize) -> Value {
        let mut value = Value::Int(1);
        for _ in 0..depth {
            let mut map = BTreeMap::new();
            map.insert("a".to_string(), Value::List(List::from(vec![value])));
            value = Value::Map(map);
        }
        value
    }

    /// Runs `f` on a 256 KiB stack, far too small for derived recursion
    /// over the values it builds.
    fn on_a_small_stack(f: impl FnOnce() + Send + 'static) {
        std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(f)
            .unwrap()
            .join()
            .unwrap();
    }

    #[test]
    fn deeply_nested_values_drop_clone_compare_and_print_on_a_small_stack() {
        on_a_small_stack(|| {
            let value = nested(200_000);
            let copy = value.clone();
            assert_eq!(value, copy);
            assert_eq!(value.cypher_eq(&copy), Some(true));
            assert_eq!(
                crate::compare_for_order(&value, &copy),
                std::cmp::Ordering::Equal
            );
            assert!(format!("{value}").len() > 200_000);
            assert!(format!("{value:?}").len() > 200_000);
            drop(copy);
            drop(value);
        });
    }

    #[test]
    fn map_chains_without_lists_drop_and_clone_on_a_small_stack() {
        on_a_small_stack(|| {
            let mut value = Value::Null;
            for _ in 0..200_000 {
                value = Value::Map(BTreeMap::from([("a".to_string(), value)]));
            }
            let copy = value.clone();
            drop(value);
            drop(copy);
        });
    }

    #[test]
    fn a_shared_list_survives_dropping_one_holder() {
        let inner = nested(3);
        let list = List::from(vec![inner.clone()]);
        let holder = Value::List(list.clone());
        drop(holder);
        assert_eq!(list[0], inner);
    }

    #[test]
    fn debug_prints_as_derived() {
        let value = Value::List(List::from(vec![Value::Int(1), Value::Null]));
        assert_eq!(format!("{value:?}"), "List([Int(1), Null])");
        let map = Value::Map(BTreeMap::from([("k".to_string(), Value::from("v"))]));
        assert_eq!(format!("{map:?}"), "Map({\"k\": String(\"v\")})");
    }
}
