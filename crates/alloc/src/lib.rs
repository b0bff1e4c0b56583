//! The allocator Nereid's binaries install, and the policy that puts the
//! store on 2 MiB pages.
//!
//! The store's zones, adjacency arenas and dictionaries are many small
//! arrays reached by dependent random loads (an index head, then a list,
//! then a tuple's columns). On 4 KiB pages nearly every such load also
//! misses the TLB; on 2 MiB pages the page walks mostly disappear (see
//! `benches/RESULTS.md` and ADR 0066). Transparent huge pages on the
//! machines we run on are granted only to memory advised with
//! `MADV_HUGEPAGE`, which the system allocator never asks for. mimalloc
//! does, for the arenas it reserves, when it is allowed large OS pages.
//!
//! Usage, in a binary:
//! ```ignore
//! #[global_allocator]
//! static ALLOCATOR: nereid_alloc::Allocator = nereid_alloc::Allocator;
//! fn main() {
//!     nereid_alloc::prefer_huge_pages();
//!     // ...
//! }
//! ```
//! Libraries never install an allocator; only binaries (the server, the
//! benchmarks) do.

pub use mimalloc::MiMalloc as Allocator;

/// mimalloc option ids, from the `mi_option_e` enum of the mimalloc v3
/// sources that `libmimalloc-sys` 0.1.49 builds (the dependency is pinned
/// to that version because these ids are positional). The sys crate names
/// only some of them.
mod option {
    pub(super) const ARENA_EAGER_COMMIT: i32 = 4;
    pub(super) const ALLOW_LARGE_OS_PAGES: i32 = 6;
    pub(super) const PURGE_DELAY: i32 = 15;
}

/// Makes every arena mimalloc reserves from now on eagerly committed and
/// advised for transparent huge pages, and keeps freed memory instead of
/// returning it to the OS (returning it would split the huge pages again;
/// a database server's heap is its working set). Call first thing in
/// `main`: memory reserved earlier keeps 4 KiB pages.
pub fn prefer_huge_pages() {
    // SAFETY: `mi_option_set` only stores an integer into mimalloc's option
    // table; any id below `_mi_option_last` and any value are accepted.
    unsafe {
        libmimalloc_sys::mi_option_set(option::ALLOW_LARGE_OS_PAGES, 1);
        libmimalloc_sys::mi_option_set(option::ARENA_EAGER_COMMIT, 1);
        libmimalloc_sys::mi_option_set(option::PURGE_DELAY, -1);
    }
}

/// Whether mimalloc will advise huge pages for new arenas.
pub fn huge_pages_preferred() -> bool {
    // SAFETY: reads one entry of mimalloc's option table.
    unsafe { libmimalloc_sys::mi_option_get(option::ALLOW_LARGE_OS_PAGES) == 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_policy_is_recorded_in_mimallocs_options() {
        prefer_huge_pages();
        assert!(huge_pages_preferred());
        // SAFETY: reads mimalloc's option table.
        let purge = unsafe { libmimalloc_sys::mi_option_get(option::PURGE_DELAY) };
        assert_eq!(purge, -1);
    }
}
