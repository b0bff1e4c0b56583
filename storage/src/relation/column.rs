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
//!
//! Invariant: `get(slot)` returns exactly the last value `set` at `slot`.

/// A 64-bit column of [`super::zone::ZONE_TUPLES`] slots.
pub(crate) enum Column64 {
    /// Every value set so far is `high | low[slot]`; `high` is `None`
    /// until the first value.
    Narrow {
        high: Option<u64>,
        low: Box<[u32]>,
    },
    Wide(Box<[u64]>),
}

const HIGH: u64 = !0xffff_ffff;

impl Column64 {
    pub(crate) fn new(slots: usize) -> Self {
        Column64::Narrow {
            high: None,
            low: vec![0; slots].into_boxed_slice(),
        }
    }

    #[inline]
    pub(crate) fn get(&self, slot: usize) -> u64 {
        match self {
            Column64::Narrow { high, low } => high.unwrap_or(0) | u64::from(low[slot]),
            Column64::Wide(values) => values[slot],
        }
    }

    pub(crate) fn set(&mut self, slot: usize, value: u64) {
        match self {
            Column64::Narrow { high, low } => {
                let upper = value & HIGH;
                match *high {
                    None => *high = Some(upper),
                    Some(h) if h == upper => {}
                    Some(h) => {
                        let mut wide: Box<[u64]> = low.iter().map(|&l| h | u64::from(l)).collect();
                        wide[slot] = value;
                        *self = Column64::Wide(wide);
                        return;
                    }
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
            Column64::Narrow { high, low } => Some((high.unwrap_or(0), low)),
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
    PerSlot(Box<[u8]>),
}

impl FlagColumn {
    #[inline]
    pub(crate) fn get(&self, slot: usize) -> u8 {
        match self {
            FlagColumn::Uniform(flag) => flag.unwrap_or(0),
            FlagColumn::PerSlot(flags) => flags[slot],
        }
    }

    pub(crate) fn set(&mut self, slot: usize, flag: u8, slots: usize) {
        match self {
            FlagColumn::Uniform(None) => *self = FlagColumn::Uniform(Some(flag)),
            FlagColumn::Uniform(Some(f)) if *f == flag => {}
            FlagColumn::Uniform(Some(f)) => {
                let mut flags = vec![*f; slots].into_boxed_slice();
                flags[slot] = flag;
                *self = FlagColumn::PerSlot(flags);
            }
            FlagColumn::PerSlot(flags) => flags[slot] = flag,
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
            (0usize..16, prop_oneof![0u64..4, (1u64 << 60)..(1u64 << 60) + 4, any::<u64>()], 0u8..3),
            0..64,
        )) {
            let mut column = Column64::new(16);
            let mut flags = FlagColumn::Uniform(None);
            let mut model = [None; 16];
            for (slot, value, flag) in writes {
                column.set(slot, value);
                flags.set(slot, flag, 16);
                model[slot] = Some((value, flag));
                for (s, expected) in model.iter().enumerate() {
                    if let Some((v, f)) = expected {
                        prop_assert_eq!(column.get(s), *v);
                        prop_assert_eq!(flags.get(s), *f);
                    }
                }
            }
        }
    }

    #[test]
    fn vertex_guis_stay_narrow() {
        let mut column = Column64::new(4);
        column.set(0, (1 << 60) | (7 << 16) | 0xbeef);
        column.set(1, (1 << 60) | 0x1234);
        assert!(column.is_narrow());
        column.set(2, 5);
        assert!(!column.is_narrow());
        assert_eq!(column.get(0), (1 << 60) | (7 << 16) | 0xbeef);
        assert_eq!(column.get(2), 5);
    }
}
