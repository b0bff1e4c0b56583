//! Compressed zone columns (the paper's narrow tuples).
//!
//! - [`Column64`]: S and O values are 64-bit, but within one zone they
//!   mostly share their upper half: every vertex gui is `TAG_VERT << 60 |
//!   counter << 16 | hash` with a counter below 2^16 for any graph under
//!   four billion vertices, and the statement ids a REL_EP zone refers to
//!   all come from one grid cell. A column keeps the shared upper half once
//!   and 32-bit lower halves per slot, and turns wide (64 bits per slot)
//!   the first time a value with another upper half arrives.
//! - [`FlagColumn`]: the O type flag is one constant for a whole REL_E
//!   zone (every O is a vertex); it is stored per slot only once two flags
//!   differ.
//! - [`PColumn`]: predicate ids (relationship types, property keys, the
//!   label and existence predicates) are few: one constant for a zone of
//!   edge properties with one key, else one byte per slot while every id
//!   is below 256, four bytes only beyond.
//! - [`LocalColumn`]: a tuple's partition-local statement number equals
//!   its slot position plus a constant while slots are filled in the order
//!   numbers are handed out (every bulk load, every append without slot
//!   reuse); the constant is kept instead of a number per slot.
//!
//! Every per-slot array is a `Box<[T; ZONE_TUPLES]>` of atomics: a thin
//! pointer, so each column's descriptor is 16 bytes and a zone's hot
//! header fits two cache lines (module `zone`). Readers do not lock the
//! zones (ADR 0078), so a slot may be read while the writer fills another
//! one; atomics with relaxed ordering make that defined (they compile to
//! plain loads and stores). A column's *form* never changes in place:
//! [`Column64::try_set`] and its siblings refuse a value the form cannot
//! hold, and the writer then builds the wider form ([`Column64::set`] on a
//! copy it owns) and publishes a new zone (module `zone`).
//!
//! Invariants: `get(slot)` returns exactly the last value set at `slot`;
//! `try_set` changes nothing when it returns false.

use super::zone::ZONE_TUPLES;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicU8};

/// One value per slot of a zone.
pub(crate) type Slots<T> = Box<[T; ZONE_TUPLES]>;

/// A slot array built from `f(slot)` (on the heap directly: a zone's
/// arrays are up to 16 KiB).
pub(crate) fn slots_from_fn<T>(f: impl FnMut(usize) -> T) -> Slots<T> {
    let values: Box<[T]> = (0..ZONE_TUPLES).map(f).collect();
    match values.try_into() {
        Ok(slots) => slots,
        Err(_) => unreachable!("collected exactly ZONE_TUPLES values"),
    }
}

/// Bytes a slot array takes on the heap (memory accounting).
pub(crate) const fn slots_bytes<T>(_: &Slots<T>) -> usize {
    size_of::<[T; ZONE_TUPLES]>()
}

/// The per-slot atomics the columns store, with the plain value they hold.
pub(crate) trait Cell: Sized {
    type Value: Copy;
    fn new(value: Self::Value) -> Self;
    fn get(&self) -> Self::Value;
    fn set(&self, value: Self::Value);
}

macro_rules! cell {
    ($atomic:ty, $value:ty) => {
        impl Cell for $atomic {
            type Value = $value;
            #[inline]
            fn new(value: $value) -> Self {
                <$atomic>::new(value)
            }
            #[inline]
            fn get(&self) -> $value {
                self.load(Relaxed)
            }
            #[inline]
            fn set(&self, value: $value) {
                self.store(value, Relaxed)
            }
        }
    };
}
cell!(AtomicU8, u8);
cell!(AtomicU32, u32);
cell!(AtomicU64, u64);

/// A slot array holding `value` everywhere.
pub(crate) fn filled<C: Cell>(value: C::Value) -> Slots<C> {
    slots_from_fn(|_| C::new(value))
}

/// A copy of a slot array (the writer's, while it owns the zone).
pub(crate) fn copied<C: Cell>(slots: &Slots<C>) -> Slots<C> {
    slots_from_fn(|j| C::new(slots[j].get()))
}

