//! The relation scan's filter, evaluated as bit vectors: per zone a
//! selection of 1024 bits (one per slot) is narrowed column by column
//! (liveness, then P, then S membership, then O membership) and only the
//! survivors are handed on. The P test runs over the whole column without
//! branches; the membership probes visit only slots still selected, and
//! record their answer as a bit rather than branching on it (a probe's
//! outcome is as unpredictable as the data).

use super::column::PView;
use super::zone::{NarrowColumns, ZONE_TUPLES};
use crate::ids::COUNTER_BITS;

pub(super) const WORDS: usize = ZONE_TUPLES / 64;

/// One selection bit per slot of a zone.
pub(super) type Selection = [u64; WORDS];

/// The bits of a gui that number vertices densely: `counter << 16 | hash`
/// (the tag and the reserved zero bits dropped; see `crate::ids`).
const DENSE_MASK: u64 = (1 << (16 + COUNTER_BITS)) - 1;

/// The dense bit position of a vertex gui in a [`GuiBits`] map.
#[inline]
pub(crate) fn dense_position(gui: u64) -> usize {
    (gui & DENSE_MASK) as usize
}

/// A membership bitmap over vertex guis, indexed by [`dense_position`].
/// Two guis that differ only in their tag share a bit: callers test values
/// that are vertex guis by construction (REL_E's S and O).
#[derive(Copy, Clone)]
pub(crate) struct GuiBits<'a>(pub(crate) &'a [u64]);

impl GuiBits<'_> {
    #[inline]
    pub(crate) fn contains(&self, gui: u64) -> bool {
        self.bit(gui) != 0
    }

    /// The bit of `gui` as 0 or 1, without a branch on the answer.
    #[inline]
    fn bit(&self, gui: u64) -> u64 {
        let d = dense_position(gui);
        self.0.get(d / 64).map_or(0, |w| w >> (d % 64) & 1)
    }
}

/// What a relation scan keeps: tuples whose P is one of `types` (any P when
/// `None`), whose S is in `s` and whose O payload is in `o` (unbound when
/// `None`).
#[derive(Copy, Clone, Default)]
pub(crate) struct ScanFilter<'a> {
    pub(crate) types: Option<&'a [u32]>,
    pub(crate) s: Option<GuiBits<'a>>,
    pub(crate) o: Option<GuiBits<'a>>,
}

impl ScanFilter<'_> {
    /// The same test for one row (zones that are not frozen and narrow).
    #[inline]
    pub(crate) fn matches(&self, s: u64, p: u32, o: u64) -> bool {
        self.types.is_none_or(|types| types.contains(&p))
            && self.s.is_none_or(|bits| bits.contains(s))
            && self.o.is_none_or(|bits| bits.contains(o))
    }

    /// Narrows `sel` by the filter over a frozen zone's narrow columns
    /// (S and O at least `WORDS * 64` long; values are `high | low`). Uses
    /// AVX-512 (16 or 64 slots per compare, membership bits fetched by a
    /// masked gather) where the processor has it, else the portable loops.
    pub(super) fn select_narrow(&self, sel: &mut Selection, columns: &NarrowColumns<'_>) {
        self.select_with(sel, columns, Simd::detect());
    }

    fn select_with(&self, sel: &mut Selection, columns: &NarrowColumns<'_>, simd: Simd) {
        if let Some(types) = self.types {
            narrow_by_type(sel, &columns.p, types, simd);
            if sel.iter().all(|&w| w == 0) {
                return;
            }
        }
        for (bits, (high, low)) in [(self.s, columns.s), (self.o, columns.o)] {
            let Some(bits) = bits else { continue };
            #[cfg(target_arch = "x86_64")]
            if simd.avx512f && high & DENSE_MASK == 0 {
                // SAFETY: the processor supports AVX-512F (`Simd::detect`).
                unsafe { avx512::narrow_by_membership(sel, low, bits) };
                continue;
            }
            // Dense positions above 32 bits (over 2^16 collisions in one
            // hash bucket) always take this path.
            narrow_by_membership(sel, high, low, bits);
        }
    }
}

/// Narrows `sel` to the slots whose P is one of `types` (a value scan of a
/// frozen zone; AVX-512 where the processor has it).
pub(super) fn select_types(sel: &mut Selection, p: &PView<'_>, types: &[u32]) {
    narrow_by_type(sel, p, types, Simd::detect());
}

