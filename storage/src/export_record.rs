//! A checkpoint's entities as the store holds them, for an encoder that
//! writes them out without building [`Change`]s.
//!
//! A `Change::CreateNode`/`CreateRel` carries a `BTreeMap<String, Value>`:
//! for every entity of a bulk-loaded graph the export allocated each key's
//! name and each string value, inserted them into a map, and the encoder
//! then walked the map and dropped it all — about a fifth of a warm load's
//! samples (ADR 0185). An [`Exported`] entity keeps the key names borrowed
//! from the store's name tables and the values as stored; a string value is
//! handed to the encoder as the dictionary's own bytes
//! ([`ExportedProperty::with_value`]).
//!
//! What an encoder sees is exactly what the `Change` form holds: the
//! properties come in the map's order (ascending key name, one per name,
//! the one the map would have kept), values that do not decode are left
//! out as the map left them out. [`Exported::into_change`] builds the
//! `Change` form, which the tests compare against.

use crate::change::Change;
use crate::dictionary::RecordHint;
use crate::store::Store;
use crate::typed_value::{Encoded, F_STRING};
use nereid_values::{NodeId, RelId, Value};
use std::collections::BTreeMap;

/// One exported entity (or a schema entry of partition 0's export).
pub enum Exported<'a> {
    /// A schema entry, already a change.
    Change(Change),
    Node(ExportedNode<'a>),
    Rel(ExportedRel<'a>),
}

/// A node: its id, key, labels in the order they were added, properties.
/// The key and the labels are the dictionaries' own bytes (a `String` for
/// each of them and a vector of labels were three of the six allocations
/// per node); the labels are held inline up to two.
pub struct ExportedNode<'a> {
    pub id: NodeId,
    pub key: &'a str,
    pub labels: Labels<'a>,
    pub properties: ExportedProperties<'a>,
}

/// A node's labels, borrowed from the store's dictionary.
pub type Labels<'a> = smallvec::SmallVec<[&'a str; 2]>;

/// A relationship: its id, ends, type and properties.
pub struct ExportedRel<'a> {
    pub id: RelId,
    pub src: NodeId,
    pub dst: NodeId,
    pub rel_type: &'a str,
    pub properties: ExportedProperties<'a>,
}

/// An entity's properties in ascending key name. Several entries may
/// share a name (the map kept the last that decodes): an encoder takes
/// them by [`ExportedProperties::each`], which settles that.
pub struct ExportedProperties<'a> {
    store: &'a Store,
    /// (key's place in name order, key name, stored value), stably
    /// sorted by name.
    entries: Vec<(u32, &'a str, Encoded)>,
}

/// Every property key's place in ascending name order, taken once per
/// export: an entity's properties are sorted by it, comparing numbers
/// instead of the names' bytes (`memcmp` and the sort were ~6% of a
/// bulk load's checkpoint). Names are unique per key, so ordering by
/// place is ordering by name, and a stable sort keeps the same order
/// among entries of one key.
pub(crate) struct KeyOrder<'a> {
    /// Indexed by key id: its place and its name (the name looked up once
    /// per export, not per property), `None` for an id that names no key
    /// (the reserved ones).
    keys: Vec<Option<(u32, &'a str)>>,
}

