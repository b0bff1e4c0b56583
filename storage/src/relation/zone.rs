//! Zones: the PAX pages of a partition, with their version vectors.
//!
//! A zone holds [`ZONE_TUPLES`] tuple slots as columns (S, O, O's type flag,
//! P and the partition-local statement number each in its own array; S and
//! O kept 32 bits wide while the zone's values share their upper half, the
//! flag and P kept once while constant and P one byte wide while small,
//! the statement numbers not at all while they follow slot order: module
//! `column`), so a relation scan reads only the columns it filters on,
//! sequentially.
//!
//! Versions ("fast MVCC", Poseidon section 5) are kept per zone, not per
//! tuple: a zone that holds recent writes has a *version vector* (a
//! `begin`/`end` stamp pair per slot, see [`crate::mvcc`]); a zone whose
//! every tuple was committed at or before the GC watermark and is not
//! deleted is *frozen*: its vector is dropped, so its tuples cost no stamp
//! memory and scans of it check no atomics. Only a free-slot bitmap remains.
//! A bulk load creates its new zones frozen at its own commit timestamp
//! (module `partition`): they never carry a vector at all.
//!
//! Invariants:
//! - in a frozen zone, every slot below the partition's length that is not
//!   marked freed holds a tuple inserted at `frozen_at` or before and not
//!   deleted, visible exactly to the snapshots whose read timestamp is at
//!   or above `frozen_at` (for a zone frozen by collection, every snapshot
//!   that is live or can still be taken; for a bulk load's zone, every
//!   snapshot taken after the load is published); nothing deletes such a
//!   tuple without first materialising the vector again;
//! - a version vector is created (materialised) by a compare-and-swap, so
//!   a stamper holding the partition's lock shared may do it (a delete
//!   marks a frozen tuple); it is removed only under the write lock (collection,
//!   [`Zone::freeze`]), which hands it to the epoch collector: a scan
//!   without the lock may still be reading it;
//! - in a versioned zone a freed slot's `begin` is [`FREED`] and its bit is
//!   set; in a frozen zone the bit alone says so.
//!
//! Zones are read without the partition's lock (ADR 0078): scans hold
//! only an epoch guard while the writer (one at a time, under the
//! partition's write lock) goes on. So a zone is changed in place only in
//! ways a concurrent reader can take: atomics stored into a slot that no
//! snapshot sees yet (its stamp or freed bit is published after its
//! columns), stamps, freed bits, the version vector's pointer (frozen_at
//! stored before it is removed). Everything else (a column's form, a
//! write into a sealed zone) builds a new zone and publishes it in the
//! partition's directory (module `zones`); readers holding the old one
//! finish on it, and it is freed once they are gone. Further invariant:
//! - the arrays of a *sealed* zone (a bulk load's, created frozen, or one
//!   collection froze) are never stored into once a snapshot can see it
//!   frozen, so a scan reads them as plain slices ([`Zone::frozen_narrow`]);
//!   a write into such a zone goes to a versioned copy
//!   ([`Zone::writable_copy`]). A frozen zone is always sealed.

use super::column::{
    copied, slots_from_fn, Column64, FlagColumn, LocalColumn, LocalView, PColumn, PView, Slots,
};
use super::select::{Selection, WORDS};
use crate::dictionary::RecordHint;
use crate::mvcc::{try_delete, DeleteOutcome, View, FREED, NONE};
use crate::prefetch;
use crate::typed_value::{Encoded, TypedValue};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicPtr, AtomicU32, AtomicU64, Ordering};

/// Tuples per zone (the paper's zone size).
pub(crate) const ZONE_TUPLES: usize = 1024;

/// `(zone, slot)` of a partition-wide tuple position.
#[inline]
pub(super) fn split(index: u32) -> (usize, usize) {
    let index = index as usize;
    (index / ZONE_TUPLES, index % ZONE_TUPLES)
}

/// The version stamps of one slot.
pub(crate) struct Stamp {
    begin: AtomicU64,
    end: AtomicU64,
}

/// A zone's version vector.
pub(crate) type Stamps = [Stamp; ZONE_TUPLES];

/// The version vector of a zone, or none (frozen): a pointer readers load
/// without a lock (module invariants say who may install or remove it).
struct Versions(AtomicPtr<Stamps>);

