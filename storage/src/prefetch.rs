//! Software prefetch: asks for cache lines that will be read soon, so that
//! independent misses overlap instead of each stalling in turn (batched
//! index probes, scans across the separate arrays of zones). A hint only:
//! it never faults and changes no result; on targets without an
//! instruction for it, it does nothing.

/// Every cache line of `values`.
#[inline]
pub(crate) fn slice<T>(values: &[T]) {
    let bytes = std::mem::size_of_val(values);
    let start = values.as_ptr().cast::<u8>();
    for offset in (0..bytes).step_by(64) {
        line(start.wrapping_add(offset));
    }
}

/// Every cache line of the first `len` bytes of `value` (a hot prefix of
/// a larger struct).
#[inline]
pub(crate) fn prefix<T>(value: &T, len: usize) {
    let start = (value as *const T).cast::<u8>();
    for offset in (0..len.min(std::mem::size_of::<T>())).step_by(64) {
        line(start.wrapping_add(offset));
    }
}

/// The cache line holding `ptr` (public: the loader prefetches its id
/// index slots with it).
#[inline]
pub fn line<T>(ptr: *const T) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: SSE is part of the x86-64 baseline; a prefetch is a hint
        // that never faults, whatever the address.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(ptr.cast::<i8>()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = ptr;
}