/// The plain values of a slot array that no one writes while the view
/// lives.
///
/// # Safety
/// No thread may store into `slots` while the returned slice is alive
/// (frozen zones: module `zone`). Each atomic has the size and alignment
/// of its value, so the cast itself is sound.
pub(crate) unsafe fn plain<C: Cell>(slots: &Slots<C>) -> &[C::Value] {
    debug_assert_eq!(size_of::<C>(), size_of::<C::Value>());
    // SAFETY: same layout (above); no concurrent store (the caller's).
    unsafe { std::slice::from_raw_parts(slots.as_ptr().cast::<C::Value>(), ZONE_TUPLES) }
}

/// A value fixed by the first write and kept once for the whole zone
/// (`None` before it): the shared upper half of a narrow column, a
/// uniform P or flag, an affine offset. Stored as `1 << 32 | value`, 0
/// when unset, so readers see it in one atomic load.
pub(crate) struct Shared(AtomicU64);

impl Shared {
    const SET: u64 = 1 << 32;

    pub(crate) fn new(value: Option<u32>) -> Self {
        Shared(AtomicU64::new(
            value.map_or(0, |v| Self::SET | u64::from(v)),
        ))
    }

    #[inline]
    pub(crate) fn get(&self) -> Option<u32> {
        let raw = self.0.load(Relaxed);
        (raw & Self::SET != 0).then_some(raw as u32)
    }

    /// The value, 0 while unset (one load, no branch: what a slot that was
    /// never written reads as).
    #[inline]
    pub(crate) fn or_zero(&self) -> u32 {
        self.0.load(Relaxed) as u32
    }

    /// Sets it to `value` if unset; true when it now holds `value`.
    #[inline]
    fn accept(&self, value: u32) -> bool {
        match self.get() {
            Some(v) => v == value,
            None => {
                self.0.store(Self::SET | u64::from(value), Relaxed);
                true
            }
        }
    }

    fn copied(&self) -> Self {
        Shared::new(self.get())
    }
}

/// A 64-bit column of [`ZONE_TUPLES`] slots.
pub(crate) enum Column64 {
    /// Every value set so far is `high << 32 | low[slot]`; `high` is
    /// fixed by the first value.
    Narrow {
        low: Slots<AtomicU32>,
        high: Shared,
    },
    Wide(Slots<AtomicU64>),
}

impl Column64 {
    pub(crate) fn new() -> Self {
        Column64::Narrow {
            low: filled(0),
            high: Shared::new(None),
        }
    }

    #[inline]
    pub(crate) fn get(&self, slot: usize) -> u64 {
        match self {
            Column64::Narrow { low, high } => {
                u64::from(high.or_zero()) << 32 | u64::from(low[slot].get())
            }
            Column64::Wide(values) => values[slot].get(),
        }
    }

    /// Stores `value` at `slot` if the form holds it (see the module doc).
    #[inline]
    pub(crate) fn try_set(&self, slot: usize, value: u64) -> bool {
        match self {
            Column64::Narrow { low, high } => {
                let ok = high.accept((value >> 32) as u32);
                if ok {
                    low[slot].set(value as u32);
                }
                ok
            }
            Column64::Wide(values) => {
                values[slot].set(value);
                true
            }
        }
    }

    /// Stores `value` at `slot`, widening the form if needed.
    pub(crate) fn set(&mut self, slot: usize, value: u64) {
        if !self.try_set(slot, value) {
            let wide = slots_from_fn(|j| AtomicU64::new(self.get(j)));
            wide[slot].set(value);
            *self = Column64::Wide(wide);
        }
    }

    pub(crate) fn copied(&self) -> Self {
        match self {
            Column64::Narrow { low, high } => Column64::Narrow {
                low: copied(low),
                high: high.copied(),
            },
            Column64::Wide(values) => Column64::Wide(copied(values)),
        }
    }

    /// Prefetches the line holding `slot`.
    #[inline]
    pub(crate) fn prefetch(&self, slot: usize) {
        match self {
            Column64::Narrow { low, .. } => crate::prefetch::line(&low[slot]),
            Column64::Wide(values) => crate::prefetch::line(&values[slot]),
        }
    }

    /// Prefetches the whole column.
    pub(crate) fn prefetch_column(&self) {
        match self {
            Column64::Narrow { low, .. } => crate::prefetch::slice(&low[..]),
            Column64::Wide(values) => crate::prefetch::slice(&values[..]),
        }
    }