impl Versions {
    fn none() -> Self {
        Versions(AtomicPtr::new(std::ptr::null_mut()))
    }

    fn of(stamps: Slots<Stamp>) -> Self {
        Versions(AtomicPtr::new(Box::into_raw(stamps)))
    }

    #[inline]
    fn get(&self) -> Option<&Stamps> {
        // SAFETY: a vector is freed only after `take` removed it, which
        // happens under the partition's write lock (so not while a lock
        // holder reads) and hands it to the epoch collector (which waits
        // for pinned readers); until then it is a live, owned box.
        NonNull::new(self.0.load(Ordering::Acquire)).map(|p| unsafe { p.as_ref() })
    }

    /// The vector, installing `make()` if there is none (first one wins).
    fn get_or_init(&self, make: impl FnOnce() -> Slots<Stamp>) -> &Stamps {
        if let Some(stamps) = self.get() {
            return stamps;
        }
        let new = Box::into_raw(make());
        match self.0.compare_exchange(
            std::ptr::null_mut(),
            new,
            Ordering::AcqRel,
            Ordering::Acquire,
        ) {
            // SAFETY: just installed; as in `get`.
            Ok(_) => unsafe { &*new },
            Err(current) => {
                // SAFETY: `new` was never shared; `current` as in `get`.
                drop(unsafe { Box::from_raw(new) });
                unsafe { &*current }
            }
        }
    }

    /// Removes the vector, for the caller to free once no reader can hold
    /// it (the partition's writer only).
    fn take(&self) -> Option<NonNull<Stamps>> {
        NonNull::new(self.0.swap(std::ptr::null_mut(), Ordering::AcqRel))
    }
}

impl Drop for Versions {
    fn drop(&mut self) {
        if let Some(stamps) = NonNull::new(*self.0.get_mut()) {
            // SAFETY: owned, and no reader is left (`&mut self`).
            drop(unsafe { Box::from_raw(stamps.as_ptr()) });
        }
    }
}

/// In declaration order (`repr(C)`, aligned to a cache line): what
/// reading one tuple needs first (the column descriptors, 16 bytes each,
/// the version vector, the count of freed slots, the frozen timestamp: two
/// lines), the free-slot bitmap after. An index probe prefetches
/// only the hot part ([`Zone::prefetch_header`]), so more probes fit in
/// the processor's miss buffers; a zone with no freed slot (every full
/// frozen zone) never reads its bitmap for one tuple.
#[repr(C, align(64))]
pub(crate) struct Zone {
    s: Column64,
    o: Column64,
    p: PColumn,
    local: LocalColumn,
    flag: FlagColumn,
    /// Per slot, the [`RecordHint`] of its O's form, allocated when the
    /// first hinted tuple is written: a point read reads it with the other
    /// columns and goes to the form directly.
    hints: Option<Slots<AtomicU32>>,
    versions: Versions,
    /// The number of bits set in `freed`.
    freed_slots: AtomicU32,
    /// See the module's invariants: its arrays are written in place only
    /// by the bulk load it is [`Zone::frozen_for`]. Read by the writer only.
    sealed: AtomicBool,
    /// While frozen: a commit timestamp at or above every `begin` in the
    /// zone; the snapshots at or after it see the zone's tuples, the
    /// others none (collection freezes at or below every live snapshot, a
    /// bulk load at its own commit timestamp before publishing it).
    frozen_at: AtomicU64,
    freed: [AtomicU64; WORDS],
}

/// The columns of a frozen zone with narrow S and O: `(upper half, lower
/// halves)` of S and O, and P and the statement numbers as stored.
pub(crate) struct NarrowColumns<'a> {
    pub(crate) s: (u64, &'a [u32]),
    pub(crate) p: PView<'a>,
    pub(crate) o: (u64, &'a [u32]),
    pub(crate) local: LocalView<'a>,
}

/// One tuple read from a zone: its columns by value plus access to its
/// stamps. Cheap to copy; valid while the partition's lock (or the
/// reader's epoch guard) is held.
#[derive(Copy, Clone)]
pub(crate) struct Tuple<'a> {
    pub(crate) s: u64,
    pub(crate) p: u32,
    pub(crate) o: TypedValue,
    /// The statement id (the I column).
    pub(crate) i: u64,
    zone: &'a Zone,
    slot: usize,
}

