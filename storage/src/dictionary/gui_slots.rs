//! The dictionary's gui -> record map, read without locks: the layout of
//! [`crate::gui_map`] (a direct-access array over the dense numbering of
//! guis, in pages allocated on first write, rare other guis in a hash
//! map) with atomic slots, pages that never move, and a page directory the
//! writer replaces when it grows (old directories are kept until the map
//! is dropped, so a reader still holding one reads valid pages).
//!
//! One writer at a time: writes take a `&mut` [`SlotsWriter`], which the
//! dictionary keeps under its write lock. A slot is stored with release
//! ordering after the record it names was published (module `arena`), and
//! loaded with acquire ordering, so a reader that finds a record number
//! finds the record's bytes.

use crate::gui_map::{dense_number, PAGE_SLOTS};
use foldhash::fast::FixedState;
use std::collections::HashMap;
use std::sync::atomic::{AtomicPtr, AtomicU32, Ordering};

type Page = [AtomicU32];

/// Page pointers (each to `PAGE_SLOTS` slots, or null).
struct Directory {
    pages: Box<[AtomicPtr<AtomicU32>]>,
}

pub(super) struct GuiSlots {
    tag: u8,
    directory: AtomicPtr<Directory>,
    /// Directories replaced by a larger one, freed with the map. Boxed:
    /// readers may hold a reference to one, so it must not move.
    #[allow(clippy::vec_box)]
    retired: parking_lot::Mutex<Vec<Box<Directory>>>,
    /// Guis without a dense number (another tag, huge counters): rare.
    overflow: parking_lot::RwLock<HashMap<u64, u32, FixedState>>,
}

/// The right to write a [`GuiSlots`]: one per map, held by its writer.
#[derive(Default)]
pub(super) struct SlotsWriter(());

impl GuiSlots {
    pub(super) fn new(tag: u8) -> Self {
        let empty = Box::new(Directory {
            pages: Box::new([]),
        });
        GuiSlots {
            tag,
            directory: AtomicPtr::new(Box::into_raw(empty)),
            retired: parking_lot::Mutex::new(Vec::new()),
            overflow: parking_lot::RwLock::new(HashMap::default()),
        }
    }

    fn directory(&self) -> &Directory {
        // SAFETY: the pointer is always a live `Directory`: replaced ones
        // move to `retired` and are freed only in `drop`.
        unsafe { &*self.directory.load(Ordering::Acquire) }
    }

    /// The slot of dense number `n`, if its page exists.
    fn slot(&self, n: usize) -> Option<&AtomicU32> {
        let page = self
            .directory()
            .pages
            .get(n / PAGE_SLOTS)?
            .load(Ordering::Acquire);
        // SAFETY: a non-null page pointer is a live allocation of
        // `PAGE_SLOTS` slots, freed only in `drop`.
        (!page.is_null()).then(|| unsafe { &*page.add(n % PAGE_SLOTS) })
    }

    /// The value of `gui`, 0 when it has none.
    pub(super) fn get(&self, gui: u64) -> u32 {
        match dense_number(self.tag, gui) {
            Some(n) => self.slot(n).map_or(0, |s| s.load(Ordering::Acquire)),
            None => self.overflow.read().get(&gui).copied().unwrap_or(0),
        }
    }

    /// Starts loading the slot of `gui` into the cache.
    pub(super) fn prefetch(&self, gui: u64) {
        if let Some(slot) = dense_number(self.tag, gui).and_then(|n| self.slot(n)) {
            crate::prefetch::line(slot);
        }
    }

    /// Sets the value of `gui` (non-zero).
    pub(super) fn set(&self, _writer: &mut SlotsWriter, gui: u64, value: u32) {
        let Some(n) = dense_number(self.tag, gui) else {
            self.overflow.write().insert(gui, value);
            return;
        };
        let page_no = n / PAGE_SLOTS;
        if page_no >= self.directory().pages.len() {
            self.grow(page_no + 1);
        }
        let entry = &self.directory().pages[page_no];
        if entry.load(Ordering::Acquire).is_null() {
            let page: Box<Page> = (0..PAGE_SLOTS).map(|_| AtomicU32::new(0)).collect();
            entry.store(Box::into_raw(page).cast::<AtomicU32>(), Ordering::Release);
        }
        if let Some(slot) = self.slot(n) {
            slot.store(value, Ordering::Release);
        }
    }