    /// `(upper half, lower halves)` of a narrow column.
    ///
    /// # Safety
    /// As [`plain`]: no store into the column while the slice lives.
    pub(crate) unsafe fn as_narrow(&self) -> Option<(u64, &[u32])> {
        match self {
            Column64::Narrow { low, high } => Some((
                u64::from(high.or_zero()) << 32,
                // SAFETY: the caller's.
                unsafe { plain(low) },
            )),
            Column64::Wide(_) => None,
        }
    }

    #[cfg(test)]
    pub(crate) fn is_narrow(&self) -> bool {
        matches!(self, Column64::Narrow { .. })
    }

    /// Bytes of its per-slot array.
    pub(crate) fn heap_bytes(&self) -> usize {
        match self {
            Column64::Narrow { low, .. } => slots_bytes(low),
            Column64::Wide(values) => slots_bytes(values),
        }
    }
}

/// The O type flags of a zone.
pub(crate) enum FlagColumn {
    /// Every flag set so far equals this one.
    Uniform(Shared),
    PerSlot(Slots<AtomicU8>),
}

impl FlagColumn {
    pub(crate) fn new() -> Self {
        FlagColumn::Uniform(Shared::new(None))
    }

    #[inline]
    pub(crate) fn get(&self, slot: usize) -> u8 {
        match self {
            FlagColumn::Uniform(flag) => flag.or_zero() as u8,
            FlagColumn::PerSlot(flags) => flags[slot].get(),
        }
    }

    /// Prefetches the line holding `slot` (nothing to fetch when uniform).
    #[inline]
    pub(crate) fn prefetch(&self, slot: usize) {
        if let FlagColumn::PerSlot(flags) = self {
            crate::prefetch::line(&flags[slot]);
        }
    }

    #[inline]
    pub(crate) fn try_set(&self, slot: usize, flag: u8) -> bool {
        match self {
            FlagColumn::Uniform(f) => f.accept(u32::from(flag)),
            FlagColumn::PerSlot(flags) => {
                flags[slot].set(flag);
                true
            }
        }
    }

    pub(crate) fn set(&mut self, slot: usize, flag: u8) {
        if !self.try_set(slot, flag) {
            let flags = slots_from_fn(|j| AtomicU8::new(self.get(j)));
            flags[slot].set(flag);
            *self = FlagColumn::PerSlot(flags);
        }
    }

    /// Bytes of its per-slot array (none while uniform).
    pub(crate) fn heap_bytes(&self) -> usize {
        match self {
            FlagColumn::Uniform(_) => 0,
            FlagColumn::PerSlot(flags) => slots_bytes(flags),
        }
    }

    pub(crate) fn copied(&self) -> Self {
        match self {
            FlagColumn::Uniform(f) => FlagColumn::Uniform(f.copied()),
            FlagColumn::PerSlot(flags) => FlagColumn::PerSlot(copied(flags)),
        }
    }
}

/// The P column of a zone.
pub(crate) enum PColumn {
    /// Every P set so far equals this one.
    Uniform(Shared),
    /// Every P set so far is below 256.
    Byte(Slots<AtomicU8>),
    Wide(Slots<AtomicU32>),
}

/// A [`PColumn`] read as plain values (a frozen zone's, module `select`).
pub(crate) enum PView<'a> {
    Uniform(Option<u32>),
    Byte(&'a [u8]),
    Wide(&'a [u32]),
}

impl PView<'_> {
    #[inline]
    pub(crate) fn get(&self, slot: usize) -> u32 {
        match self {
            PView::Uniform(p) => p.unwrap_or(0),
            PView::Byte(bytes) => u32::from(bytes[slot]),
            PView::Wide(values) => values[slot],
        }
    }
}

impl PColumn {
    /// Bytes of its per-slot array (none while uniform).
    pub(crate) fn heap_bytes(&self) -> usize {
        match self {
            PColumn::Uniform(_) => 0,
            PColumn::Byte(bytes) => slots_bytes(bytes),
            PColumn::Wide(values) => slots_bytes(values),
        }
    }

    pub(crate) fn new() -> Self {
        PColumn::Uniform(Shared::new(None))
    }

    #[inline]
    pub(crate) fn get(&self, slot: usize) -> u32 {
        match self {
            PColumn::Uniform(p) => p.or_zero(),
            PColumn::Byte(bytes) => u32::from(bytes[slot].get()),
            PColumn::Wide(values) => values[slot].get(),
        }
    }