impl Zone {
    /// A new zone, versioned (it is about to receive uncommitted writes);
    /// every slot starts freed (the frozen empty zone, its vector
    /// materialised: every stamp `FREED`).
    pub(crate) fn new() -> Self {
        let zone = Zone::new_frozen(0);
        zone.versions();
        zone.sealed.store(false, Ordering::Relaxed);
        zone
    }

    /// A new zone frozen at `commit_ts`, for a bulk load committing at that
    /// timestamp (not yet published: no snapshot that can see the zone's
    /// tuples exists before it is); every slot starts freed.
    pub(crate) fn new_frozen(commit_ts: u64) -> Self {
        Zone {
            s: Column64::new(),
            o: Column64::new(),
            p: PColumn::new(),
            local: LocalColumn::new(),
            flag: FlagColumn::new(),
            hints: None,
            versions: Versions::none(),
            frozen_at: AtomicU64::new(commit_ts),
            sealed: AtomicBool::new(true),
            freed_slots: AtomicU32::new(ZONE_TUPLES as u32),
            freed: std::array::from_fn(|_| AtomicU64::new(u64::MAX)),
        }
    }

    /// A copy of the zone's columns and freed slots, versioned as `versions`
    /// says (the writer's, under the partition's write lock: no stamp or
    /// bit changes meanwhile).
    fn copy(&self, versions: Versions, sealed: bool) -> Zone {
        Zone {
            s: self.s.copied(),
            o: self.o.copied(),
            p: self.p.copied(),
            local: self.local.copied(),
            flag: self.flag.copied(),
            hints: self.hints.as_ref().map(copied),
            versions,
            frozen_at: AtomicU64::new(self.frozen_at()),
            sealed: AtomicBool::new(sealed),
            freed_slots: AtomicU32::new(self.freed_slots.load(Ordering::Relaxed)),
            freed: std::array::from_fn(|w| AtomicU64::new(self.freed[w].load(Ordering::Relaxed))),
        }
    }

    /// Bytes the zone takes: its header, the per-slot arrays its columns'
    /// forms keep, its record hints and its version vector (memory
    /// accounting; a frozen zone's vector is gone).
    pub(crate) fn bytes(&self) -> usize {
        let columns = self.s.heap_bytes()
            + self.o.heap_bytes()
            + self.p.heap_bytes()
            + self.local.heap_bytes()
            + self.flag.heap_bytes();
        let hints = self.hints.as_ref().map_or(0, super::column::slots_bytes);
        let versions = self.versions.get().map_or(0, size_of_val);
        size_of::<Zone>() + columns + hints + versions
    }

    /// A versioned copy to write into (for a zone [`Zone::writable`] is
    /// false for, or a column form change).
    pub(crate) fn writable_copy(&self) -> Zone {
        let stamps = slots_from_fn(|slot| Stamp {
            begin: AtomicU64::new(self.begin_of(slot)),
            end: AtomicU64::new(self.end_of(slot)),
        });
        self.copy(Versions::of(stamps), false)
    }

    /// A copy of a bulk load's own frozen zone (a column form change while
    /// the load fills it): still frozen for the load.
    pub(crate) fn frozen_for_copy(&self) -> Zone {
        self.copy(Versions::none(), true)
    }

    /// Freezes the zone at `watermark` (the caller, the partition's writer,
    /// checked every live slot was committed at or before it and is not
    /// deleted) and seals it. Returns the version vector it dropped, for
    /// the caller to hand to the epoch collector.
    pub(crate) fn freeze(&self, watermark: u64) -> Option<NonNull<Stamps>> {
        self.sealed.store(true, Ordering::Relaxed);
        self.frozen_at.store(watermark, Ordering::Relaxed);
        // Release: a reader that finds no vector sees `frozen_at`.
        self.versions.take()
    }

    /// Whether a write may store into this zone in place: a zone not
    /// sealed, or the zone a bulk load is filling ([`Zone::frozen_for`] it:
    /// `own_bulk_zone`).
    pub(crate) fn writable(&self, own_bulk_zone: bool) -> bool {
        own_bulk_zone || !self.sealed.load(Ordering::Relaxed)
    }

    /// The frozen timestamp (meaningful while frozen).
    #[inline]
    fn frozen_at(&self) -> u64 {
        self.frozen_at.load(Ordering::Relaxed)
    }

