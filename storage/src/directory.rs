//! Pointers by number that readers load without a lock while one writer
//! adds them (module `pinned`): the page table of `atomic_pages` and the
//! block map of `list_arena`.
//!
//! The pointer array never changes size in place: to cover a higher
//! number the writer copies it into one at least twice as long, swaps that
//! in and retires the old array (a reader that loaded the old one misses
//! only pointers added after its load). A directory does not own what its
//! pointers point to.

use crate::pinned::{self, retire};
use crossbeam::epoch::{Atomic, Guard, Owned, Shared};
use std::sync::atomic::AtomicPtr;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};

struct Pointers<T>(Box<[AtomicPtr<T>]>);

pub(crate) struct Directory<T> {
    pointers: Atomic<Pointers<T>>,
}

impl<T: Send + Sync + 'static> Directory<T> {
    pub(crate) fn new() -> Self {
        Directory {
            pointers: Atomic::null(),
        }
    }

    /// The pointers, as of now.
    #[inline]
    pub(crate) fn pointers<'g>(&self, guard: &'g Guard) -> &'g [AtomicPtr<T>] {
        // SAFETY: a loaded array stays allocated while `guard` is pinned
        // (replaced ones are freed through the collector).
        unsafe { self.pointers.load(Acquire, guard).as_ref() }.map_or(&[], |p| &p.0[..])
    }

    /// Pointer `n`, when one is set.
    #[inline]
    pub(crate) fn get(&self, n: usize, guard: &Guard) -> Option<*mut T> {
        let pointer = self.pointers(guard).get(n)?.load(Acquire);
        (!pointer.is_null()).then_some(pointer)
    }

    /// Sets pointer `n` (writer only; release: what it points to must be
    /// complete), growing the array to cover it.
    pub(crate) fn set(&self, n: usize, pointer: *mut T) {
        let guard = pinned::assumed();
        let current = self.pointers(guard);
        if n >= current.len() {
            let len = (n + 1).max(2 * current.len()).max(4);
            let grown: Box<[AtomicPtr<T>]> = (0..len)
                .map(|k| {
                    AtomicPtr::new(
                        current
                            .get(k)
                            .map_or(std::ptr::null_mut(), |p| p.load(Relaxed)),
                    )
                })
                .collect();
            let old = self
                .pointers
                .swap(Owned::new(Pointers(grown)), AcqRel, guard);
            // SAFETY: the old array is unreachable now and was boxed.
            unsafe { retire(old) };
        }
        self.pointers(guard)[n].store(pointer, Release);
    }
}

impl<T> Drop for Directory<T> {
    fn drop(&mut self) {
        let guard = pinned::assumed();
        let pointers = self.pointers.swap(Shared::null(), Relaxed, guard);
        if !pointers.is_null() {
            // SAFETY: `&mut self`: no reader is left; boxed by `Owned`.
            drop(unsafe { pointers.into_owned() });
        }
    }
}
