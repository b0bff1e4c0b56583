//! Property writes of a transaction: one key (`SET n.k = v`) or many keys of
//! one entity at once (`SET n += $map`, `SET n = $map`, `CREATE (n $map)`,
//! and the replay of such commits).
//!
//! An entity's properties are one list in its relation's S index, so finding
//! one key's current tuple is a walk of that list. Setting `k` keys one by one
//! walked it `k` times, quadratic in the map's size (100,000 keys took a
//! minute, and so did replaying the commit at start-up); the many-keys path
//! walks it once into a map from key to tuple and keeps that map current as
//! it writes.

use super::schema_writes::Prospect;
use super::state::FreshKey;
use super::write::Writer;
use crate::change::Change;
use crate::error::Result;
use crate::ids::vertex_partition;
use crate::predicates::{PRED_EXISTS, PRED_LABEL};
use crate::relation::{RelKind, TupleRef};
use crate::schema::EntityKind;
use crate::typed_value::TypedValue;
use nereid_values::{NodeId, RelId, Value};
use std::collections::{HashMap, HashSet};

/// Where a property lives: REL_VP for nodes, REL_EP for relationships.
#[derive(Copy, Clone)]
struct PropertySubject {
    kind: RelKind,
    part: usize,
    s: u64,
}

/// How the current tuple of a key is found.
enum Current {
    /// Walk the subject's list for the one key (a single write: stops at
    /// the key, allocates nothing).
    Walk,
    /// Every visible property tuple of the subject by key, read once, and
    /// the keys other transactions inserted unseen (to wait for).
    Map(HashMap<u32, TupleRef>, HashSet<u32>),
}

impl Current {
    /// Reads the subject's visible property tuples into a map; the first
    /// tuple of a key wins, as the single-key walk finds the first.
    fn read(w: &Writer<'_>, subject: PropertySubject) -> Current {
        let reader = w.reader();
        let tuples: Vec<(TupleRef, u32)> = match subject.kind {
            RelKind::Vp => reader
                .node_tuples(subject.s, |p, _| p != PRED_EXISTS && p != PRED_LABEL)
                .into_iter()
                .map(|(at, p, _)| (at, p))
                .collect(),
            _ => reader
                .rel_tuples(subject.s, |_| true)
                .into_iter()
                .map(|(at, p, _)| (at, p))
                .collect(),
        };
        let mut map = HashMap::with_capacity(tuples.len());
        for (at, p) in tuples {
            map.entry(p).or_insert(at);
        }
        let foreign = w.foreign_keys(subject.kind, subject.part, subject.s);
        Current::Map(map, foreign)
    }

    /// Whether another transaction may have inserted `key_id` unseen.
    fn may_be_foreign(&self, key_id: u32) -> bool {
        match self {
            Current::Walk => true,
            Current::Map(_, foreign) => foreign.contains(&key_id),
        }
    }

    fn find(&self, w: &Writer<'_>, subject: PropertySubject, key_id: u32) -> Option<TupleRef> {
        match self {
            Current::Walk => match subject.kind {
                RelKind::Vp => w.reader().node_property_tuple(subject.s, key_id),
                _ => w.reader().rel_property_tuple(subject.s, key_id),
            }
            .map(|(at, _)| at),
            Current::Map(map, _) => map.get(&key_id).copied(),
        }
    }

    /// Records that `key_id`'s current tuple is now `at` (`None`: removed).
    fn replaced(&mut self, key_id: u32, at: Option<TupleRef>) {
        if let Current::Map(map, _) = self {
            match at {
                Some(at) => map.insert(key_id, at),
                None => map.remove(&key_id),
            };
        }
    }
}