    /// True for a zone a bulk load committing at `commit_ts` created
    /// ([`Zone::new_frozen`]): collection freezes at a watermark below any
    /// commit still in progress, so no other zone is frozen at it.
    pub(crate) fn frozen_for(&self, commit_ts: u64) -> bool {
        self.is_frozen() && self.frozen_at() == commit_ts
    }

    /// The zone's version vector, materialised from the frozen state if
    /// needed (frozen tuples get `begin = frozen_at`, freed slots `FREED`).
    fn versions(&self) -> &Stamps {
        self.versions.get_or_init(|| {
            slots_from_fn(|slot| Stamp {
                begin: AtomicU64::new(if self.is_freed(slot) {
                    FREED
                } else {
                    self.frozen_at()
                }),
                end: AtomicU64::new(NONE),
            })
        })
    }

    #[inline]
    pub(crate) fn is_freed(&self, slot: usize) -> bool {
        self.freed_slots.load(Ordering::Relaxed) != 0 && self.freed_bit(slot)
    }

    /// The bitmap's bit for `slot` (callers that keep `freed_slots` in step).
    #[inline]
    fn freed_bit(&self, slot: usize) -> bool {
        self.freed[slot / 64].load(Ordering::Acquire) & (1 << (slot % 64)) != 0
    }

    /// Prefetches the part of the zone's header that reading a tuple
    /// needs (everything before the free-slot bitmap).
    #[inline]
    pub(crate) fn prefetch_header(&self) {
        prefetch::prefix(self, std::mem::offset_of!(Zone, freed));
    }

    /// Whether `view` sees the tuples of this zone at all, judged by the
    /// zone alone: false only for a frozen zone whose tuples were
    /// committed after the view's snapshot (a bulk load's).
    #[inline]
    pub(crate) fn may_be_visible(&self, view: &View) -> bool {
        !self.is_frozen() || view.sees_frozen(self.frozen_at())
    }

    pub(crate) fn is_frozen(&self) -> bool {
        self.versions.get().is_none()
    }