    /// The one P of every slot set so far, while they share one.
    #[inline]
    pub(crate) fn uniform(&self) -> Option<u32> {
        match self {
            PColumn::Uniform(p) => p.get(),
            _ => None,
        }
    }

    #[inline]
    pub(crate) fn try_set(&self, slot: usize, p: u32) -> bool {
        match self {
            PColumn::Uniform(u) => u.accept(p),
            PColumn::Byte(bytes) => match u8::try_from(p) {
                Ok(byte) => {
                    bytes[slot].set(byte);
                    true
                }
                Err(_) => false,
            },
            PColumn::Wide(values) => {
                values[slot].set(p);
                true
            }
        }
    }

    pub(crate) fn set(&mut self, slot: usize, p: u32) {
        if self.try_set(slot, p) {
            return;
        }
        let byte = u8::try_from(p).is_ok() && (0..ZONE_TUPLES).all(|j| self.get(j) < 256);
        *self = if byte {
            PColumn::Byte(slots_from_fn(|j| AtomicU8::new(self.get(j) as u8)))
        } else {
            PColumn::Wide(slots_from_fn(|j| AtomicU32::new(self.get(j))))
        };
        let stored = self.try_set(slot, p);
        debug_assert!(stored);
    }

    pub(crate) fn copied(&self) -> Self {
        match self {
            PColumn::Uniform(u) => PColumn::Uniform(u.copied()),
            PColumn::Byte(bytes) => PColumn::Byte(copied(bytes)),
            PColumn::Wide(values) => PColumn::Wide(copied(values)),
        }
    }

    /// The column as plain values.
    ///
    /// # Safety
    /// As [`plain`]: no store into the column while the view lives.
    pub(crate) unsafe fn view(&self) -> PView<'_> {
        match self {
            PColumn::Uniform(p) => PView::Uniform(p.get()),
            // SAFETY: the caller's.
            PColumn::Byte(bytes) => PView::Byte(unsafe { plain(bytes) }),
            // SAFETY: the caller's.
            PColumn::Wide(values) => PView::Wide(unsafe { plain(values) }),
        }
    }

    /// Prefetches the whole column (nothing to fetch when uniform).
    pub(crate) fn prefetch_column(&self) {
        match self {
            PColumn::Uniform(_) => {}
            PColumn::Byte(bytes) => crate::prefetch::slice(&bytes[..]),
            PColumn::Wide(values) => crate::prefetch::slice(&values[..]),
        }
    }

    /// Prefetches the line holding `slot` (nothing to fetch when uniform).
    #[inline]
    pub(crate) fn prefetch(&self, slot: usize) {
        match self {
            PColumn::Uniform(_) => {}
            PColumn::Byte(bytes) => crate::prefetch::line(&bytes[slot]),
            PColumn::Wide(values) => crate::prefetch::line(&values[slot]),
        }
    }
}

/// The partition-local statement numbers of a zone.
pub(crate) enum LocalColumn {
    /// Every number set so far is `offset + slot` (wrapping).
    Affine(Shared),
    PerSlot(Slots<AtomicU32>),
}

/// A [`LocalColumn`] read as plain values (a frozen zone's, module `select`).
pub(crate) enum LocalView<'a> {
    Affine(u32),
    PerSlot(&'a [u32]),
}

impl LocalView<'_> {
    #[inline]
    pub(crate) fn get(&self, slot: usize) -> u32 {
        match self {
            LocalView::Affine(offset) => offset.wrapping_add(slot as u32),
            LocalView::PerSlot(locals) => locals[slot],
        }
    }
}

impl LocalColumn {
    /// Bytes of its per-slot array (none while affine).
    pub(crate) fn heap_bytes(&self) -> usize {
        match self {
            LocalColumn::Affine(_) => 0,
            LocalColumn::PerSlot(locals) => slots_bytes(locals),
        }
    }

