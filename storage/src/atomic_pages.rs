//! A direct-access array of atomic words, allocated in pages on first
//! write, that readers use while its one writer stores into it and grows
//! it (module `pinned`).
//!
//! As `paged::PagedVec`, pages of `PAGE` words exist only where a word was
//! written (dense key spaces are not uniformly dense). Pages never move
//! once allocated and are freed only with the array; the page table is a
//! [`Directory`] (replaced by a larger copy when it grows). A reader that
//! loaded an older page table misses only pages allocated after its load,
//! which hold words stored after it started.
//!
//! Invariants: only the writer stores words and allocates pages; a page
//! pointer is stored (release) after its page is filled.

use crate::directory::Directory;
use crate::pinned;
use crossbeam::epoch::Guard;
use std::sync::atomic::Ordering::{Acquire, Relaxed, Release};
use std::sync::atomic::{AtomicU32, AtomicU64};

/// A word the array holds, with its atomic form.
pub(crate) trait Word: Copy + Send + Sync + 'static {
    type Atomic: Send + Sync + 'static;
    fn new(value: Self) -> Self::Atomic;
    fn load(atomic: &Self::Atomic) -> Self;
    fn store(atomic: &Self::Atomic, value: Self);
}

macro_rules! word {
    ($plain:ty, $atomic:ty) => {
        impl Word for $plain {
            type Atomic = $atomic;
            #[inline]
            fn new(value: Self) -> $atomic {
                <$atomic>::new(value)
            }
            #[inline]
            fn load(atomic: &$atomic) -> Self {
                atomic.load(Acquire)
            }
            #[inline]
            fn store(atomic: &$atomic, value: Self) {
                atomic.store(value, Release)
            }
        }
    };
}

word!(u32, AtomicU32);
word!(u64, AtomicU64);

pub(crate) struct AtomicPages<W: Word, const PAGE: usize> {
    /// Page pointers (null where no page is allocated).
    directory: Directory<W::Atomic>,
    fill: W,
}

impl<W: Word, const PAGE: usize> AtomicPages<W, PAGE> {
    /// An empty array whose unwritten words read as `fill` once their
    /// page exists.
    pub(crate) fn new(fill: W) -> Self {
        AtomicPages {
            directory: Directory::new(),
            fill,
        }
    }

    #[inline]
    fn page<'g>(&self, page_no: usize, guard: &'g Guard) -> Option<&'g [W::Atomic]> {
        let page = self.directory.get(page_no, guard)?;
        // SAFETY: a page pointer is a live page of `PAGE` words, freed
        // only with `self`.
        Some(unsafe { std::slice::from_raw_parts(page, PAGE) })
    }

    /// The word at `index`, when its page exists.
    #[inline]
    pub(crate) fn get(&self, index: usize, guard: &Guard) -> Option<W> {
        let page = self.page(index / PAGE, guard)?;
        Some(W::load(&page[index % PAGE]))
    }

    /// Prefetches the word at `index` when its page exists.
    #[inline]
    pub(crate) fn prefetch(&self, index: usize, guard: &Guard) {
        if let Some(page) = self.page(index / PAGE, guard) {
            crate::prefetch::line(&page[index % PAGE]);
        }
    }

    /// Stores `value` at `index`, allocating its page if needed (writer
    /// only).
    pub(crate) fn set(&self, index: usize, value: W) {
        let page_no = index / PAGE;
        let page = match self.page(page_no, pinned::assumed()) {
            Some(page) => page,
            None => {
                let page: Box<[W::Atomic]> = (0..PAGE).map(|_| W::new(self.fill)).collect();
                let raw = Box::into_raw(page).cast::<W::Atomic>();
                self.directory.set(page_no, raw);
                // SAFETY: just allocated with `PAGE` words.
                unsafe { std::slice::from_raw_parts(raw, PAGE) }
            }
        };
        W::store(&page[index % PAGE], value);
    }

    /// Every word of every allocated page, with its index (writer only,
    /// or a reader that accepts words stored during the walk either way).
    pub(crate) fn for_each(&self, mut f: impl FnMut(usize, W)) {
        let guard = pinned::assumed();
        for page_no in 0..self.directory.pointers(guard).len() {
            if let Some(page) = self.page(page_no, guard) {
                for (offset, word) in page.iter().enumerate() {
                    f(page_no * PAGE + offset, W::load(word));
                }
            }
        }
    }

    /// Bytes of the allocated pages and the page table (memory
    /// accounting): one load per page, none per word.
    pub(crate) fn bytes(&self) -> usize {
        let table = self.directory.pointers(pinned::assumed()).len() * size_of::<usize>();
        table + self.allocated_pages() * PAGE * size_of::<W::Atomic>()
    }

    /// Number of allocated pages.
    pub(crate) fn allocated_pages(&self) -> usize {
        let guard = pinned::assumed();
        let pages = self.directory.pointers(guard);
        (0..pages.len())
            .filter(|&n| self.page(n, guard).is_some())
            .count()
    }
}

impl<W: Word, const PAGE: usize> Drop for AtomicPages<W, PAGE> {
    fn drop(&mut self) {
        for page in self.directory.pointers(pinned::assumed()) {
            let page = page.load(Relaxed);
            if !page.is_null() {
                // SAFETY: `&mut self`: no reader is left; each page was
                // boxed by `set`, and the directory does not own it.
                drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(page, PAGE)) });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossbeam::epoch;

    const PAGE: usize = 256;

    #[test]
    fn pages_appear_only_where_written() {
        let a: AtomicPages<u32, PAGE> = AtomicPages::new(0);
        let guard = epoch::pin();
        assert_eq!(a.get(5, &guard), None);
        a.set(5, 7);
        a.set(100 * PAGE + 1, 9);
        assert_eq!(a.get(5, &guard), Some(7));
        assert_eq!(a.get(6, &guard), Some(0));
        assert_eq!(a.get(50 * PAGE, &guard), None);
        assert_eq!(a.get(100 * PAGE + 1, &guard), Some(9));
        assert_eq!(a.allocated_pages(), 2);
        a.set(5, 8);
        let mut set = Vec::new();
        a.for_each(|i, v| {
            if v != 0 {
                set.push((i, v));
            }
        });
        assert_eq!(set, [(5, 8), (100 * PAGE + 1, 9)]);
    }

    #[test]
    fn a_reader_keeps_reading_while_the_directory_grows() {
        let a: std::sync::Arc<AtomicPages<u64, 16>> = std::sync::Arc::new(AtomicPages::new(0));
        a.set(0, 1);
        let reader = {
            let a = std::sync::Arc::clone(&a);
            std::thread::spawn(move || {
                for _ in 0..2000 {
                    let guard = epoch::pin();
                    assert_eq!(a.get(0, &guard), Some(1));
                }
            })
        };
        for n in 1..2000 {
            a.set(n * 16, n as u64);
        }
        reader.join().unwrap();
        let guard = epoch::pin();
        assert_eq!(a.get(1999 * 16, &guard), Some(1999));
    }
}
