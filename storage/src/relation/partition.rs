//! One partition of a relation: its zones (module `zone`) and its S, O and
//! I indexes.
//!
//! A tuple's position (`index`) never changes while it lives, so
//! `(partition, index)` is a stable tuple reference; a slot is reused only
//! after garbage collection freed its dead version (module `gc`).

mod between;
mod probe;
mod scan;
mod value_scan;

pub(crate) use scan::PartitionScan;

use super::subject_index::SubjectIndex;
use super::zone::{split, Tuple, Zone, ZONE_TUPLES};
use super::zones::{Retired, ZoneStore, Zones, MIXED_TYPES};
use super::IndexKeys;
use crate::adjacency::{AdjacencyIndex, StatementIndex};
use crate::error::{Result, StorageError};
use crate::gc::is_dead;
use crate::ids::LOCAL_BITS;
use crate::list_arena::Positions;
use crate::mvcc::{is_commit_ts, NONE};
use crate::typed_value::{Encoded, TypedValue};
use std::sync::Arc;

pub(crate) struct Partition {
    /// Shared with readers that scan without the lock
    /// ([`PartitionScan`]); written only under the partition's write lock.
    zones: ZoneStore,
    /// `make_sid(tag, partition, 0)`: a tuple's SID is this | its local number.
    sid_base: u64,
    by_s: SubjectIndex,
    by_o: AdjacencyIndex,
    by_i: StatementIndex,
    /// Slots of collected versions, reused by the next inserts (module `gc`).
    free: Vec<u32>,
    pub(super) next_local: u32,
}

/// How [`Partition::push`] stamps a tuple.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Stamping {
    /// In its zone's version vector, with this `begin` (a transaction's
    /// marker, or a replayed commit's timestamp).
    Versioned(u64),
    /// As written by a bulk load committing at this timestamp, not yet
    /// published: the zones it starts are created frozen at it
    /// ([`Zone::new_frozen`]), so its tuples there carry no stamps and no
    /// snapshot taken before it is published sees them. Slots reused from
    /// the free list, and the rest of a zone an earlier write started, are
    /// stamped with it as usual.
    Bulk(u64),
}

impl Partition {
    pub(super) fn new(sid_base: u64, keys: IndexKeys) -> Self {
        Partition {
            zones: ZoneStore::new(),
            sid_base,
            by_s: SubjectIndex::new(keys.s, keys.sorted_s),
            by_o: AdjacencyIndex::new(keys.o),
            by_i: StatementIndex::default(),
            free: Vec::new(),
            next_local: 0,
        }
    }

