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
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The guard to load shared pointers with, for a caller that is pinned
/// (module docs). Loads through it are protected by the caller's own pin.
#[inline]
pub(crate) fn assumed() -> &'static Guard {
    // SAFETY: `unprotected` only skips pinning; the module's rule keeps
    // every caller pinned while it holds what it loads.
    unsafe { epoch::unprotected() }
}

/// `counter += delta` for a counter only the structure's one writer
/// changes (readers may load it: no read-modify-write needed).
#[inline]
pub(crate) fn add(counter: &AtomicUsize, delta: isize) {
    counter.store(
        counter.load(Ordering::Relaxed).wrapping_add_signed(delta),
        Ordering::Relaxed,
    );
}

/// Hands `old`, just made unreachable by its one writer, to the collector.
///
/// What the collector frees is freed by whichever thread happens to pin
/// when it is due, often a reader: a compacted index's old heads and arena
/// are megabytes and thousands of pages, so the collector only moves them
/// to a graveyard, and writers empty it ([`bury`]) after releasing their
/// lock. (Freed by the collector, one such drop held a point read for
/// 36 ms during a bulk load; bench `reader_latency`.)
///
/// # Safety
/// `old` was allocated as an `Owned` (a `Box`), nothing reachable points to
/// it any more, and nobody else retires it.
pub(crate) unsafe fn retire<T: ?Sized + Pointable + Send + 'static>(old: Shared<'static, T>) {
    if old.is_null() {
        return;
    }
    let old = Dead(old);
    let guard = epoch::pin();
    // SAFETY: the caller's contract; readers that loaded `old` are pinned,
    // and the collector runs this once they have all unpinned.
    unsafe {
        guard.defer_unchecked(move || {
            let owned = old.0.into_owned();
            GRAVEYARD.lock().push(Box::new(owned));
            WAITING.store(true, Ordering::Release);
        })
    };
}

/// A retired pointer on its way to the graveyard (sent to whichever thread
/// runs the collector).
struct Dead<T: ?Sized + Pointable + 'static>(Shared<'static, T>);

// SAFETY: the pointee is `Send` and no longer shared: only the collector's
// closure uses the pointer.
unsafe impl<T: ?Sized + Pointable + Send + 'static> Send for Dead<T> {}

/// Garbage no reader can reach, waiting for a writer to drop it.
static GRAVEYARD: parking_lot::Mutex<Vec<Box<dyn Send>>> = parking_lot::Mutex::new(Vec::new());

/// Set when the graveyard may hold something (writers check it before
/// taking the graveyard's lock).
static WAITING: AtomicBool = AtomicBool::new(false);

/// Drops what the collector moved to the graveyard (writers, after
/// releasing their lock).
pub(crate) fn bury() {
    if WAITING.swap(false, Ordering::Acquire) {
        let dead = std::mem::take(&mut *GRAVEYARD.lock());
        drop(dead);
    }
}

/// Frees what writers replaced and no reader can still reach: lets the
/// collector run as far as pinned threads allow, then empties the
/// graveyard (for a caller that wants memory figures without the garbage
/// of a load that just finished; writers do this as they go).
pub fn free_retired() {
    for _ in 0..1024 {
        epoch::pin().flush();
    }
    bury();
}