/// The instruction sets a selection may use.
#[derive(Copy, Clone)]
struct Simd {
    avx512f: bool,
    avx512bw: bool,
}

impl Simd {
    /// Neither: the portable loops (SSE2 at most).
    #[cfg(test)]
    const PORTABLE: Simd = Simd {
        avx512f: false,
        avx512bw: false,
    };

    #[inline]
    fn detect() -> Simd {
        #[cfg(target_arch = "x86_64")]
        return Simd {
            avx512f: std::arch::is_x86_feature_detected!("avx512f"),
            avx512bw: std::arch::is_x86_feature_detected!("avx512bw"),
        };
        #[cfg(not(target_arch = "x86_64"))]
        Simd {
            avx512f: false,
            avx512bw: false,
        }
    }
}

/// Keeps the selected slots whose P is one of `types`. A zone with one P
/// throughout is kept or dropped whole, without reading any slot.
fn narrow_by_type(sel: &mut Selection, p: &PView<'_>, types: &[u32], simd: Simd) {
    match p {
        PView::Uniform(Some(p)) if types.contains(p) => {}
        PView::Uniform(_) => *sel = [0; WORDS],
        PView::Byte(bytes) => {
            let small = || types.iter().filter_map(|&t| u8::try_from(t).ok());
            for (w, chunk) in sel.iter_mut().zip(bytes.chunks_exact(64)) {
                #[cfg(target_arch = "x86_64")]
                if simd.avx512bw {
                    // SAFETY: the processor supports AVX-512BW (`Simd::detect`).
                    *w &= small().fold(0, |m, t| m | unsafe { avx512::eq_mask8(chunk, t) });
                    continue;
                }
                *w &= small().fold(0, |m, t| m | eq_mask8(chunk, t));
            }
        }
        PView::Wide(values) => {
            for (w, chunk) in sel.iter_mut().zip(values.chunks_exact(64)) {
                #[cfg(target_arch = "x86_64")]
                if simd.avx512f {
                    // SAFETY: the processor supports AVX-512F (`Simd::detect`).
                    *w &= types
                        .iter()
                        .fold(0, |m, &t| m | unsafe { avx512::eq_mask32(chunk, t) });
                    continue;
                }
                *w &= types.iter().fold(0, |m, &t| m | eq_mask32(chunk, t));
            }
        }
    }
}

