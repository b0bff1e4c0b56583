//! Waiting for indexes from a transaction (`CALL db.awaitIndexes()`): the
//! procedures that wait see only a `Txn`, not the store.

use super::Txn;
use crate::schema::IndexState;
use std::time::{Duration, Instant};

impl Txn {
    /// Waits until every index is online or failed; `false` on timeout.
    pub fn await_indexes(&self, timeout: Duration) -> bool {
        self.store.await_indexes(timeout)
    }

    /// Waits until the index `name` is online or failed, returning its
    /// final state; `None` when there is no such index, `Some(Populating)`
    /// on timeout.
    pub fn await_index(&self, name: &str, timeout: Duration) -> Option<IndexState> {
        let deadline = Instant::now() + timeout;
        loop {
            let state = self
                .store
                .schema()
                .indexes
                .into_iter()
                .find(|i| i.def.name == name)?
                .state;
            if !matches!(state, IndexState::Populating { .. }) || Instant::now() >= deadline {
                return Some(state);
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}