    #[inline]
    pub(crate) fn tuple(&self, index: u32) -> Option<Tuple<'_>> {
        if index >= self.zones.len() {
            return None;
        }
        let (zone, slot) = split(index);
        Some(self.zone(zone).tuple(slot, self.sid_base))
    }

    /// Zone `z` (the caller holds the partition's lock).
    #[inline]
    fn zone(&self, z: usize) -> &Zone {
        self.zones.get(z)
    }

    /// All tuple slots (freed ones included; visibility filters them), in
    /// slot order (a relation scan).
    pub(crate) fn scan(&self) -> impl Iterator<Item = (u32, Tuple<'_>)> {
        (0..self.zones.len()).filter_map(|index| self.tuple(index).map(|t| (index, t)))
    }

    /// The zones replaced since the last call: the writer drops them once
    /// it has released the write lock (module `zones`).
    pub(super) fn take_retired(&mut self) -> Retired {
        self.zones.take_retired()
    }

    /// The zones, for a [`PartitionScan`] that reads them without the lock.
    pub(super) fn zones(&self) -> &Arc<Zones> {
        self.zones.shared()
    }

    /// Tuples whose S is `s` (the S adjacency list), in insertion order.
    pub(crate) fn by_subject(&self, s: u64) -> impl Iterator<Item = (u32, Tuple<'_>)> {
        let exact = self.subject_is();
        self.positions(self.by_s.get(s, &self.zones))
            .filter(move |(_, t)| exact(s, t))
    }

    /// Tuples whose O is the gui `o`, in insertion order.
    pub(crate) fn by_object(&self, o: u64) -> impl Iterator<Item = (u32, Tuple<'_>)> {
        self.positions(self.by_o.get(o))
            .filter(move |(_, t)| t.o.indexed_gui() == Some(o))
    }

    /// How many tuples the O index lists under `o` (an upper bound of what
    /// [`Partition::by_object`] yields; no tuple is read).
    pub(crate) fn object_list_len(&self, o: u64) -> usize {
        self.by_o.get(o).len()
    }

    /// The tuples listed under each of `keys` in the S index, key by key
    /// (each key's in insertion order; many keys are visited in ascending
    /// order, not the given one), through `f(key, tuple)` until it returns
    /// false; returns whether it ran to the end. With `types`, tuples in
    /// zones of one other P throughout are passed over unread (callers
    /// still test P: mixed zones are not filtered). See
    /// [`Partition::batched`].
    pub(crate) fn by_subjects(
        &self,
        keys: &[u64],
        types: Option<&[u32]>,
        f: impl FnMut(u64, Tuple<'_>) -> bool,
    ) -> bool {
        let lookup = |key| self.by_s.get(key, &self.zones);
        let ahead = |key| self.by_s.prefetch(key);
        self.batched(lookup, ahead, keys, types, self.subject_is(), f)
    }

    /// The exact test for a tuple the S index listed under `key`: its S is
    /// `key`, and its slot is not freed when the index's form can list
    /// freed slots (the test is skipped where lists never hold them).
    fn subject_is(&self) -> impl Fn(u64, &Tuple<'_>) -> bool + Copy {
        let runs = self.by_s.lists_freed_slots();
        move |key, t| t.s == key && !(runs && t.is_freed())
    }

    /// [`Partition::by_subjects`] over the O index.
    pub(crate) fn by_objects(
        &self,
        keys: &[u64],
        types: Option<&[u32]>,
        f: impl FnMut(u64, Tuple<'_>) -> bool,
    ) -> bool {
        let lookup = |key| self.by_o.get(key);
        let ahead = |key| self.by_o.prefetch(key);
        let exact = |key, t: &Tuple<'_>| t.o.indexed_gui() == Some(key);
        self.batched(lookup, ahead, keys, types, exact, f)
    }

    /// The tuple with statement id `sid` (the join index); never a freed
    /// slot.
    pub(crate) fn by_statement(&self, sid: u64) -> Option<(u32, Tuple<'_>)> {
        let index = self.by_i.get(sid)?;
        let t = self.tuple(index)?;
        let (zone, slot) = split(index);
        (t.i == sid && !self.zone(zone).is_freed(slot)).then_some((index, t))
    }

    pub(super) fn reserve(&mut self, additional: usize) {
        self.by_i.reserve(additional);
    }

    /// Starts loading the S-index head of `s` (a reader about to probe
    /// many subjects one at a time, with other work between them).
    #[inline]
    pub(crate) fn prefetch_subject(&self, s: u64) {
        self.by_s.prefetch(s);
    }

    /// Prefetches the S and O index heads a [`Partition::push`] of a tuple
    /// with these S and O will update (dense keys only).
    #[inline]
    pub(super) fn prefetch_heads(&self, s: u64, o: TypedValue) {
        self.by_s.prefetch(s);
        if let Some(gui) = o.indexed_gui() {
            self.by_o.prefetch(gui);
        }
    }

    /// Stores one tuple (in a free slot if any, else appended), stamped
    /// as `stamping` says, and indexes it by S, O (guis only) and I.
    pub(super) fn push(
        &mut self,
        s: u64,
        p: u32,
        o: Encoded,
        sid: u64,
        stamping: Stamping,
    ) -> Result<u32> {
        if self.free.is_empty() && self.zones.len() == u32::MAX {
            return Err(StorageError::CapacityExceeded("tuples per partition"));
        }
        let reused = self.free.pop();
        let index = reused.unwrap_or(self.zones.len());
        let (z, slot) = split(index);
        if z == self.zones.count() {
            self.zones.push(match stamping {
                Stamping::Bulk(commit_ts) => Zone::new_frozen(commit_ts),
                Stamping::Versioned(_) => Zone::new(),
            });
        }
        self.write_tuple(z, slot, s, p, o, sid, stamping);
        if reused.is_none() {
            self.zones.set_len(index + 1);
        }
        self.by_s.push(s, index, reused.is_none(), &self.zones);
        if let Some(gui) = o.o.indexed_gui() {
            self.by_o.push(gui, index);
        }
        self.by_i.insert(sid, index);
        Ok(index)
    }

    /// Writes a tuple into free `slot` of zone `z`: in place when the zone
    /// takes it (module `zone`), else into a copy that replaces the zone.
    /// Its stamp (or, in a bulk load's own frozen zone, its freed bit) is
    /// published after its columns, so a reader without the lock never
    /// sees it half written.
    #[allow(clippy::too_many_arguments)]
    fn write_tuple(
        &mut self,
        z: usize,
        slot: usize,
        s: u64,
        p: u32,
        o: Encoded,
        sid: u64,
        stamping: Stamping,
    ) {
        let local = (sid & ((1 << LOCAL_BITS) - 1)) as u32;
        let zone = self.zone(z);
        // `None`: the bulk load's own frozen zone, whose frozen state
        // stamps the tuple.
        let begin = match stamping {
            Stamping::Bulk(commit_ts) if zone.frozen_for(commit_ts) => None,
            Stamping::Bulk(begin) | Stamping::Versioned(begin) => Some(begin),
        };
        let own_bulk_zone = begin.is_none();
        if zone.writable(own_bulk_zone) && zone.try_write_columns(slot, s, p, o, local) {
            zone.publish(slot, begin);
        } else {
            // A bulk load's own zone stays frozen for it; any other zone
            // is written as a versioned copy.
            let mut copy = if own_bulk_zone {
                zone.frozen_for_copy()
            } else {
                zone.writable_copy()
            };
            copy.write_columns(slot, s, p, o, local);
            copy.publish(slot, begin);
            self.zones.replace(z, copy);
        }
        let types = self.zone(z).uniform_p().unwrap_or(MIXED_TYPES);
        self.zones.set_types(z, types);
    }

    /// Unlinks versions dead below `watermark` and frees their slots, then
    /// freezes every zone whose remaining tuples all committed at or before
    /// `watermark` and are not deleted. Frozen zones hold no dead versions
    /// (deleting materialises a zone's versions first), so only versioned
    /// zones are visited. Returns the number of slots freed.
    pub(super) fn collect(&mut self, watermark: u64) -> u64 {
        let mut freed = 0;
        let mut dead = Vec::new();
        for z in 0..self.zones.count() {
            let base = z * ZONE_TUPLES;
            let len = (self.zones.len() as usize - base).min(ZONE_TUPLES);
            let Some(stamps) = self.zone(z).stamps(len) else {
                continue;
            };
            let mut freezable = true;
            dead.clear();
            for (slot, begin, end) in stamps {
                if is_dead(begin, end, watermark) {
                    dead.push(slot);
                } else if !(is_commit_ts(begin) && begin <= watermark && end == NONE) {
                    freezable = false;
                }
            }
            for &slot in &dead {
                let index = (base + slot) as u32;
                let t = self.zone(z).tuple(slot, self.sid_base);
                let (s, o, sid) = (t.s, t.o, t.i);
                self.by_s.remove(s, index);
                if let Some(gui) = o.indexed_gui() {
                    self.by_o.remove(gui, index);
                }
                self.by_i.remove(sid, index);
                self.zone(z).free(slot);
                self.free.push(index);
                freed += 1;
            }
            if freezable {
                self.zones.freeze(z, watermark);
            }
        }
        freed
    }

    /// Gives back the indexes' slack (after a bulk load; see
    /// `AdjacencyIndex::shrink`).
    pub(super) fn shrink_indexes(&mut self) {
        self.by_s.shrink();
        self.by_o.shrink();
    }

    /// Number of tuple slots (visible or not): the cost of a relation scan.
    pub(crate) fn len(&self) -> usize {
        self.zones.len() as usize
    }

    /// Slots holding a tuple (not freed).
    pub(super) fn in_use(&self) -> usize {
        self.len() - self.free.len()
    }

    pub(super) fn fits(&self, count: usize) -> bool {
        u64::from(self.next_local) + count as u64 <= 1 << LOCAL_BITS
            && self.len() + count <= u32::MAX as usize
    }

    /// Number of distinct subjects: with [`Partition::len`], the average
    /// S-degree the access-pattern layer weighs index probes with.
    pub(crate) fn subjects(&self) -> usize {
        self.by_s.keys()
    }

    #[cfg(test)]
    pub(super) fn subject_index_is_sorted(&self) -> bool {
        self.by_s.is_sorted_form()
    }

    /// Number of distinct O guis (the O-index's key count).
    pub(crate) fn objects(&self) -> usize {
        self.by_o.keys()
    }

    /// Zones `(frozen, versioned)`: how much of the partition carries no
    /// version vector.
    pub(crate) fn zone_states(&self) -> (usize, usize) {
        let count = self.zones.count();
        let frozen = (0..count).filter(|&z| self.zone(z).is_frozen()).count();
        (frozen, count - frozen)
    }

    fn positions<'a>(&'a self, list: Positions<'a>) -> impl Iterator<Item = (u32, Tuple<'a>)> + 'a {
        list.filter_map(move |i| self.tuple(i).map(|t| (i, t)))
    }
}

/// Whether zone `z` may hold a tuple whose P is one of `types` (any P when
/// `None`): false only when all its tuples share another P. The one test
/// behind both scans passing over zones and probes skipping listed tuples.
#[inline]
pub(super) fn zone_may_have_type(zones: &Zones, z: usize, types: Option<&[u32]>) -> bool {
    types.is_none() || type_allows(zones.types(z), types)
}

/// Whether a zone whose [`Zones::types`] is `p` may hold a tuple whose P
/// is one of `types` (any P when `None`).
#[inline]
fn type_allows(p: u32, types: Option<&[u32]>) -> bool {
    types.is_none_or(|types| p == MIXED_TYPES || types.contains(&p))
}