    /// The column as plain values.
    ///
    /// # Safety
    /// As [`plain`]: no store into the column while the view lives.
    pub(crate) unsafe fn view(&self) -> LocalView<'_> {
        match self {
            LocalColumn::Affine(offset) => LocalView::Affine(offset.or_zero()),
            // SAFETY: the caller's.
            LocalColumn::PerSlot(locals) => LocalView::PerSlot(unsafe { plain(locals) }),
        }
    }

    pub(crate) fn new() -> Self {
        LocalColumn::Affine(Shared::new(None))
    }

    #[inline]
    pub(crate) fn get(&self, slot: usize) -> u32 {
        match self {
            LocalColumn::Affine(offset) => offset.or_zero().wrapping_add(slot as u32),
            LocalColumn::PerSlot(locals) => locals[slot].get(),
        }
    }

    #[inline]
    pub(crate) fn try_set(&self, slot: usize, local: u32) -> bool {
        match self {
            LocalColumn::Affine(offset) => offset.accept(local.wrapping_sub(slot as u32)),
            LocalColumn::PerSlot(locals) => {
                locals[slot].set(local);
                true
            }
        }
    }

    pub(crate) fn set(&mut self, slot: usize, local: u32) {
        if !self.try_set(slot, local) {
            let locals = slots_from_fn(|j| AtomicU32::new(self.get(j)));
            locals[slot].set(local);
            *self = LocalColumn::PerSlot(locals);
        }
    }

    pub(crate) fn copied(&self) -> Self {
        match self {
            LocalColumn::Affine(offset) => LocalColumn::Affine(offset.copied()),
            LocalColumn::PerSlot(locals) => LocalColumn::PerSlot(copied(locals)),
        }
    }

    #[inline]
    pub(crate) fn prefetch(&self, slot: usize) {
        if let LocalColumn::PerSlot(locals) = self {
            crate::prefetch::line(&locals[slot]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn columns_return_what_was_set(writes in proptest::collection::vec(
            (
                0usize..16,
                prop_oneof![0u64..4, (1u64 << 60)..(1u64 << 60) + 4, any::<u64>()],
                0u8..3,
                prop_oneof![0u32..3, 250u32..260, any::<u32>()],
                prop_oneof![Just(None), (0u32..4).prop_map(Some), any::<u32>().prop_map(Some)],
            ),
            0..64,
        )) {
            let mut column = Column64::new();
            let mut flags = FlagColumn::new();
            let mut ps = PColumn::new();
            let mut locals = LocalColumn::new();
            let mut model = [None; 16];
            for (slot, value, flag, p, local) in writes {
                // `None`: the number a slot-ordered fill would give it.
                let local = local.unwrap_or(100 + slot as u32);
                column.set(slot, value);
                flags.set(slot, flag);
                ps.set(slot, p);
                locals.set(slot, local);
                model[slot] = Some((value, flag, p, local));
                for (s, expected) in model.iter().enumerate() {
                    if let Some((v, f, p, l)) = expected {
                        prop_assert_eq!(column.get(s), *v);
                        prop_assert_eq!(flags.get(s), *f);
                        prop_assert_eq!(ps.get(s), *p);
                        prop_assert_eq!(locals.get(s), *l);
                    }
                }
            }
        }
    }

    #[test]
    fn slot_ordered_numbers_and_small_predicates_stay_compact() {
        let mut locals = LocalColumn::new();
        let mut ps = PColumn::new();
        for slot in 0..8 {
            locals.set(slot, 2048 + slot as u32);
            ps.set(slot, 7);
        }
        assert!(matches!(&locals, LocalColumn::Affine(o) if o.get() == Some(2048)));
        assert_eq!(ps.uniform(), Some(7));
        ps.set(3, 200);
        assert!(matches!(ps, PColumn::Byte(_)));
        assert_eq!((ps.get(2), ps.get(3)), (7, 200));
        ps.set(4, 300);
        assert!(matches!(ps, PColumn::Wide(_)));
        assert_eq!((ps.get(3), ps.get(4)), (200, 300));
        locals.set(5, 1);
        assert!(matches!(locals, LocalColumn::PerSlot(_)));
        assert_eq!((locals.get(4), locals.get(5)), (2052, 1));
    }

    #[test]
    fn vertex_guis_stay_narrow() {
        let mut column = Column64::new();
        column.set(0, (1 << 60) | (7 << 16) | 0xbeef);
        column.set(1, (1 << 60) | 0x1234);
        assert!(column.is_narrow());
        column.set(2, 5);
        assert!(!column.is_narrow());
        assert_eq!(column.get(0), (1 << 60) | (7 << 16) | 0xbeef);
        assert_eq!(column.get(2), 5);
    }
}