/// The AVX-512 forms of the compares and of the membership probe.
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{GuiBits, Selection};
    use std::arch::x86_64::{
        _mm512_and_si512, _mm512_cmpeq_epi32_mask, _mm512_cmpeq_epi8_mask, _mm512_cmplt_epu32_mask,
        _mm512_loadu_si512, _mm512_mask_i32gather_epi32, _mm512_mask_test_epi32_mask,
        _mm512_set1_epi32, _mm512_set1_epi8, _mm512_setzero_si512, _mm512_srli_epi32,
        _mm512_srlv_epi32,
    };

    /// Bit `j` set where `chunk[j] == value` (64 slots of 32 bits).
    #[target_feature(enable = "avx512f")]
    pub(super) fn eq_mask32(chunk: &[u32], value: u32) -> u64 {
        let mut mask = 0u64;
        for (k, sixteen) in chunk[..64].chunks_exact(16).enumerate() {
            // SAFETY: `sixteen` is 16 initialised u32 (64 bytes); the load
            // is unaligned.
            let lanes = unsafe { _mm512_loadu_si512(sixteen.as_ptr().cast()) };
            let hits = _mm512_cmpeq_epi32_mask(lanes, _mm512_set1_epi32(value as i32));
            mask |= u64::from(hits) << (16 * k);
        }
        mask
    }

    /// Bit `j` set where `chunk[j] == value` (64 slots of one byte: one
    /// compare).
    #[target_feature(enable = "avx512bw")]
    pub(super) fn eq_mask8(chunk: &[u8], value: u8) -> u64 {
        let chunk = &chunk[..64];
        // SAFETY: `chunk` is 64 initialised bytes; the load is unaligned.
        let lanes = unsafe { _mm512_loadu_si512(chunk.as_ptr().cast()) };
        _mm512_cmpeq_epi8_mask(lanes, _mm512_set1_epi8(value as i8))
    }

    /// Keeps the slots of `sel` whose value `low[j]` (the value is its own
    /// dense position: the upper half has no dense bits) has its bit set in
    /// `bits`. The bitmap is read as 32-bit words (the same bits on a
    /// little-endian machine); only selected, in-range lanes are gathered.
    #[target_feature(enable = "avx512f")]
    pub(super) fn narrow_by_membership(sel: &mut Selection, low: &[u32], bits: GuiBits<'_>) {
        for (w, chunk) in sel.iter_mut().zip(low.chunks_exact(64)) {
            *w = member_mask(*w, chunk, bits);
        }
    }

    #[target_feature(enable = "avx512f")]
    fn member_mask(sel: u64, chunk: &[u32], bits: GuiBits<'_>) -> u64 {
        let words32 = (bits.0.len() * 2).min(u32::MAX as usize) as u32;
        let limit = _mm512_set1_epi32(words32 as i32);
        let base = bits.0.as_ptr().cast::<i32>();
        let mut out = 0u64;
        for (k, sixteen) in chunk[..64].chunks_exact(16).enumerate() {
            let want = (sel >> (16 * k)) as u16;
            if want == 0 {
                continue;
            }
            // SAFETY: `sixteen` is 16 initialised u32 (64 bytes), loaded
            // unaligned; the gather reads only lanes whose word index is
            // below `words32`, i.e. inside `bits.0`.
            let hits = unsafe {
                let d = _mm512_loadu_si512(sixteen.as_ptr().cast());
                let index = _mm512_srli_epi32::<5>(d);
                let ok = want & _mm512_cmplt_epu32_mask(index, limit);
                let words =
                    _mm512_mask_i32gather_epi32::<4>(_mm512_setzero_si512(), ok, index, base);
                let shifted = _mm512_srlv_epi32(words, _mm512_and_si512(d, _mm512_set1_epi32(31)));
                _mm512_mask_test_epi32_mask(ok, shifted, _mm512_set1_epi32(1))
            };
            out |= u64::from(hits) << (16 * k);
        }
        out
    }
}

/// Bit `j` set where `chunk[j] == value` (64 one-byte slots): sixteen
/// lanes per SSE2 compare.
#[cfg(target_arch = "x86_64")]
#[inline]
fn eq_mask8(chunk: &[u8], value: u8) -> u64 {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };
    let chunk = &chunk[..64];
    // SAFETY: SSE2 is enabled on every x86-64 target; each load reads 16
    // initialised bytes of `chunk`, unaligned.
    unsafe {
        let needle = _mm_set1_epi8(value as i8);
        let mut mask = 0u64;
        for (k, sixteen) in chunk.chunks_exact(16).enumerate() {
            let lanes = _mm_loadu_si128(sixteen.as_ptr().cast::<__m128i>());
            let hits = _mm_movemask_epi8(_mm_cmpeq_epi8(lanes, needle)) as u16;
            mask |= u64::from(hits) << (16 * k);
        }
        mask
    }
}

/// Bit `j` set where `chunk[j] == value` (64 slots): four lanes per
/// compare, the lane results gathered by `movemask` (SSE2 is part of the
/// x86-64 baseline, so no feature detection is needed).
#[cfg(target_arch = "x86_64")]
#[inline]
fn eq_mask32(chunk: &[u32], value: u32) -> u64 {
    use std::arch::x86_64::{
        __m128i, _mm_castsi128_ps, _mm_cmpeq_epi32, _mm_loadu_si128, _mm_movemask_ps,
        _mm_set1_epi32,
    };
    let chunk = &chunk[..64];
    // SAFETY: SSE2 is enabled on every x86-64 target, so these intrinsics
    // are always available; each load reads 4 initialised u32 (16 bytes)
    // of `chunk`, unaligned.
    unsafe {
        let needle = _mm_set1_epi32(value as i32);
        let mut mask = 0u64;
        for (k, four) in chunk.chunks_exact(4).enumerate() {
            let lanes = _mm_loadu_si128(four.as_ptr().cast::<__m128i>());
            let hits = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(lanes, needle)));
            mask |= (hits as u64) << (4 * k);
        }
        mask
    }
}

/// Bit `j` set where `chunk[j] == value` (64 slots of either width).
#[cfg(not(target_arch = "x86_64"))]
#[inline]
fn eq_mask<T: Copy + PartialEq>(chunk: &[T], value: T) -> u64 {
    chunk[..64]
        .iter()
        .enumerate()
        .fold(0, |m, (j, &x)| m | (u64::from(x == value) << j))
}

