//! The zone directory of a partition: where its zones live, readable
//! without the partition's lock (ADR 0078).
//!
//! Zones sit behind one pointer each, in a flat table of cells (module
//! `directory`: replaced by a larger copy when it grows, the old one
//! retired), so a reader looking up many zones loads the table once
//! ([`Zones::now`]) and each zone with one more load. (Segments that never
//! move, found by a leading-zero count per lookup, made a binary search
//! over a hub's sorted list, one zone per step, ~35% slower; bench
//! `storage/expand_into_hub`.) Beside each pointer is the zone's one P (or
//! [`MIXED_TYPES`]): index probes and scans pass over listed tuples of an
//! unwanted type without touching their zone, and these few bytes per
//! zone stay in cache where the zone headers would not. A reader holding
//! an older table may see a replaced zone or an older P: both describe
//! everything committed before it loaded the table (a zone is replaced
//! with all it held; a P only goes from one to [`MIXED_TYPES`]).
//!
//! A zone changes shape (a column's form, or a write into a sealed zone)
//! by being replaced: the writer builds the new zone, swaps the pointer,
//! and hands the old one to crossbeam's epoch collector, which frees it
//! once every reader pinned at the time has unpinned. Freezing drops a
//! zone's version vector in place, and the vector goes the same way.
//!
//! Every reader finds zones through the table, pinned (index probes and
//! point reads too, since ADR 0080). The writer keeps, beside the shared
//! table, a plain copy (a pointer per zone, the slot count) in
//! [`ZoneStore`], that only its `&mut` methods change: a `&Zone` borrowed
//! from it cannot outlive a replacement, which takes `&mut`.
//!
//! Invariants: only [`ZoneStore`]'s `&mut` methods (the holder of the
//! partition's write lock) push, replace, set types or grow `len`, and
//! they keep the copy equal to the table; entries `0..count` hold a
//! zone; `len` (tuple slots) never exceeds `count * ZONE_TUPLES`, and a
//! zone is pushed (release) before `len` covers it.

use super::zone::{Stamps, Zone, ZONE_TUPLES};
use crate::directory::{Cell, GrowArray};
use crate::pinned;
use crossbeam::epoch::{self, Guard, Shared};
use std::ptr::NonNull;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicPtr, AtomicU32, AtomicUsize};
use std::sync::Arc;

/// A [`Zones::types`] entry for a zone whose tuples have several P (or
/// none yet). Never a P: predicate ids are counted from 0 upwards.
pub(crate) const MIXED_TYPES: u32 = u32::MAX;

/// One zone's cell in the table.
struct ZoneCell {
    zone: AtomicPtr<Zone>,
    types: AtomicU32,
}

impl Cell for ZoneCell {
    fn empty() -> Self {
        ZoneCell {
            zone: AtomicPtr::new(std::ptr::null_mut()),
            types: AtomicU32::new(MIXED_TYPES),
        }
    }

    fn copy(&self) -> Self {
        ZoneCell {
            zone: AtomicPtr::new(self.zone.load(Relaxed)),
            types: AtomicU32::new(self.types.load(Relaxed)),
        }
    }
}

pub(crate) struct Zones {
    table: GrowArray<ZoneCell>,
    /// Zones pushed.
    count: AtomicUsize,
    /// Tuple slots in use or freed.
    len: AtomicU32,
}

impl Zones {
    pub(crate) fn new() -> Self {
        Zones {
            table: GrowArray::new(),
            count: AtomicUsize::new(0),
            len: AtomicU32::new(0),
        }
    }

    /// Tuple slots in use or freed (zones cover `0..len`).
    #[inline]
    pub(crate) fn len(&self) -> u32 {
        self.len.load(Acquire)
    }

    /// Zone `z` (below [`Zones::count`]) for a reader pinned by `guard`.
    #[inline]
    pub(crate) fn pinned<'g>(&'g self, z: usize, guard: &'g Guard) -> &'g Zone {
        self.now(guard).zone(z)
    }

    /// The zones as of now, for a reader pinned by `guard` that looks up
    /// many: their slot count and their table, each loaded once.
    #[inline]
    pub(crate) fn now<'g>(&'g self, guard: &'g Guard) -> ZonesNow<'g> {
        // The slot count first: a zone is in the table before `len`
        // covers it.
        let len = self.len();
        ZonesNow {
            cells: self.table.cells(guard),
            len,
        }
    }

    /// The one P of zone `z`'s tuples, or [`MIXED_TYPES`] (a reader:
    /// module `pinned`).
    #[inline]
    pub(crate) fn types(&self, z: usize) -> u32 {
        self.now(pinned::assumed()).types(z)
    }

