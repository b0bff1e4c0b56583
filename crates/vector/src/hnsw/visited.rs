//! Which nodes a search has already looked at: one mark per node, reset in
//! O(1) between searches by moving to a new epoch, kept per thread so that
//! a search allocates nothing once its thread has searched before.

use std::cell::RefCell;

pub(super) struct Visited {
    marks: Vec<u32>,
    epoch: u32,
}

impl Visited {
    /// Marks `node`; true when it was not marked in this search.
    pub(super) fn first_visit(&mut self, node: u32) -> bool {
        let node = node as usize;
        if node >= self.marks.len() {
            self.marks.resize((node + 1).next_power_of_two(), 0);
        }
        let fresh = self.marks[node] != self.epoch;
        self.marks[node] = self.epoch;
        fresh
    }

    fn next_epoch(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.marks.fill(0);
            self.epoch = 1;
        }
    }
}

thread_local! {
    static VISITED: RefCell<Visited> = const { RefCell::new(Visited { marks: Vec::new(), epoch: 0 }) };
}

/// Runs `search` with this thread's visited set, emptied.
pub(super) fn with_visited<R>(search: impl FnOnce(&mut Visited) -> R) -> R {
    VISITED.with(|cell| match cell.try_borrow_mut() {
        Ok(mut visited) => {
            visited.next_epoch();
            search(&mut visited)
        }
        // A search inside a search on one thread (not done today): a
        // private set keeps both correct.
        Err(_) => search(&mut Visited {
            marks: Vec::new(),
            epoch: 1,
        }),
    })
}