impl<'a> KeyOrder<'a> {
    /// The order of the keys `store` has now.
    pub(crate) fn of(store: &'a Store) -> Self {
        let mut named: Vec<(u32, &'a str)> = store.keys.names().collect();
        named.sort_unstable_by(|a, b| a.1.cmp(b.1));
        let ids = named.iter().map(|&(id, _)| id as usize + 1);
        let mut keys = vec![None; ids.max().unwrap_or(0)];
        for (place, &(id, name)) in named.iter().enumerate() {
            keys[id as usize] = Some((place as u32, name));
        }
        KeyOrder { keys }
    }

    /// The place and name of key `id`, `None` for a key named after the
    /// order was taken (the export then compares names).
    fn get(&self, id: u32) -> Option<(u32, &'a str)> {
        self.keys.get(id as usize).copied().flatten()
    }

    /// The place of key `id` (tests).
    #[cfg(test)]
    fn place(&self, id: u32) -> Option<u32> {
        self.get(id).map(|(place, _)| place)
    }
}

/// Whether two entries name the same key: by place when both have one
/// (a number, not the names' bytes), by name otherwise.
fn same_key(a: &(u32, &str, Encoded), b: &(u32, &str, Encoded)) -> bool {
    if a.0 != u32::MAX && b.0 != u32::MAX {
        a.0 == b.0
    } else {
        a.1 == b.1
    }
}

/// A property value as the encoder gets it: a string borrowed from the
/// dictionary, anything else decoded.
pub enum ValueRef<'v> {
    /// A string's UTF-8 bytes as the dictionary holds them, not validated
    /// again: every form a string tuple names was interned from a `str`
    /// (`TypedValue::encode_with`, the only writer of string tuples), and
    /// validating SNB's string values once more was ~7% of a load's
    /// checkpoint (ADR 0208). Checked in debug builds.
    Str(&'v [u8]),
    Value(Value),
}

impl<'a> ExportedProperties<'a> {
    /// The properties of `found` (key ids and stored values), in the
    /// order and with the choice of [`crate::txn::Reader`]'s property map;
    /// `order` is the keys' (taken at or after `found`'s keys were named).
    pub(crate) fn new(store: &'a Store, found: &[(u32, Encoded)], order: &KeyOrder<'a>) -> Self {
        // The map's insertion order: inline values first, then those with
        // a record (fetched meanwhile), each in stored order, so a later
        // entry of the same name wins as it did in the map.
        let mut entries: Vec<(u32, &'a str, Encoded)> = Vec::with_capacity(found.len());
        let mut all_placed = true;
        for hinted in [false, true] {
            for &(p, o) in found {
                if (o.hint != RecordHint::NONE) != hinted {
                    continue;
                }
                if hinted {
                    store.literals.prefetch_hinted(o.hint);
                }
                let key = order.get(p).or_else(|| {
                    all_placed = false;
                    Some((u32::MAX, store.keys.name(p)?))
                });
                if let Some((place, name)) = key {
                    entries.push((place, name, o));
                }
            }
        }
        // Stable: entries of one name keep their insertion order.
        if all_placed {
            entries.sort_by_key(|e| e.0);
        } else {
            entries.sort_by(|a, b| a.1.cmp(b.1));
        }
        ExportedProperties { store, entries }
    }

    /// Calls `f` with each property (name, value) in ascending name, one
    /// per name; answers how many it called `f` with, or `f`'s error.
    pub fn each<E>(
        &self,
        mut f: impl FnMut(&'a str, ValueRef<'_>) -> Result<(), E>,
    ) -> Result<usize, E> {
        let mut called = 0;
        let mut at = 0;
        while at < self.entries.len() {
            let name = self.entries[at].1;
            let run = self.entries[at..]
                .iter()
                .take_while(|e| same_key(e, &self.entries[at]))
                .count();
            // The last entry of the run that decodes: the map's value.
            for &(_, _, o) in self.entries[at..at + run].iter().rev() {
                if let Some(r) = self.with_value(o, |v| f(name, v)) {
                    r?;
                    called += 1;
                    break;
                }
            }
            at += run;
        }
        Ok(called)
    }

    /// `f` of the value `o`, or `None` when it does not decode.
    fn with_value<T>(&self, o: Encoded, f: impl FnOnce(ValueRef<'_>) -> T) -> Option<T> {
        let literals = &self.store.literals;
        if o.o.flag == F_STRING {
            let form = literals.form_hinted(o.o.payload, o.hint)?;
            debug_assert!(std::str::from_utf8(form).is_ok(), "a string's form");
            Some(f(ValueRef::Str(form)))
        } else {
            o.decode(literals).map(|v| f(ValueRef::Value(v)))
        }
    }

    /// The properties as the `Change` form's map.
    pub fn to_map(&self) -> BTreeMap<String, Value> {
        let mut map = BTreeMap::new();
        let _ = self.each(|name, value| {
            let value = match value {
                ValueRef::Str(s) => Value::String(String::from_utf8_lossy(s).into_owned()),
                ValueRef::Value(v) => v,
            };
            map.insert(name.to_string(), value);
            Ok::<(), ()>(())
        });
        map
    }
}

impl Exported<'_> {
    /// The entity as the `Change` the export produced before.
    pub fn into_change(self) -> Change {
        match self {
            Exported::Change(change) => change,
            Exported::Node(n) => Change::CreateNode {
                id: n.id,
                key: n.key.to_string(),
                labels: n.labels.iter().map(|l| l.to_string()).collect(),
                properties: n.properties.to_map(),
            },
            Exported::Rel(r) => Change::CreateRel {
                id: r.id,
                src: r.src,
                dst: r.dst,
                rel_type: r.rel_type.to_string(),
                properties: r.properties.to_map(),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::change::StoreConfig;
    use crate::mvcc::View;
    use crate::txn::Reader;
    use std::sync::Arc;

    fn create(store: &Arc<Store>, props: &[(&str, Value)]) -> NodeId {
        let txn = store.begin();
        let map = props.iter().map(|(k, v)| (k.to_string(), v.clone()));
        let id = txn.create_node(&[], &map.collect()).unwrap();
        txn.commit(|_, _| Ok::<(), ()>(()))
            .unwrap()
            .unwrap()
            .publish();
        id
    }

    /// Sorted by an order taken before any key was named (names compared),
    /// between (some placed, some not: names compared) and after (places
    /// compared), an entity's properties come out as its reader's map, in
    /// ascending name.
    #[test]
    fn properties_sort_by_key_place_and_by_name_for_keys_named_later() {
        let store = Store::new(StoreConfig { partitions: 1 });
        let before = KeyOrder::of(&store);
        // Keys named in an order unlike their names' order.
        let first = create(
            &store,
            &[
                ("m", Value::Int(1)),
                ("b", Value::from("bee")),
                ("mm", Value::Int(2)),
            ],
        );
        let between = KeyOrder::of(&store);
        let second = create(
            &store,
            &[
                ("z", Value::from("zed")),
                ("a", Value::Int(3)),
                ("b", Value::Float(0.5)),
            ],
        );
        let after = KeyOrder::of(&store);
        let ids: Vec<u32> = store.keys.names().map(|(id, _)| id).collect();
        assert_eq!(ids.len(), 5);
        assert!(ids.iter().all(|&id| before.place(id).is_none()));
        assert_eq!(
            ids.iter()
                .filter(|&&id| between.place(id).is_some())
                .count(),
            3
        );
        assert!(ids.iter().all(|&id| after.place(id).is_some()));
        let reader = Reader {
            store: &store,
            view: View::committed(store.visible_ts()),
        };
        for node in [first, second] {
            let (_, found) = reader.node_labels_and_stored(node.0);
            for order in [&before, &between, &after] {
                let exported = ExportedProperties::new(&store, &found, order);
                let mut names = Vec::new();
                exported
                    .each(|name, _| {
                        names.push(name);
                        Ok::<(), ()>(())
                    })
                    .unwrap();
                let map = reader.node_properties(node.0);
                assert_eq!(names, map.keys().map(String::as_str).collect::<Vec<_>>());
                assert_eq!(exported.to_map(), map);
            }
        }
    }
}