    /// Sets zone `z`'s P (writer only).
    fn set_types(&self, z: usize, p: u32) {
        self.table.cell(z).types.store(p, Relaxed);
    }

    /// Appends a zone (writer only); returns its address.
    fn push(&self, zone: Zone) -> ZonePtr {
        let z = self.count.load(Relaxed);
        let cell = self.table.cell(z);
        let ptr = Box::into_raw(Box::new(zone));
        cell.types.store(MIXED_TYPES, Relaxed);
        cell.zone.store(ptr, Release);
        self.count.store(z + 1, Release);
        ZonePtr(NonNull::new(ptr).expect("a boxed zone"))
    }

    /// Replaces zone `z` (writer only). Returns the new zone's address
    /// and the old one's, which the caller must hand to the collector
    /// ([`Retired`]).
    fn replace(&self, z: usize, zone: Zone) -> (ZonePtr, ZonePtr) {
        let ptr = Box::into_raw(Box::new(zone));
        let old = self.table.cell(z).zone.swap(ptr, AcqRel);
        let new = ZonePtr(NonNull::new(ptr).expect("a boxed zone"));
        (new, ZonePtr(NonNull::new(old).expect("a pushed zone")))
    }

    /// Sets the slot count (writer only, after pushing the zones it covers).
    fn set_len(&self, len: u32) {
        debug_assert!(len as usize <= self.count.load(Relaxed) * ZONE_TUPLES);
        self.len.store(len, Release);
    }
}

/// A partition's zones as one reader call sees them ([`Zones::now`]).
#[derive(Copy, Clone)]
pub(crate) struct ZonesNow<'g> {
    cells: &'g [ZoneCell],
    len: u32,
}

impl<'g> ZonesNow<'g> {
    /// Tuple slots (zones cover `0..len`).
    #[inline]
    pub(crate) fn len(&self) -> u32 {
        self.len
    }

    /// Zone `z` (below the zones `len` covers).
    #[inline]
    pub(crate) fn zone(&self, z: usize) -> &'g Zone {
        // SAFETY: zone pointers are set (release) before `len` covers
        // them; a replaced zone is freed only after every reader pinned
        // at the time has unpinned, and the reader is pinned for `'g`. An
        // older table may hold a zone replaced since (module docs).
        unsafe { &*self.cells[z].zone.load(Acquire) }
    }

    /// The one P of zone `z`'s tuples, or [`MIXED_TYPES`].
    #[inline]
    pub(crate) fn types(&self, z: usize) -> u32 {
        self.cells[z].types.load(Relaxed)
    }

    /// Bytes of the zones `len` covers and of the table (with the
    /// writer's copy of its pointers): one load per zone, no tuple read.
    pub(crate) fn bytes(&self) -> usize {
        let zones = (self.len as usize).div_ceil(ZONE_TUPLES);
        let table = size_of_val(self.cells) + zones * size_of::<ZonePtr>();
        table + (0..zones).map(|z| self.zone(z).bytes()).sum::<usize>()
    }
}

/// What a writer removed from a zone directory while a scan may still read
/// it: a replaced zone, or the version vector of a zone it froze.
enum Garbage {
    Zone(ZonePtr),
    Stamps(NonNull<Stamps>),
}

// SAFETY: owned boxes of `Sync` data on their way to the collector,
// dropped (through it) on whatever thread it runs on.
unsafe impl Send for Garbage {}
unsafe impl Sync for Garbage {}

/// Zones and version vectors removed under a partition's write lock,
/// handed to the epoch collector when dropped, which the writer does
/// after releasing the lock.
/// Handing them over may run the collector, which frees earlier retired
/// zones: done under the lock, that held readers up to 36 ms during an
/// edge bulk load (bench `reader_latency`, vs 4 ms without).
#[must_use = "dropped after the write lock is released"]
pub(crate) struct Retired(Vec<Garbage>);

impl Drop for Retired {
    fn drop(&mut self) {
        if self.0.is_empty() {
            return;
        }
        let guard = epoch::pin();
        for garbage in self.0.drain(..) {
            // SAFETY: unreachable since its removal (from the directory, or
            // from its zone); readers that loaded it are pinned (or held the
            // lock, now released), and the collector waits for the pinned
            // ones. Each was a `Box`, as `defer_destroy` frees it.
            unsafe {
                match garbage {
                    Garbage::Zone(zone) => {
                        guard.defer_destroy(Shared::from(zone.0.as_ptr().cast_const()))
                    }
                    Garbage::Stamps(stamps) => {
                        guard.defer_destroy(Shared::from(stamps.as_ptr().cast_const()))
                    }
                }
            }
        }
        // Many zones at once (a bulk load, a collection pass): let the
        // collector see them now rather than at later pins.
        guard.flush();
    }
}

