//! A seeded generator for this crate's randomized tests: the same cases
//! on every run, so a failure repeats (no dependency for a few lines).

/// Numbers below the bound each call is given (xorshift64 from `seed`,
/// which must not be 0).
pub(crate) fn below(seed: u64) -> impl FnMut(u64) -> u64 {
    let mut state = seed;
    move |bound| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % bound
    }
}
