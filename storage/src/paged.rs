//! A direct-access array allocated in pages on first write.
//!
//! Dense key spaces in the store are not uniformly dense: vertex guis are
//! numbered `counter << k | hash bits`, and the high collision counters are
//! used by only a few hash buckets, so a flat array sized by the largest
//! key is mostly empty at its top. Pages of `PAGE` entries are allocated
//! only where a key was written; reads of unwritten keys return `None`.
//! `PAGE` trades sparse regions (small pages waste less) against the page
//! table (8 bytes per page).

#[derive(Clone, Debug)]
pub(crate) struct PagedVec<T: Copy, const PAGE: usize> {
    pages: Vec<Option<Box<[T]>>>,
    fill: T,
    /// Pages allocated.
    allocated: usize,
}

impl<T: Copy, const PAGE: usize> PagedVec<T, PAGE> {
    /// An empty array whose unwritten entries read as `fill` once their
    /// page exists.
    pub(crate) fn new(fill: T) -> Self {
        PagedVec {
            pages: Vec::new(),
            fill,
            allocated: 0,
        }
    }

    #[inline]
    pub(crate) fn get(&self, index: usize) -> Option<&T> {
        let page = self.pages.get(index / PAGE)?.as_ref()?;
        page.get(index % PAGE)
    }

    /// Prefetches the entry at `index` when its page exists.
    #[inline]
    pub(crate) fn prefetch(&self, index: usize) {
        if let Some(entry) = self.get(index) {
            crate::prefetch::line(entry);
        }
    }

    pub(crate) fn get_mut(&mut self, index: usize) -> Option<&mut T> {
        let page = self.pages.get_mut(index / PAGE)?.as_mut()?;
        page.get_mut(index % PAGE)
    }

    /// The entry at `index`, allocating its page (filled) if needed.
    pub(crate) fn entry(&mut self, index: usize) -> &mut T {
        let page_no = index / PAGE;
        if page_no >= self.pages.len() {
            self.pages.resize_with(page_no + 1, || None);
        }
        let fill = self.fill;
        let page = match &mut self.pages[page_no] {
            Some(page) => page,
            empty => {
                self.allocated += 1;
                empty.insert(vec![fill; PAGE].into_boxed_slice())
            }
        };
        &mut page[index % PAGE]
    }

    /// Number of allocated pages.
    #[cfg(test)]
    pub(crate) fn allocated_pages(&self) -> usize {
        self.allocated
    }

    /// Bytes of the pages and the page table (memory accounting, O(1)).
    pub(crate) fn bytes(&self) -> usize {
        self.pages.capacity() * size_of::<Option<Box<[T]>>>()
            + self.allocated * PAGE * size_of::<T>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: usize = 256;

    #[test]
    fn pages_appear_only_where_written() {
        let mut a: PagedVec<u32, PAGE> = PagedVec::new(0);
        assert_eq!(a.get(5), None);
        *a.entry(5) = 7;
        *a.entry(100 * PAGE + 1) = 9;
        assert_eq!(a.get(5), Some(&7));
        assert_eq!(a.get(6), Some(&0));
        assert_eq!(a.get(50 * PAGE), None);
        assert_eq!(a.get(100 * PAGE + 1), Some(&9));
        assert_eq!(a.allocated_pages(), 2);
        *a.get_mut(5).unwrap() = 8;
        assert_eq!(a.get(5), Some(&8));
    }
}