    /// Inlined so that columns a caller never reads are never loaded.
    #[inline]
    pub(crate) fn tuple(&self, slot: usize, sid_base: u64) -> Tuple<'_> {
        Tuple {
            s: self.s.get(slot),
            p: self.p.get(slot),
            o: TypedValue {
                flag: self.flag.get(slot),
                payload: self.o.get(slot),
            },
            i: sid_base | u64::from(self.local.get(slot)),
            zone: self,
            slot,
        }
    }

    /// Stores a tuple's columns into a free slot in place, if every
    /// column's form holds them (else false, and the caller writes into a
    /// copy with [`Zone::write_columns`]). Only for a zone
    /// [`Zone::writable`] by the write.
    pub(crate) fn try_write_columns(
        &self,
        slot: usize,
        s: u64,
        p: u32,
        o: Encoded,
        local: u32,
    ) -> bool {
        let hint_fits = self.hints.is_some() || o.hint == RecordHint::NONE;
        hint_fits
            && self.s.try_set(slot, s)
            && self.p.try_set(slot, p)
            && self.flag.try_set(slot, o.o.flag)
            && self.o.try_set(slot, o.o.payload)
            && self.local.try_set(slot, local)
            && {
                // A reused slot overwrites the hint it had.
                if let Some(hints) = &self.hints {
                    hints[slot].store(o.hint.raw(), Ordering::Relaxed);
                }
                true
            }
    }

    /// [`Zone::try_write_columns`] changing column forms as needed, on a
    /// zone no reader sees yet.
    pub(crate) fn write_columns(&mut self, slot: usize, s: u64, p: u32, o: Encoded, local: u32) {
        self.s.set(slot, s);
        self.p.set(slot, p);
        self.flag.set(slot, o.o.flag);
        self.o.set(slot, o.o.payload);
        self.local.set(slot, local);
        // A zone without hints allocates none for an unhinted tuple.
        match &self.hints {
            Some(hints) => hints[slot].store(o.hint.raw(), Ordering::Relaxed),
            None if o.hint != RecordHint::NONE => {
                let hints = self.hints.insert(slots_from_fn(|_| AtomicU32::new(0)));
                hints[slot].store(o.hint.raw(), Ordering::Relaxed);
            }
            None => {}
        }
    }

    /// The hint stored beside the tuple in `slot` (none when the zone has
    /// no hints).
    #[inline]
    pub(crate) fn hint(&self, slot: usize) -> RecordHint {
        self.hints.as_ref().map_or(RecordHint::NONE, |hints| {
            RecordHint::from_raw(hints[slot].load(Ordering::Relaxed))
        })
    }

    /// Publishes a slot whose columns are written: the frozen state of a
    /// bulk load's own zone stamps it (`begin` `None`), else its stamp.
    /// Stamps and bit are stored after the columns, with release ordering.
    ///
    /// The bit and the count are updated by a load and a store, not a
    /// locked read-modify-write: only the partition's writer (one at a
    /// time, under its write lock: the module's invariants) changes them,
    /// in `publish` and [`Zone::free`], so no other store can come between
    /// the two, and readers only load them. Two locked instructions per
    /// tuple were ~3.4% of a bulk load's samples (benches/RESULTS.md,
    /// session 32).
    pub(crate) fn publish(&self, slot: usize, begin: Option<u64>) {
        if let Some(begin) = begin {
            let stamp = &self.versions()[slot];
            stamp.end.store(NONE, Ordering::Release);
            stamp.begin.store(begin, Ordering::Release);
        }
        if self.freed_bit(slot) {
            let word = &self.freed[slot / 64];
            let cleared = word.load(Ordering::Relaxed) & !(1 << (slot % 64));
            word.store(cleared, Ordering::Release);
            let freed = self.freed_slots.load(Ordering::Relaxed);
            self.freed_slots.store(freed - 1, Ordering::Release);
        }
    }

    /// Marks a slot freed (its version is dead and unlinked from the indexes).
    pub(crate) fn free(&self, slot: usize) {
        if let Some(versions) = self.versions.get() {
            versions[slot].begin.store(FREED, Ordering::Release);
        }
        if !self.freed_bit(slot) {
            self.freed[slot / 64].fetch_or(1 << (slot % 64), Ordering::Release);
            self.freed_slots.fetch_add(1, Ordering::Release);
        }
    }

    /// The insert stamp of `slot` (`frozen_at` for a frozen tuple, [`FREED`]
    /// for a freed slot).
    fn begin_of(&self, slot: usize) -> u64 {
        match self.versions.get() {
            Some(versions) => versions[slot].begin.load(Ordering::Acquire),
            None if self.is_freed(slot) => FREED,
            None => self.frozen_at(),
        }
    }

    /// The delete stamp of `slot` (`NONE` for a frozen tuple).
    fn end_of(&self, slot: usize) -> u64 {
        match self.versions.get() {
            Some(versions) => versions[slot].end.load(Ordering::Acquire),
            None => NONE,
        }
    }

    /// The `(begin, end)` stamps of the first `len` slots, skipping freed
    /// ones; `None` when frozen.
    pub(crate) fn stamps(
        &self,
        len: usize,
    ) -> Option<impl Iterator<Item = (usize, u64, u64)> + '_> {
        let versions = self.versions.get()?;
        Some((0..len).filter(|&slot| !self.is_freed(slot)).map(|slot| {
            let stamp = &versions[slot];
            (
                slot,
                stamp.begin.load(Ordering::Acquire),
                stamp.end.load(Ordering::Acquire),
            )
        }))
    }

    /// The type flag of `slot`'s O alone.
    #[inline]
    pub(crate) fn flag(&self, slot: usize) -> u8 {
        self.flag.get(slot)
    }

    /// The S of `slot` alone.
    #[inline]
    pub(crate) fn subject(&self, slot: usize) -> u64 {
        self.s.get(slot)
    }

    /// The P of `slot` alone. (Column loads are atomic, and the compiler
    /// keeps atomic loads whose value goes unused: readers of one or two
    /// columns call these rather than [`Zone::row`].)
    #[inline]
    pub(crate) fn predicate(&self, slot: usize) -> u32 {
        self.p.get(slot)
    }

    /// The O payload of `slot` alone.
    #[inline]
    pub(crate) fn object(&self, slot: usize) -> u64 {
        self.o.get(slot)
    }

    /// Column access for scans: S, P, O payload and local statement
    /// number of `slot`, without building a tuple view.
    #[inline]
    pub(crate) fn row(&self, slot: usize) -> (u64, u32, u64, u32) {
        (
            self.s.get(slot),
            self.p.get(slot),
            self.o.get(slot),
            self.local.get(slot),
        )
    }

    /// The one P of every tuple written so far, while they share one.
    #[inline]
    pub(crate) fn uniform_p(&self) -> Option<u32> {
        self.p.uniform()
    }

    /// True when the zone is frozen and `view` sees it, so its arrays may be
    /// read as plain slices: a frozen zone is sealed, and a sealed zone is
    /// written in place only by the bulk load it is frozen for, before that
    /// load is published; `view` sees it, so the load is published (module
    /// invariants).
    #[inline]
    fn plain_for(&self, view: &View) -> bool {
        let plain = self.is_frozen() && view.sees_frozen(self.frozen_at());
        debug_assert!(
            !plain || self.sealed.load(Ordering::Relaxed),
            "frozen zones are sealed"
        );
        plain
    }

    /// The columns of a frozen zone `view` sees, when its S and O are
    /// narrow (the common case for old REL_E data), so a scan runs over
    /// plain slices with no per-slot dispatch on S and O and no stamps.
    pub(crate) fn frozen_narrow(&self, view: &View) -> Option<NarrowColumns<'_>> {
        if !self.plain_for(view) {
            return None;
        }
        // SAFETY: `plain_for`.
        unsafe {
            Some(NarrowColumns {
                s: self.s.as_narrow()?,
                p: self.p.view(),
                o: self.o.as_narrow()?,
                local: self.local.view(),
            })
        }
    }

    /// The P column of a frozen zone `view` sees, as plain values (a value
    /// scan's bit-vector filter; its other columns are read per selected
    /// slot).
    pub(crate) fn frozen_predicates(&self, view: &View) -> Option<PView<'_>> {
        if !self.plain_for(view) {
            return None;
        }
        // SAFETY: `plain_for`.
        Some(unsafe { self.p.view() })
    }

    /// Prefetches the columns a scan filtering on P, and on S and O as
    /// asked, reads first.
    pub(crate) fn prefetch_columns(&self, s: bool, o: bool) {
        self.p.prefetch_column();
        if s {
            self.s.prefetch_column();
        }
        if o {
            self.o.prefetch_column();
        }
    }

    /// A selection of the first `len` slots that are not freed (the
    /// starting point of a bit-vector scan of a frozen zone).
    pub(crate) fn live_selection(&self, len: usize) -> Selection {
        let mut sel = [0; WORDS];
        for (w, (word, freed)) in sel.iter_mut().zip(&self.freed).enumerate() {
            let in_range = match len.saturating_sub(w * 64) {
                0 => 0,
                n if n >= 64 => u64::MAX,
                n => (1 << n) - 1,
            };
            *word = !freed.load(Ordering::Acquire) & in_range;
        }
        sel
    }

    /// Prefetches the lines [`Zone::tuple`] and [`Zone::visible`] read for
    /// `slot` (the caller prefetched the zone itself first).
    #[inline]
    pub(crate) fn prefetch_row(&self, slot: usize) {
        self.s.prefetch(slot);
        self.o.prefetch(slot);
        self.p.prefetch(slot);
        self.local.prefetch(slot);
        // The O's flags: per slot wherever a zone mixes kinds of value (a
        // node's labels, integers and strings), and read by every tuple.
        self.flag.prefetch(slot);
        if let Some(versions) = self.versions.get() {
            prefetch::line(&versions[slot]);
        }
    }

    /// Prefetches the line of `slot`'s record hint, which only a read of
    /// the stored value ([`Tuple::encoded`]) loads: for a property read,
    /// not for a label test or an expand.
    #[inline]
    pub(crate) fn prefetch_hint(&self, slot: usize) {
        if let Some(hints) = &self.hints {
            prefetch::line(&hints[slot]);
        }
    }

    /// Visibility of `slot` to `view` (for column-wise scans).
    #[inline]
    pub(crate) fn visible(&self, slot: usize, view: &View) -> bool {
        match self.versions.get() {
            None => !self.is_freed(slot) && view.sees_frozen(self.frozen_at()),
            Some(versions) => view.visible(&versions[slot].begin, &versions[slot].end),
        }
    }
}

