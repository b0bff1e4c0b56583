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
//! Every per-slot array is a `Box<[T; ZONE_TUPLES]>`: a thin pointer, so
//! each column's descriptor is 16 bytes and a zone's hot header fits two
//! cache lines (module `zone`).
//!
//! Invariant: `get(slot)` returns exactly the last value `set` at `slot`.

use super::zone::ZONE_TUPLES;

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

/// A slot array holding `value` everywhere.
fn filled<T: Copy>(value: T) -> Slots<T> {
    slots_from_fn(|_| value)
}

/// A 64-bit column of [`ZONE_TUPLES`] slots.
pub(crate) enum Column64 {
    /// Every value set so far is `high << 32 | low[slot]`; `high` is
    /// fixed by the first value (`set` false until then).
    Narrow {
        low: Slots<u32>,
        high: u32,
        set: bool,
    },
    Wide(Slots<u64>),
}

impl Column64 {
    pub(crate) fn new() -> Self {
        Column64::Narrow {
            low: filled(0),
            high: 0,
            set: false,
        }
    }

    #[inline]
    pub(crate) fn get(&self, slot: usize) -> u64 {
        match self {
            Column64::Narrow { low, high, .. } => u64::from(*high) << 32 | u64::from(low[slot]),
            Column64::Wide(values) => values[slot],
        }
    }

    pub(crate) fn set(&mut self, slot: usize, value: u64) {
        match self {
            Column64::Narrow { low, high, set } => {
                let upper = (value >> 32) as u32;
                if !*set {
                    (*high, *set) = (upper, true);
                } else if *high != upper {
                    let h = u64::from(*high) << 32;
                    let mut wide = slots_from_fn(|j| h | u64::from(low[j]));
                    wide[slot] = value;
                    *self = Column64::Wide(wide);
                    return;
                }
                low[slot] = value as u32;
            }
            Column64::Wide(values) => values[slot] = value,
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

    /// `(upper half, lower halves)` of a narrow column.
    pub(crate) fn as_narrow(&self) -> Option<(u64, &[u32])> {
        match self {
            Column64::Narrow { low, high, .. } => Some((u64::from(*high) << 32, &low[..])),
            Column64::Wide(_) => None,
        }
    }

    #[cfg(test)]
    pub(crate) fn is_narrow(&self) -> bool {
        matches!(self, Column64::Narrow { .. })
    }
}

/// The O type flags of a zone.
pub(crate) enum FlagColumn {
    /// Every flag set so far equals this one (`None` before the first).
    Uniform(Option<u8>),
    PerSlot(Slots<u8>),
}

impl FlagColumn {
    #[inline]
    pub(crate) fn get(&self, slot: usize) -> u8 {
        match self {
            FlagColumn::Uniform(flag) => flag.unwrap_or(0),
            FlagColumn::PerSlot(flags) => flags[slot],
        }
    }

    pub(crate) fn set(&mut self, slot: usize, flag: u8) {
        match self {
            FlagColumn::Uniform(None) => *self = FlagColumn::Uniform(Some(flag)),
            FlagColumn::Uniform(Some(f)) if *f == flag => {}
            FlagColumn::Uniform(Some(f)) => {
                let mut flags = filled(*f);
                flags[slot] = flag;
                *self = FlagColumn::PerSlot(flags);
            }
            FlagColumn::PerSlot(flags) => flags[slot] = flag,
        }
    }
}

/// The P column of a zone.
pub(crate) enum PColumn {
    /// Every P set so far equals this one (`None` before the first).
    Uniform(Option<u32>),
    /// Every P set so far is below 256.
    Byte(Slots<u8>),
    Wide(Slots<u32>),
}

impl PColumn {
    #[inline]
    pub(crate) fn get(&self, slot: usize) -> u32 {
        match self {
            PColumn::Uniform(p) => p.unwrap_or(0),
            PColumn::Byte(bytes) => u32::from(bytes[slot]),
            PColumn::Wide(values) => values[slot],
        }
    }

    pub(crate) fn set(&mut self, slot: usize, p: u32) {
        match self {
            PColumn::Uniform(None) => *self = PColumn::Uniform(Some(p)),
            PColumn::Uniform(Some(u)) if *u == p => {}
            PColumn::Uniform(Some(u)) => {
                let u = *u;
                *self = match u8::try_from(u) {
                    Ok(byte) => PColumn::Byte(filled(byte)),
                    Err(_) => PColumn::Wide(filled(u)),
                };
                self.set(slot, p);
            }
            PColumn::Byte(bytes) => match u8::try_from(p) {
                Ok(byte) => bytes[slot] = byte,
                Err(_) => {
                    let mut wide = slots_from_fn(|j| u32::from(bytes[j]));
                    wide[slot] = p;
                    *self = PColumn::Wide(wide);
                }
            },
            PColumn::Wide(values) => values[slot] = p,
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
    /// Every number set so far is `offset + slot` (wrapping; `None` before
    /// the first).
    Affine(Option<u32>),
    PerSlot(Slots<u32>),
}

impl LocalColumn {
    #[inline]
    pub(crate) fn get(&self, slot: usize) -> u32 {
        match self {
            LocalColumn::Affine(offset) => offset.unwrap_or(0).wrapping_add(slot as u32),
            LocalColumn::PerSlot(locals) => locals[slot],
        }
    }

    pub(crate) fn set(&mut self, slot: usize, local: u32) {
        let offset = local.wrapping_sub(slot as u32);
        match self {
            LocalColumn::Affine(None) => *self = LocalColumn::Affine(Some(offset)),
            LocalColumn::Affine(Some(o)) if *o == offset => {}
            LocalColumn::Affine(Some(o)) => {
                let o = *o;
                let mut locals = slots_from_fn(|j| o.wrapping_add(j as u32));
                locals[slot] = local;
                *self = LocalColumn::PerSlot(locals);
            }
            LocalColumn::PerSlot(locals) => locals[slot] = local,
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
            let mut flags = FlagColumn::Uniform(None);
            let mut ps = PColumn::Uniform(None);
            let mut locals = LocalColumn::Affine(None);
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
        let mut locals = LocalColumn::Affine(None);
        let mut ps = PColumn::Uniform(None);
        for slot in 0..8 {
            locals.set(slot, 2048 + slot as u32);
            ps.set(slot, 7);
        }
        assert!(matches!(locals, LocalColumn::Affine(Some(2048))));
        assert!(matches!(ps, PColumn::Uniform(Some(7))));
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