#[cfg(not(target_arch = "x86_64"))]
use eq_mask as eq_mask8;
#[cfg(not(target_arch = "x86_64"))]
use eq_mask as eq_mask32;

/// Keeps the selected slots whose `high | low` value is in `bits`.
#[inline]
fn narrow_by_membership(sel: &mut Selection, high: u64, low: &[u32], bits: GuiBits<'_>) {
    for (w, chunk) in sel.iter_mut().zip(low.chunks_exact(64)) {
        let mut todo = *w;
        let mut keep = 0;
        while todo != 0 {
            let j = todo.trailing_zeros();
            keep |= bits.bit(high | u64::from(chunk[j as usize])) << j;
            todo &= todo - 1;
        }
        *w = keep;
    }
}

/// Slots selected in `sel`, ascending.
pub(super) fn selected(sel: &Selection) -> impl Iterator<Item = usize> + '_ {
    sel.iter().enumerate().flat_map(|(w, &word)| {
        let mut rest = word;
        std::iter::from_fn(move || {
            (rest != 0).then(|| {
                let j = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                w * 64 + j
            })
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::relation::column::{LocalColumn, PColumn};

    fn vertex(counter: u64, hash: u64) -> u64 {
        (1 << 60) | counter << 16 | hash
    }

    #[test]
    fn narrow_selection_equals_the_row_test() {
        let n = ZONE_TUPLES;
        let high = vertex(3, 0) & !0xffff_ffff;
        let s_low: Vec<u32> = (0..n as u32).map(|i| i * 7 % 1000).collect();
        let o_low: Vec<u32> = (0..n as u32).map(|i| i * 13 % 997).collect();
        let mut s_words = vec![0u64; 1 << 12];
        // Smaller than the values: O above 511 lies beyond the bitmap.
        let mut o_words = vec![0u64; 8];
        for g in (0..1000u64).step_by(3) {
            let d = dense_position(high | g);
            s_words[d / 64] |= 1 << (d % 64);
        }
        for g in (0..512u64).step_by(5) {
            let d = dense_position(high | g);
            o_words[d / 64] |= 1 << (d % 64);
        }
        let p_columns = [
            (0..n as u32).map(|i| i % 3).collect::<Vec<_>>(),
            (0..n as u32).map(|i| 255 + i % 3).collect(),
            vec![2; n],
            vec![5; n],
        ];
        let mut local = LocalColumn::new();
        local.set(0, 0);
        for p_values in &p_columns {
            let mut p = PColumn::new();
            for (slot, &v) in p_values.iter().enumerate() {
                p.set(slot, v);
            }
            // SAFETY: `p` and `local` are not written while the views live.
            let columns = NarrowColumns {
                s: (high, &s_low),
                p: unsafe { p.view() },
                o: (high, &o_low),
                local: unsafe { local.view() },
            };
            for types in [&[1u32, 2][..], &[256, 257], &[2]] {
                let filter = ScanFilter {
                    types: Some(types),
                    s: Some(GuiBits(&s_words)),
                    o: Some(GuiBits(&o_words)),
                };
                let mut sel = [u64::MAX; WORDS];
                sel[0] &= !0b1010; // two freed slots
                let mut portable = sel;
                filter.select_narrow(&mut sel, &columns);
                filter.select_with(&mut portable, &columns, Simd::PORTABLE);
                assert_eq!(sel, portable);
                let expected: Vec<usize> = (0..n)
                    .filter(|&j| j != 1 && j != 3)
                    .filter(|&j| {
                        filter.matches(
                            high | u64::from(s_low[j]),
                            p_values[j],
                            high | u64::from(o_low[j]),
                        )
                    })
                    .collect();
                assert_eq!(selected(&sel).collect::<Vec<_>>(), expected);
            }
        }
    }

    #[test]
    fn a_gui_beyond_the_bitmap_is_not_a_member() {
        let words = [u64::MAX; 2];
        assert!(GuiBits(&words).contains(vertex(0, 127)));
        assert!(!GuiBits(&words).contains(vertex(0, 128)));
        assert!(!GuiBits(&[]).contains(vertex(0, 0)));
    }
}
