//! Recursion that cannot overflow the thread's stack.
//!
//! Queries, plans and values are trees whose depth the client chooses: a
//! chain of 13,000 `WITH` clauses is a plan 13,000 operators deep, a
//! 200-hop pattern a pipeline 200 expands deep. Every recursive walk over
//! such a tree (analysis, lowering, rewrite rules, physical planning,
//! EXPLAIN rendering, operator construction, batch pulling, PackStream
//! encoding) calls [`deeper`] once per level. When less than [`RED_ZONE`]
//! of the thread's stack is left, the closure runs on a fresh heap-allocated
//! segment of [`SEGMENT`] bytes instead, so depth costs memory (charged like
//! any other allocation) rather than aborting the process: a stack overflow
//! is not a panic and takes every session down with it.
//!
//! Depth that has no use (nesting of subqueries, parentheses, lists) is
//! still bounded where it is parsed; this crate covers what the bounds
//! leave long, and makes a missed bound cost memory instead of the process.
//! The checks cost one comparison of the stack pointer per level.

/// The stack a level may use between two calls of [`deeper`]: the largest
/// frames of one level (the executor's, in a debug build) stay well below.
pub const RED_ZONE: usize = 256 * 1024;

/// The size of each segment allocated when the stack runs low.
pub const SEGMENT: usize = 4 * 1024 * 1024;

/// Runs `f`, on a new stack segment when the current one is nearly used up.
/// Call it once per level of any recursion whose depth input decides.
#[inline]
pub fn deeper<R>(f: impl FnOnce() -> R) -> R {
    stacker::maybe_grow(RED_ZONE, SEGMENT, f)
}

#[cfg(test)]
mod tests {
    use super::deeper;

    /// Recursion far deeper than a 256 KiB thread stack could hold.
    fn depth(n: u64) -> u64 {
        // A frame that cannot be optimised into a loop.
        let pad = std::hint::black_box([n; 64]);
        if n == 0 {
            return pad[0];
        }
        deeper(|| depth(n - 1)) + pad[63] - n + 1
    }

    #[test]
    fn deep_recursion_on_a_small_stack_completes() {
        let result = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(|| depth(200_000))
            .unwrap()
            .join()
            .unwrap();
        assert_eq!(result, 200_000);
    }
}