impl Writer<'_> {
    fn node_subject(&mut self, id: NodeId) -> Result<PropertySubject> {
        self.lock_node(id)?;
        Ok(PropertySubject {
            kind: RelKind::Vp,
            part: vertex_partition(id.0, self.store.partitions),
            s: id.0,
        })
    }

    fn rel_subject(&mut self, id: RelId) -> Result<PropertySubject> {
        let part = self.lock_rel(id)?;
        Ok(PropertySubject {
            kind: RelKind::Ep,
            part,
            s: id.0,
        })
    }

    pub(crate) fn set_node_property(&mut self, id: NodeId, key: &str, value: Value) -> Result<()> {
        let prospect = Prospect::Set(vec![(key, &value)]);
        let write = |w: &mut Self| {
            let subject = w.node_subject(id)?;
            if w.set_property(subject, &mut Current::Walk, key, &value)? {
                w.push_node_change(id, key, value.clone());
            }
            Ok(())
        };
        self.schema_write(EntityKind::Node, Some(id.0), prospect, write, |_| id.0)
    }

    pub(crate) fn set_rel_property(&mut self, id: RelId, key: &str, value: Value) -> Result<()> {
        let prospect = Prospect::Set(vec![(key, &value)]);
        let write = |w: &mut Self| {
            let subject = w.rel_subject(id)?;
            if w.set_property(subject, &mut Current::Walk, key, &value)? {
                w.push_rel_change(id, key, value.clone());
            }
            Ok(())
        };
        self.schema_write(
            EntityKind::Relationship,
            Some(id.0),
            prospect,
            write,
            |_| id.0,
        )
    }

    /// [`Writer::set_node_property`] of each pair in order (a later pair
    /// of the same key wins), the node's properties read once.
    pub(crate) fn set_node_properties<K: AsRef<str>>(
        &mut self,
        id: NodeId,
        properties: impl IntoIterator<Item = (K, Value)>,
    ) -> Result<()> {
        self.set_properties_of(EntityKind::Node, id.0, properties.into_iter().collect())
    }

    /// [`Writer::set_node_properties`] for a relationship.
    pub(crate) fn set_rel_properties<K: AsRef<str>>(
        &mut self,
        id: RelId,
        properties: impl IntoIterator<Item = (K, Value)>,
    ) -> Result<()> {
        self.set_properties_of(
            EntityKind::Relationship,
            id.0,
            properties.into_iter().collect(),
        )
    }

    fn set_properties_of<K: AsRef<str>>(
        &mut self,
        entity: EntityKind,
        id: u64,
        pairs: Vec<(K, Value)>,
    ) -> Result<()> {
        let prospect = Prospect::Set(pairs.iter().map(|(k, v)| (k.as_ref(), v)).collect());
        let write = |w: &mut Self| {
            let subject = match entity {
                EntityKind::Node => w.node_subject(NodeId(id))?,
                EntityKind::Relationship => w.rel_subject(RelId(id))?,
            };
            let mut current = Current::read(w, subject);
            for (key, value) in &pairs {
                let key = key.as_ref();
                if w.set_property(subject, &mut current, key, value)? {
                    match entity {
                        EntityKind::Node => w.push_node_change(NodeId(id), key, value.clone()),
                        EntityKind::Relationship => {
                            w.push_rel_change(RelId(id), key, value.clone())
                        }
                    }
                }
            }
            Ok(())
        };
        self.schema_write(entity, Some(id), prospect, write, |_| id)
    }

    fn push_node_change(&mut self, id: NodeId, key: &str, value: Value) {
        self.st.changes.push(Change::SetNodeProperty {
            id,
            key: key.to_string(),
            value,
        });
    }

    fn push_rel_change(&mut self, id: RelId, key: &str, value: Value) {
        self.st.changes.push(Change::SetRelProperty {
            id,
            key: key.to_string(),
            value,
        });
    }

    /// Replaces (or with null, removes) one property. Returns whether
    /// anything changed (removing an absent property changes nothing).
    fn set_property(
        &mut self,
        subject: PropertySubject,
        current: &mut Current,
        key: &str,
        value: &Value,
    ) -> Result<bool> {
        let describe = || format!("property {key}");
        if value.is_null() {
            let Some(key_id) = self.store.keys.lookup(key) else {
                return Ok(false);
            };
            let Some(at) = current.find(self, subject, key_id) else {
                return Ok(false);
            };
            self.delete(at, describe)?;
            current.replaced(key_id, None);
        } else {
            let o = TypedValue::encode(value, &self.store.literals)?;
            let key_id = self.store.keys.intern(key);
            match current.find(self, subject, key_id) {
                Some(at) => self.delete(at, describe)?,
                None => {
                    let key = FreshKey {
                        kind: subject.kind,
                        part: subject.part,
                        s: subject.s,
                        p: key_id,
                        o: None,
                    };
                    if current.may_be_foreign(key_id) {
                        self.await_fresh_key(&key)?;
                    }
                    self.st.fresh.push(key);
                }
            }
            let (_, at) = self.insert_at(subject.kind, subject.part, subject.s, key_id, o, None)?;
            current.replaced(key_id, Some(at));
        }
        self.st.stats.properties_set += 1;
        Ok(true)
    }
}