impl Tuple<'_> {
    /// The insert stamp (`frozen_at` for a frozen tuple).
    pub(crate) fn begin(&self) -> u64 {
        self.zone.begin_of(self.slot)
    }

    /// The delete stamp (`NONE` for a frozen tuple).
    pub(crate) fn end(&self) -> u64 {
        self.zone.end_of(self.slot)
    }

    pub(crate) fn visible(&self, view: &View) -> bool {
        self.zone.visible(self.slot, view)
    }

    /// Where O's form lives in the literal dictionary, when the write
    /// knew it ([`RecordHint`]).
    #[inline]
    pub(crate) fn hint(&self) -> RecordHint {
        self.zone.hint(self.slot)
    }

    /// O with its hint, as the write stored them.
    #[inline]
    pub(crate) fn encoded(&self) -> Encoded {
        Encoded {
            o: self.o,
            hint: self.hint(),
        }
    }

    /// True when the tuple's slot was freed (a stale read of a slot an
    /// index still lists).
    #[inline]
    pub(crate) fn is_freed(&self) -> bool {
        self.zone.is_freed(self.slot)
    }

    /// Installs `me`'s delete marker (first writer wins).
    pub(crate) fn try_delete(&self, me: u64) -> DeleteOutcome {
        try_delete(&self.zone.versions()[self.slot].end, me)
    }

    pub(crate) fn set_begin(&self, stamp: u64) {
        self.zone.versions()[self.slot]
            .begin
            .store(stamp, Ordering::Release);
    }

    pub(crate) fn set_end(&self, stamp: u64) {
        self.zone.versions()[self.slot]
            .end
            .store(stamp, Ordering::Release);
    }

    /// Replaces the delete stamp `current` by `new` (rollback of a delete).
    pub(crate) fn replace_end(&self, current: u64, new: u64) {
        let _ = self.zone.versions()[self.slot].end.compare_exchange(
            current,
            new,
            Ordering::AcqRel,
            Ordering::Acquire,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl Zone {
        /// A writer's full write of a versioned slot.
        fn write(&mut self, slot: usize, s: u64, p: u32, o: Encoded, local: u32, begin: u64) {
            self.write_columns(slot, s, p, o, local);
            self.publish(slot, Some(begin));
        }
    }

    #[test]
    fn the_hot_header_is_two_lines_and_the_freed_count_follows_the_bitmap() {
        assert!(std::mem::offset_of!(Zone, freed) <= 2 * 64);
        assert_eq!(std::mem::align_of::<Zone>(), 64);
        let mut zone = Zone::new();
        assert!(zone.is_freed(5));
        for slot in 0..ZONE_TUPLES {
            zone.write(slot, 1, 2, TypedValue::NONE.into(), slot as u32, 1);
        }
        zone.write(7, 1, 2, TypedValue::NONE.into(), 7, 1);
        assert_eq!(zone.freed_slots.load(Ordering::Relaxed), 0);
        assert!(!zone.is_freed(7));
        zone.free(7);
        zone.free(7);
        assert_eq!(zone.freed_slots.load(Ordering::Relaxed), 1);
        assert!(zone.is_freed(7) && !zone.is_freed(8));
        let set: u32 = zone
            .freed
            .iter()
            .map(|w| w.load(Ordering::Relaxed).count_ones())
            .sum();
        assert_eq!(set, zone.freed_slots.load(Ordering::Relaxed));
    }

    #[test]
    fn hints_are_kept_per_slot_and_overwritten_when_a_slot_is_reused() {
        let hinted = |raw| Encoded {
            o: TypedValue::string_gui(9),
            hint: RecordHint::from_raw(raw),
        };
        let mut zone = Zone::new();
        zone.write(0, 1, 2, TypedValue::NONE.into(), 0, 1);
        assert!(zone.hints.is_none(), "no hinted tuple, no hint column");
        zone.write(1, 1, 2, hinted(5), 1, 1);
        zone.write(2, 1, 2, hinted(6), 2, 1);
        assert_eq!(zone.hint(0), RecordHint::NONE);
        assert_eq!(zone.hint(1), RecordHint::from_raw(5));
        assert_eq!(zone.hint(2), RecordHint::from_raw(6));
        zone.free(1);
        zone.write(1, 1, 2, TypedValue::NONE.into(), 1, 1);
        assert_eq!(zone.hint(1), RecordHint::NONE);
        assert_eq!(zone.hint(2), RecordHint::from_raw(6));
    }
}
