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
pub struct ExportedNode<'a> {
    pub id: NodeId,
    pub key: String,
    pub labels: Vec<String>,
    pub properties: ExportedProperties<'a>,
}

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
    /// (key name, stored value), stably sorted by name.
    entries: Vec<(&'a str, Encoded)>,
}

/// A property value as the encoder gets it: a string borrowed from the
/// dictionary, anything else decoded.
pub enum ValueRef<'v> {
    Str(&'v str),
    Value(Value),
}

impl<'a> ExportedProperties<'a> {
    /// The properties of `found` (key ids and stored values), in the
    /// order and with the choice of [`crate::txn::Reader`]'s property map.
    pub(crate) fn new(store: &'a Store, found: &mut [(u32, Encoded)]) -> Self {
        // The map's insertion order: inline values first (stable), so a
        // later entry of the same name wins as it did in the map.
        found.sort_by_key(|(_, o)| o.hint != RecordHint::NONE);
        for (_, o) in found.iter() {
            store.literals.prefetch_hinted(o.hint);
        }
        let mut entries: Vec<(&'a str, Encoded)> = found
            .iter()
            .filter_map(|&(p, o)| Some((store.keys.name(p)?, o)))
            .collect();
        // Stable: entries of one name keep their insertion order.
        entries.sort_by(|a, b| a.0.cmp(b.0));
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
            let name = self.entries[at].0;
            let run = self.entries[at..]
                .iter()
                .take_while(|e| e.0 == name)
                .count();
            // The last entry of the run that decodes: the map's value.
            for &(_, o) in self.entries[at..at + run].iter().rev() {
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
            literals
                .with_form_hinted(o.o.payload, o.hint, |b| {
                    std::str::from_utf8(b).ok().map(|s| f(ValueRef::Str(s)))
                })
                .flatten()
        } else {
            o.decode(literals).map(|v| f(ValueRef::Value(v)))
        }
    }

    /// The properties as the `Change` form's map.
    pub fn to_map(&self) -> BTreeMap<String, Value> {
        let mut map = BTreeMap::new();
        let _ = self.each(|name, value| {
            let value = match value {
                ValueRef::Str(s) => Value::String(s.to_string()),
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
                key: n.key,
                labels: n.labels,
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
