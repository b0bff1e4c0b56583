//! One partition of a relation: its zones (module `zone`) and its S, O and
//! I indexes.
//!
//! A tuple's position (`index`) never changes while it lives, so
//! `(partition, index)` is a stable tuple reference; a slot is reused only
//! after garbage collection freed its dead version (module `gc`).

mod between;
mod probe;
mod value_scan;

use super::select::{selected, ScanFilter};
use super::subject_index::SubjectIndex;
use super::zone::{split, Tuple, Zone, ZONE_TUPLES};
use super::IndexKeys;
use crate::adjacency::{AdjacencyIndex, StatementIndex};
use crate::error::{Result, StorageError};
use crate::gc::is_dead;
use crate::ids::LOCAL_BITS;
use crate::list_arena::Positions;
use crate::mvcc::{is_commit_ts, View, NONE};
use crate::prefetch;
use crate::typed_value::{Encoded, TypedValue};

/// A [`Partition::zone_types`] entry for a zone whose tuples have several
/// P (or none yet). Never a P: predicate ids are counted from 0 upwards.
const MIXED_TYPES: u32 = u32::MAX;

pub(crate) struct Partition {
    zones: Vec<Zone>,
    /// Per zone, the one P of all its tuples, or [`MIXED_TYPES`]: index
    /// probes pass over listed tuples of an unwanted type without touching
    /// their zone (a few bytes per zone, so this stays in cache where the
    /// zone headers would not).
    zone_types: Vec<u32>,
    /// Slots in use or freed: `zones` covers `0..len`.
    len: u32,
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
            zones: Vec::new(),
            zone_types: Vec::new(),
            len: 0,
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
        if index >= self.len {
            return None;
        }
        let (zone, slot) = split(index);
        Some(self.zones[zone].tuple(slot, self.sid_base))
    }

    /// All tuple slots (freed ones included; visibility filters them), in
    /// slot order (a relation scan).
    pub(crate) fn scan(&self) -> impl Iterator<Item = (u32, Tuple<'_>)> {
        (0..self.len).filter_map(|index| self.tuple(index).map(|t| (index, t)))
    }

    /// The relation scan's inner loop, zone by zone and column by column:
    /// for every slot that passes `filter` and is visible to `view`, calls
    /// `sink(sid, s, p, o payload)`, stopping when it returns false.
    /// Frozen zones with narrow S and O (the bulk of old data) are filtered
    /// as bit vectors (module `select`) with no per-slot dispatch and no
    /// atomics; other zones row by row, visibility last. A zone whose P is
    /// one excluded type throughout is passed over unread. Returns the
    /// slots visited (passed-over zones included) and whether the scan ran
    /// to the end.
    pub(crate) fn scan_visible(
        &self,
        view: &View,
        filter: &ScanFilter<'_>,
        mut sink: impl FnMut(u64, u64, u32, u64) -> bool,
    ) -> (u64, bool) {
        let scanned = |z: usize| self.zone_may_have_type(z, filter.types);
        for (z, zone) in self.zones.iter().enumerate() {
            if !scanned(z) || !zone.may_be_visible(view) {
                continue;
            }
            let base = z * ZONE_TUPLES;
            let len = (self.len as usize - base).min(ZONE_TUPLES);
            if let Some(columns) = zone.frozen_narrow() {
                let next = (z + 1..self.zones.len()).find(|&next| scanned(next));
                if let Some(next) = next.and_then(|next| self.zones[next].frozen_narrow()) {
                    // Each column is its own array; hardware prefetchers
                    // do not run ahead across them.
                    next.p.prefetch_column();
                    if filter.s.is_some() {
                        prefetch::slice(next.s.1);
                    }
                    if filter.o.is_some() {
                        prefetch::slice(next.o.1);
                    }
                }
                let mut sel = zone.live_selection(len);
                filter.select_narrow(&mut sel, &columns);
                let ((s_high, s_low), (o_high, o_low)) = (columns.s, columns.o);
                for slot in selected(&sel) {
                    let (s, o) = (
                        s_high | u64::from(s_low[slot]),
                        o_high | u64::from(o_low[slot]),
                    );
                    let sid = self.sid_base | u64::from(columns.local.get(slot));
                    if !sink(sid, s, columns.p.get(slot), o) {
                        return ((base + slot + 1) as u64, false);
                    }
                }
                continue;
            }
            for slot in 0..len {
                let (s, p, o, local) = zone.row(slot);
                if filter.matches(s, p, o)
                    && zone.visible(slot, view)
                    && !sink(self.sid_base | u64::from(local), s, p, o)
                {
                    return ((base + slot + 1) as u64, false);
                }
            }
        }
        (u64::from(self.len), true)
    }

    /// Tuples whose S is `s` (the S adjacency list), in insertion order.
    pub(crate) fn by_subject(&self, s: u64) -> impl Iterator<Item = (u32, Tuple<'_>)> {
        let exact = self.subject_is();
        self.positions(self.by_s.get(s, &self.zones, self.len))
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
        let lookup = |key| self.by_s.get(key, &self.zones, self.len);
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

    /// Whether the tuple at `index` may have one of `types` as P, judged
    /// by its zone alone.
    #[inline]
    fn may_have_type(&self, index: u32, types: Option<&[u32]>) -> bool {
        self.zone_may_have_type(split(index).0, types)
    }

    /// Whether zone `z` may hold a tuple whose P is one of `types` (any P
    /// when `None`): false only when all its tuples share another P. The
    /// one test behind both scans passing over zones and probes skipping
    /// listed tuples.
    #[inline]
    fn zone_may_have_type(&self, z: usize, types: Option<&[u32]>) -> bool {
        let Some(types) = types else { return true };
        let p = self.zone_types[z];
        p == MIXED_TYPES || types.contains(&p)
    }

    /// The tuple with statement id `sid` (the join index); never a freed
    /// slot.
    pub(crate) fn by_statement(&self, sid: u64) -> Option<(u32, Tuple<'_>)> {
        let index = self.by_i.get(sid)?;
        let t = self.tuple(index)?;
        let (zone, slot) = split(index);
        (t.i == sid && !self.zones[zone].is_freed(slot)).then_some((index, t))
    }

    pub(super) fn reserve(&mut self, additional: usize) {
        let slots = self.len as usize + additional.saturating_sub(self.free.len());
        self.zones
            .reserve(slots.div_ceil(ZONE_TUPLES).saturating_sub(self.zones.len()));
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
        let reused = self.free.pop();
        let index = match reused {
            Some(index) => index,
            None => {
                let index = self.len;
                if index == u32::MAX {
                    return Err(StorageError::CapacityExceeded("tuples per partition"));
                }
                if split(index).1 == 0 {
                    self.zones.push(match stamping {
                        Stamping::Bulk(commit_ts) => Zone::new_frozen(commit_ts),
                        Stamping::Versioned(_) => Zone::new(),
                    });
                    self.zone_types.push(MIXED_TYPES);
                }
                self.len += 1;
                index
            }
        };
        let (zone, slot) = split(index);
        let local = (sid & ((1 << LOCAL_BITS) - 1)) as u32;
        let target = &mut self.zones[zone];
        match stamping {
            Stamping::Bulk(commit_ts) if target.frozen_for(commit_ts) => {
                target.write_frozen(slot, s, p, o, local);
            }
            Stamping::Bulk(begin) | Stamping::Versioned(begin) => {
                target.write(slot, s, p, o, local, begin)
            }
        }
        self.zone_types[zone] = self.zones[zone].uniform_p().unwrap_or(MIXED_TYPES);
        self.by_s
            .push(s, index, reused.is_none(), &self.zones, self.len);
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
    /// zones are visited. Returns the number of slots freed.
    pub(super) fn collect(&mut self, watermark: u64) -> u64 {
        let mut freed = 0;
        let mut dead = Vec::new();
        for z in 0..self.zones.len() {
            let base = z * ZONE_TUPLES;
            let len = (self.len as usize - base).min(ZONE_TUPLES);
            let Some(stamps) = self.zones[z].stamps(len) else {
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
                let t = self.zones[z].tuple(slot, self.sid_base);
                let (s, o, sid) = (t.s, t.o, t.i);
                self.by_s.remove(s, index);
                if let Some(gui) = o.indexed_gui() {
                    self.by_o.remove(gui, index);
                }
                self.by_i.remove(sid, index);
                self.zones[z].free(slot);
                self.free.push(index);
                freed += 1;
            }
            if freezable {
                self.zones[z].freeze(watermark);
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
        self.len as usize
    }

    /// Slots holding a tuple (not freed).
    pub(super) fn in_use(&self) -> usize {
        self.len as usize - self.free.len()
    }

    pub(super) fn fits(&self, count: usize) -> bool {
        u64::from(self.next_local) + count as u64 <= 1 << LOCAL_BITS
            && self.len as usize + count <= u32::MAX as usize
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
        let frozen = self.zones.iter().filter(|z| z.is_frozen()).count();
        (frozen, self.zones.len() - frozen)
    }

    fn positions<'a>(&'a self, list: Positions<'a>) -> impl Iterator<Item = (u32, Tuple<'a>)> + 'a {
        list.filter_map(move |i| self.tuple(i).map(|t| (i, t)))
    }
}