/// The address of a current zone of a [`ZoneStore`].
#[derive(Copy, Clone)]
struct ZonePtr(NonNull<Zone>);

// SAFETY: a shared zone pointer, dereferenced only as `&Zone` (`Zone` is
// `Sync`) under the rules of `ZoneStore`.
unsafe impl Send for ZonePtr {}
unsafe impl Sync for ZonePtr {}

/// A partition's zones: the shared directory, and the plain copy its writer
/// reads (module docs).
pub(crate) struct ZoneStore {
    shared: Arc<Zones>,
    ptrs: Vec<ZonePtr>,
    len: u32,
    /// Removed zones and vectors not yet handed to the collector.
    retired: Vec<Garbage>,
}

impl ZoneStore {
    pub(crate) fn new() -> Self {
        ZoneStore {
            shared: Arc::new(Zones::new()),
            ptrs: Vec::new(),
            len: 0,
            retired: Vec::new(),
        }
    }

    /// The zones replaced since the last call, for the writer to drop once
    /// it has released the lock.
    pub(crate) fn take_retired(&mut self) -> Retired {
        Retired(std::mem::take(&mut self.retired))
    }

    /// The directory, for readers that do not take the lock.
    pub(crate) fn shared(&self) -> &Arc<Zones> {
        &self.shared
    }

    /// Zone `z` (below [`ZoneStore::count`]).
    #[inline]
    pub(crate) fn get(&self, z: usize) -> &Zone {
        // SAFETY: `ptrs[z]` is zone `z` of the directory, which owns it
        // and outlives `self`; it is retired only by `replace`, which
        // takes `&mut self`, so not while this borrow lives.
        unsafe { self.ptrs[z].0.as_ref() }
    }

    /// Tuple slots in use or freed.
    #[inline]
    pub(crate) fn len(&self) -> u32 {
        self.len
    }

    /// Number of zones.
    pub(crate) fn count(&self) -> usize {
        self.ptrs.len()
    }

    pub(crate) fn push(&mut self, zone: Zone) {
        self.ptrs.push(self.shared.push(zone));
    }

    pub(crate) fn replace(&mut self, z: usize, zone: Zone) {
        let (new, old) = self.shared.replace(z, zone);
        self.ptrs[z] = new;
        self.retired.push(Garbage::Zone(old));
    }

    /// Freezes zone `z` at `watermark` in place ([`Zone::freeze`]).
    pub(crate) fn freeze(&mut self, z: usize, watermark: u64) {
        if let Some(stamps) = self.get(z).freeze(watermark) {
            self.retired.push(Garbage::Stamps(stamps));
        }
    }

    pub(crate) fn set_types(&mut self, z: usize, p: u32) {
        self.shared.set_types(z, p);
    }

    pub(crate) fn set_len(&mut self, len: u32) {
        self.len = len;
        self.shared.set_len(len);
    }
}

impl Drop for ZoneStore {
    fn drop(&mut self) {
        // A scan may still hold a replaced zone: through the collector.
        drop(self.take_retired());
    }
}

impl Drop for Zones {
    fn drop(&mut self) {
        let count = *self.count.get_mut();
        for cell in &self.table.cells(pinned::assumed())[..count] {
            // SAFETY: a pushed, current zone, boxed by `push` or `replace`
            // and owned by the table; `&mut self`: no reader is left.
            drop(unsafe { Box::from_raw(cell.zone.load(Relaxed)) });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_are_found_through_grown_tables_and_replaced() {
        let mut store = ZoneStore::new();
        for z in 0..100u64 {
            store.push(Zone::new_frozen(z));
            store.set_types(z as usize, z as u32);
        }
        store.set_len(100 * ZONE_TUPLES as u32);
        store.replace(50, Zone::new_frozen(1000));
        drop(store.take_retired());
        let zones = store.shared();
        let guard = epoch::pin();
        for z in 0..100 {
            let expected = if z == 50 { 1000 } else { z as u64 };
            assert!(zones.pinned(z, &guard).frozen_for(expected));
            assert!(store.get(z).frozen_for(expected));
            assert_eq!(zones.types(z), z as u32);
        }
        assert_eq!((zones.len(), store.len()), (102_400, 102_400));
    }
}