    /// Bytes of its pages, its directory and its overflow map (memory
    /// accounting: one load per page; directories replaced by growth,
    /// kept for readers, are left out).
    pub(super) fn bytes(&self) -> usize {
        let pages = &self.directory().pages;
        let allocated = pages
            .iter()
            .filter(|p| !p.load(Ordering::Relaxed).is_null())
            .count();
        let overflow = self.overflow.read().capacity() * size_of::<(u64, u32)>();
        pages.len() * size_of::<usize>() + allocated * PAGE_SLOTS * size_of::<u32>() + overflow
    }

    /// Replaces the directory by one of at least `pages` entries (doubling),
    /// the old one retired.
    fn grow(&self, pages: usize) {
        let old = self.directory();
        let len = pages.max(old.pages.len() * 2).max(16);
        let fresh: Box<[AtomicPtr<AtomicU32>]> = (0..len)
            .map(|i| {
                AtomicPtr::new(
                    old.pages
                        .get(i)
                        .map_or(std::ptr::null_mut(), |p| p.load(Ordering::Acquire)),
                )
            })
            .collect();
        let fresh = Box::into_raw(Box::new(Directory { pages: fresh }));
        let replaced = self.directory.swap(fresh, Ordering::AcqRel);
        // SAFETY: `replaced` came from `Box::into_raw` and is no longer
        // reachable from `directory`; readers may still hold it, so it is
        // kept alive until `drop`.
        self.retired.lock().push(unsafe { Box::from_raw(replaced) });
    }
}

impl Drop for GuiSlots {
    fn drop(&mut self) {
        // SAFETY: the current directory came from `Box::into_raw`; every
        // page ever allocated is in it (growth copies the pointers), each
        // from a boxed slice of `PAGE_SLOTS` slots.
        let directory = unsafe { Box::from_raw(*self.directory.get_mut()) };
        for page in directory.pages.iter() {
            let page = page.load(Ordering::Relaxed);
            if !page.is_null() {
                let slice = std::ptr::slice_from_raw_parts_mut(page, PAGE_SLOTS);
                // SAFETY: as above; nothing else frees pages.
                drop(unsafe { Box::from_raw(slice) });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{make_gui, TAG_LIT, TAG_VERT};

    #[test]
    fn dense_and_overflow_guis_round_trip() {
        let slots = GuiSlots::new(TAG_LIT);
        let mut w = SlotsWriter::default();
        let guis = [
            make_gui(TAG_LIT, 0, 1),
            make_gui(TAG_LIT, 9, 0xffff),
            make_gui(TAG_LIT, 1 << 20, 3),
            make_gui(TAG_VERT, 2, 2),
        ];
        for (n, &gui) in guis.iter().enumerate() {
            assert_eq!(slots.get(gui), 0);
            slots.set(&mut w, gui, n as u32 + 1);
        }
        for (n, &gui) in guis.iter().enumerate() {
            assert_eq!(slots.get(gui), n as u32 + 1);
        }
        assert_eq!(slots.get(make_gui(TAG_LIT, 9, 0xfffe)), 0);
    }

    #[test]
    fn readers_find_every_value_while_the_directory_grows() {
        let slots = GuiSlots::new(TAG_LIT);
        let guis: Vec<u64> = (0..200u32)
            .flat_map(|c| [make_gui(TAG_LIT, c, 7), make_gui(TAG_LIT, c, 40_000)])
            .collect();
        let done = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|s| {
            s.spawn(|| {
                let mut w = SlotsWriter::default();
                for (n, &gui) in guis.iter().enumerate() {
                    slots.set(&mut w, gui, n as u32 + 1);
                    done.store(n + 1, Ordering::Release);
                }
            });
            s.spawn(|| {
                while done.load(Ordering::Acquire) < guis.len() {
                    let upto = done.load(Ordering::Acquire);
                    for (n, &gui) in guis[..upto].iter().enumerate() {
                        assert_eq!(slots.get(gui), n as u32 + 1);
                    }
                }
            });
        });
    }
}
