//! One partition of a relation: its zones (module `zone`) and its S, O and
//! I indexes.
//!
//! A tuple's position (`index`) never changes while it lives, so
//! `(partition, index)` is a stable tuple reference; a slot is reused only
//! after garbage collection freed its dead version (module `gc`).
//!
//! Readers use a [`Partition`] without its lock (module `pinned`, ADR
//! 0080): its zones and indexes are atomic words and structures replaced
//! whole. What only the writer needs (its plain copy of the zone
//! directory, the free slots, the statement counter) is a
//! [`PartitionWriter`], behind the partition's lock.

mod between;
mod first_match;
mod probe;
mod scan;
mod typed;
mod value_scan;

pub(crate) use scan::PartitionScan;

use super::subject_index::{SubjectIndex, ZoneAccess};
use super::zone::{split, Tuple, Zone, ZONE_TUPLES};
use super::zones::{Retired, ZoneStore, Zones, ZonesNow, MIXED_TYPES};
use super::IndexKeys;
use crate::adjacency::{AdjacencyIndex, StatementIndex};
use crate::error::{Result, StorageError};
use crate::gc::is_dead;
use crate::ids::LOCAL_BITS;
use crate::list_arena::Positions;
use crate::mvcc::{is_commit_ts, NONE};
use crate::pinned;
use crate::typed_value::{Encoded, TypedValue};
use std::sync::atomic::{fence, AtomicBool, Ordering};
use std::sync::Arc;

/// What readers of a partition use (module docs).
pub(crate) struct Partition {
    /// The zone directory, shared with scans ([`PartitionScan`]).
    zones: Arc<Zones>,
    /// `make_sid(tag, partition, 0)`: a tuple's SID is this | its local number.
    sid_base: u64,
    by_s: SubjectIndex,
    by_o: AdjacencyIndex,
    by_i: StatementIndex,
    /// Set (before the tuple is written) when an insert first takes a slot
    /// from the free list: until then slot order is insertion order, which
    /// a checkpoint's walk of the partition relies on (`snapshot::node_walk`).
    reused_slots: AtomicBool,
}

/// What only a partition's writer uses, behind its lock.
pub(crate) struct PartitionWriter {
    /// The writer's plain copy of the zone directory.
    zones: ZoneStore,
    /// Slots of collected versions, reused by the next inserts (module `gc`).
    free: Vec<u32>,
    pub(super) next_local: u32,
}

impl PartitionWriter {
    /// The zones replaced since the last call: the writer drops them once
    /// it has released the write lock (module `zones`).
    pub(super) fn take_retired(&mut self) -> Retired {
        self.zones.take_retired()
    }

    /// Slots holding a tuple (not freed).
    pub(super) fn in_use(&self) -> usize {
        self.zones.len() as usize - self.free.len()
    }

    pub(super) fn fits(&self, count: usize) -> bool {
        u64::from(self.next_local) + count as u64 <= 1 << LOCAL_BITS
            && self.zones.len() as usize + count <= u32::MAX as usize
    }
}

impl ZoneAccess for ZoneStore {
    #[inline]
    fn len(&self) -> u32 {
        ZoneStore::len(self)
    }

    #[inline]
    fn zone(&self, z: usize) -> &Zone {
        self.get(z)
    }
}

