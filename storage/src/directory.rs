//! Arrays of atomic cells by number that readers load without a lock while
//! one writer adds cells and stores into them (module `pinned`): the page
//! table of `atomic_pages` and the flat zone table of `relation/zones`.
//!
//! The array never changes size in place: to cover a higher number the
//! writer copies it into one at least twice as long, swaps that in and
//! retires the old array. A reader that loaded the old one misses only
//! cells added, and stores made, after its load. A [`Directory`] (cells
//! that are pointers) does not own what its pointers point to.

use crate::pinned::{self, retire};
use crossbeam::epoch::{Atomic, Guard, Owned, Shared};
use std::mem::MaybeUninit;
use std::sync::atomic::AtomicPtr;
use std::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release};

/// A cell of a [`GrowArray`]: atomic words, copied when the array grows.
pub(crate) trait Cell: Send + Sync + 'static {
    /// A new cell, before the writer stores into it.
    fn empty() -> Self;
    /// A copy for the grown array (the writer copying its own stores).
    fn copy(&self) -> Self;
}

impl<T: 'static> Cell for AtomicPtr<T> {
    fn empty() -> Self {
        AtomicPtr::new(std::ptr::null_mut())
    }

    fn copy(&self) -> Self {
        AtomicPtr::new(self.load(Relaxed))
    }
}

pub(crate) struct GrowArray<C: Cell> {
    /// The cells, their count stored with them (one load reaches both).
    cells: Atomic<[MaybeUninit<C>]>,
}

impl<C: Cell> GrowArray<C> {
    pub(crate) fn new() -> Self {
        GrowArray {
            cells: Atomic::null(),
        }
    }

    /// The cells, as of now.
    #[inline]
    pub(crate) fn cells<'g>(&self, guard: &'g Guard) -> &'g [C] {
        // SAFETY: a loaded array stays allocated while `guard` is pinned
        // (replaced ones are freed through the collector).
        let Some(array) = (unsafe { self.cells.load(Acquire, guard).as_ref() }) else {
            return &[];
        };
        // SAFETY: every cell is initialised before the array is published
        // (`cell`); `MaybeUninit<C>` has `C`'s layout.
        unsafe { std::slice::from_raw_parts(array.as_ptr().cast::<C>(), array.len()) }
    }

    /// Cell `n` (writer only), the array grown to cover it.
    pub(crate) fn cell(&self, n: usize) -> &C {
        let guard = pinned::assumed();
        let current = self.cells(guard);
        if n >= current.len() {
            let len = (n + 1).max(2 * current.len()).max(4);
            let mut grown = Owned::<[MaybeUninit<C>]>::init(len);
            for (k, slot) in grown.iter_mut().enumerate() {
                slot.write(current.get(k).map_or_else(C::empty, C::copy));
            }
            let old = self.cells.swap(grown, AcqRel, guard);
            // SAFETY: the old array is unreachable now and was allocated
            // by `Owned::init`.
            unsafe { retire(old) };
        }
        &self.cells(guard)[n]
    }
}

impl<C: Cell> Drop for GrowArray<C> {
    fn drop(&mut self) {
        let guard = pinned::assumed();
        let cells = self.cells.swap(Shared::null(), Relaxed, guard);
        if !cells.is_null() {
            // SAFETY: `&mut self`: no reader is left; allocated by `Owned`.
            // (`MaybeUninit` drops no cell: cells own nothing.)
            drop(unsafe { cells.into_owned() });
        }
    }
}

/// Pointers by number.
pub(crate) type Directory<T> = GrowArray<AtomicPtr<T>>;

impl<T: 'static> GrowArray<AtomicPtr<T>> {
    /// The pointers, as of now.
    #[inline]
    pub(crate) fn pointers<'g>(&self, guard: &'g Guard) -> &'g [AtomicPtr<T>] {
        self.cells(guard)
    }

    /// Pointer `n`, when one is set.
    #[inline]
    pub(crate) fn get(&self, n: usize, guard: &Guard) -> Option<*mut T> {
        let pointer = self.cells(guard).get(n)?.load(Acquire);
        (!pointer.is_null()).then_some(pointer)
    }

    /// Sets pointer `n` (writer only; release: what it points to must be
    /// complete), growing the array to cover it.
    pub(crate) fn set(&self, n: usize, pointer: *mut T) {
        self.cell(n).store(pointer, Release);
    }
}
