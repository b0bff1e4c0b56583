//! The epoch rule of the structures readers use without a lock (ADR 0078,
//! ADR 0080): what a reader can reach is never freed while it is pinned.
//!
//! One writer at a time changes a structure (the partition's write lock);
//! it stores atomic words in place, and replaces anything that changes
//! shape (a grown directory, a rebuilt table, a compacted arena): it swaps
//! a pointer and hands the old value to crossbeam's epoch collector
//! ([`retire`]), which frees it once every thread pinned at the time has
//! unpinned.
//!
//! Every thread that can reach a partition's indexes is pinned: readers
//! through the view `Relation::read` hands out (it holds a guard), writers
//! for the whole of their hold of the write lock. Code below that level
//! therefore loads with [`assumed`] instead of threading a guard through
//! every call.

use crossbeam::epoch::{self, Guard, Pointable, Shared};

/// The guard to load shared pointers with, for a caller that is pinned
/// (module docs). Loads through it are protected by the caller's own pin.
#[inline]
pub(crate) fn assumed() -> &'static Guard {
    // SAFETY: `unprotected` only skips pinning; the module's rule keeps
    // every caller pinned while it holds what it loads.
    unsafe { epoch::unprotected() }
}

/// Hands `old`, just made unreachable by its one writer, to the collector.
///
/// # Safety
/// `old` was allocated as an `Owned` (a `Box`), nothing reachable points to
/// it any more, and nobody else retires it.
pub(crate) unsafe fn retire<T: ?Sized + Pointable>(old: Shared<'_, T>) {
    if old.is_null() {
        return;
    }
    let guard = epoch::pin();
    // SAFETY: the caller's contract; readers that loaded `old` are pinned,
    // and the collector waits for them.
    unsafe { guard.defer_destroy(old) };
}