impl ZoneAccess for ZonesNow<'_> {
    #[inline]
    fn len(&self) -> u32 {
        ZonesNow::len(self)
    }

    #[inline]
    fn zone(&self, z: usize) -> &Zone {
        ZonesNow::zone(self, z)
    }
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
    /// A partition and its writer's state.
    pub(super) fn new(sid_base: u64, keys: IndexKeys) -> (Self, PartitionWriter) {
        let zones = ZoneStore::new();
        let partition = Partition {
            zones: Arc::clone(zones.shared()),
            sid_base,
            by_s: SubjectIndex::new(keys.s, keys.sorted_s),
            by_o: AdjacencyIndex::new(keys.o),
            by_i: StatementIndex::default(),
            reused_slots: AtomicBool::new(false),
        };
        let writer = PartitionWriter {
            zones,
            free: Vec::new(),
            next_local: 0,
        };
        (partition, writer)
    }

    #[inline]
    pub(crate) fn tuple(&self, index: u32) -> Option<Tuple<'_>> {
        self.tuple_in(self.zones_now(), index)
    }

    /// The tuple at `index` among `zones` (loaded once for many lookups).
    #[inline]
    fn tuple_in<'a>(&'a self, zones: ZonesNow<'a>, index: u32) -> Option<Tuple<'a>> {
        if index >= zones.len() {
            return None;
        }
        let (zone, slot) = split(index);
        Some(zones.zone(zone).tuple(slot, self.sid_base))
    }

    /// The zones as of now (the caller is pinned: module `pinned`).
    #[inline]
    fn zones_now(&self) -> ZonesNow<'_> {
        self.zones.now(pinned::assumed())
    }

    /// All tuple slots (freed ones included; visibility filters them), in
    /// slot order (a relation scan).
    pub(crate) fn scan(&self) -> impl Iterator<Item = (u32, Tuple<'_>)> {
        let zones = self.zones_now();
        (0..zones.len()).filter_map(move |index| self.tuple_in(zones, index).map(|t| (index, t)))
    }

    /// [`Partition::scan`] from slot `start` on: a scan resumed where a
    /// batch ended.
    pub(crate) fn scan_from(&self, start: u32) -> impl Iterator<Item = (u32, Tuple<'_>)> {
        let zones = self.zones_now();
        (start..zones.len())
            .filter_map(move |index| self.tuple_in(zones, index).map(|t| (index, t)))
    }

    /// Whether an insert ever reused a freed slot: while not, a scan
    /// meets each subject's tuples in insertion order (the order
    /// [`Partition::by_subject`] lists them in).
    pub(crate) fn reused_slots(&self) -> bool {
        self.reused_slots.load(Ordering::Acquire)
    }

    /// The zones, for a [`PartitionScan`].
    pub(super) fn zones(&self) -> &Arc<Zones> {
        &self.zones
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

    /// How many tuples the S index lists under `s` (an upper bound of what
    /// [`Partition::by_subject`] yields; no tuple is read).
    pub(crate) fn subject_list_len(&self, s: u64) -> usize {
        self.by_s.get(s, &self.zones).len()
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
        let lookup = |key| self.by_s.get_sorted(key, &self.zones);
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
        let lookup = |key| (Positions::NONE, self.by_o.get(key));
        let ahead = |key| self.by_o.prefetch(key);
        let exact = |key, t: &Tuple<'_>| t.o.indexed_gui() == Some(key);
        self.batched(lookup, ahead, keys, types, exact, f)
    }

    /// The tuple with statement id `sid` (the join index); never a freed
    /// slot.
    pub(crate) fn by_statement(&self, sid: u64) -> Option<(u32, Tuple<'_>)> {
        let index = self.by_i.get(sid)?;
        let t = self.tuple(index)?;
        (t.i == sid && !t.is_freed()).then_some((index, t))
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
    /// as `stamping` says, and indexes it by S, O (guis only) and I. The
    /// caller holds the write lock (`w`) and is pinned.
    pub(super) fn push(
        &self,
        w: &mut PartitionWriter,
        s: u64,
        p: u32,
        o: Encoded,
        sid: u64,
        stamping: Stamping,
    ) -> Result<u32> {
        if w.free.is_empty() && w.zones.len() == u32::MAX {
            return Err(StorageError::CapacityExceeded("tuples per partition"));
        }
        let reused = w.free.pop();
        if reused.is_some() {
            self.reused_slots.store(true, Ordering::Release);
        }
        let index = reused.unwrap_or(w.zones.len());
        let (z, slot) = split(index);
        if z == w.zones.count() {
            w.zones.push(match stamping {
                Stamping::Bulk(commit_ts) => Zone::new_frozen(commit_ts),
                Stamping::Versioned(_) => Zone::new(),
            });
        }
        self.by_s.prepare(s, reused.is_none(), &w.zones);
        // Readers that searched the S index's sorted form and read this
        // tuple's S see the switch from it, if `prepare` made one (module
        // `subject_index`).
        fence(Ordering::Release);
        write_tuple(&mut w.zones, z, slot, s, p, o, sid, stamping);
        if reused.is_none() {
            w.zones.set_len(index + 1);
        }
        self.by_s.push(s, index, &w.zones);
        if let Some(gui) = o.o.indexed_gui() {
            self.by_o.push(gui, index);
        }
        self.by_i.insert(sid, index);
        Ok(index)
    }

    /// Unlinks versions dead below `watermark` and frees their slots, then
    /// freezes every zone whose remaining tuples all committed at or before
    /// `watermark` and are not deleted. Frozen zones hold no dead versions
    /// (deleting materialises a zone's versions first), so only versioned
    /// zones are visited. Each index list loses all its dead positions in
    /// one rewrite (lists are copied, not changed under readers). Returns
    /// the number of slots freed. The caller holds the write lock (`w`).
    pub(super) fn collect(&self, w: &mut PartitionWriter, watermark: u64) -> u64 {
        let mut dead = Vec::new();
        let (mut gone_s, mut gone_o) = (Vec::new(), Vec::new());
        let free_before = w.free.len();
        for z in 0..w.zones.count() {
            let base = z * ZONE_TUPLES;
            let len = (w.zones.len() as usize - base).min(ZONE_TUPLES);
            let Some(stamps) = w.zones.get(z).stamps(len) else {
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
                let zone = w.zones.get(z);
                let t = zone.tuple(slot, self.sid_base);
                gone_s.push((t.s, index));
                if let Some(gui) = t.o.indexed_gui() {
                    gone_o.push((gui, index));
                }
                self.by_i.remove(t.i, index);
                // Freed before its zone is frozen (a frozen zone's slots
                // are visible unless freed); still listed by the S and O
                // indexes until the end of the pass, which readers pass
                // over (a freed slot is visible to no snapshot).
                zone.free(slot);
                w.free.push(index);
            }
            if freezable {
                w.zones.freeze(z, watermark);
            }
        }
        // The free list is used by later inserts only, after the indexes
        // stopped listing its slots here.
        self.by_s.remove_all(&mut gone_s);
        self.by_o.remove_all(&mut gone_o);
        (w.free.len() - free_before) as u64
    }

    /// Gives back the indexes' slack (after a bulk load; see
    /// `AdjacencyIndex::shrink`). The caller holds the write lock.
    pub(super) fn shrink_indexes(&self) {
        self.by_s.shrink();
        self.by_o.shrink();
    }

    /// Number of tuple slots (visible or not): the cost of a relation scan.
    pub(crate) fn len(&self) -> usize {
        self.zones.len() as usize
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

    /// Bytes of `(zones, indexes)`: the tuples' zones with their table,
    /// and the S, O and I indexes (memory accounting, from capacities).
    pub(crate) fn bytes(&self) -> (usize, usize) {
        let indexes = self.by_s.bytes() + self.by_o.bytes() + self.by_i.bytes();
        (self.zones_now().bytes(), indexes)
    }

    /// Zones `(frozen, versioned)`: how much of the partition carries no
    /// version vector.
    pub(crate) fn zone_states(&self) -> (usize, usize) {
        let zones = self.zones_now();
        let count = (zones.len() as usize).div_ceil(ZONE_TUPLES);
        let frozen = (0..count).filter(|&z| zones.zone(z).is_frozen()).count();
        (frozen, count - frozen)
    }

    fn positions<'a>(&'a self, list: Positions<'a>) -> impl Iterator<Item = (u32, Tuple<'a>)> + 'a {
        let zones = self.zones_now();
        list.filter_map(move |i| self.tuple_in(zones, i).map(|t| (i, t)))
    }
}

/// Writes a tuple into free `slot` of zone `z`: in place when the zone
/// takes it (module `zone`), else into a copy that replaces the zone.
/// Its stamp (or, in a bulk load's own frozen zone, its freed bit) is
/// published after its columns, so a reader without the lock never
/// sees it half written.
#[allow(clippy::too_many_arguments)]
fn write_tuple(
    zones: &mut ZoneStore,
    z: usize,
    slot: usize,
    s: u64,
    p: u32,
    o: Encoded,
    sid: u64,
    stamping: Stamping,
) {
    let local = (sid & ((1 << LOCAL_BITS) - 1)) as u32;
    let zone = zones.get(z);
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
        zones.replace(z, copy);
    }
    let types = zones.get(z).uniform_p().unwrap_or(MIXED_TYPES);
    zones.set_types(z, types);
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
