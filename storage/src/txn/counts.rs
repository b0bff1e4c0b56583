//! Exact counts through a transaction: the count store's number for the
//! transaction's snapshot (module `counts`) plus the transaction's own
//! writes, derived from its undo list.
//!
//! Why the undo list: it records every tuple the transaction inserted or
//! marked deleted, in the same terms stamping later counts them, so the
//! two can never disagree (a node created and deleted in one transaction
//! is +1 and -1). Before commit these writes are not in the count store;
//! after commit they are, but at a commit timestamp above the read
//! timestamp, so adding them here is still exactly right. After a
//! rollback the undo list is empty and the snapshot alone counts.

use super::Txn;
use crate::counts::{count_keys, CountKey};
use crate::relation::RelKind;
use crate::txn::state::Undo;

impl Txn {
    /// The number of nodes carrying `label` (all nodes for `None`) this
    /// transaction sees: its snapshot plus its own writes. O(1) in the store
    /// size (O(own writes) on top).
    pub fn count_nodes(&self, label: Option<&str>) -> u64 {
        let key = match label {
            None => CountKey::Nodes,
            Some(name) => match self.store.literals.lookup(name.as_bytes()) {
                Some(gui) => CountKey::Label(gui),
                None => return 0,
            },
        };
        self.count(key)
    }

    /// The number of relationships of `rel_type` (all relationships for
    /// `None`) this transaction sees.
    pub fn count_rels(&self, rel_type: Option<&str>) -> u64 {
        let key = match rel_type {
            None => CountKey::Rels,
            Some(name) => match self.store.types.lookup(name) {
                Some(type_id) => CountKey::RelType(type_id),
                None => return 0,
            },
        };
        self.count(key)
    }

    fn count(&self, key: CountKey) -> u64 {
        let snapshot = self.store.counts.at(key, self.core.read_ts());
        let own = self.own_delta(key);
        (snapshot + own).max(0) as u64
    }

    /// What this transaction's own writes add to `key`.
    fn own_delta(&self, key: CountKey) -> i64 {
        let kind = match key {
            CountKey::Nodes | CountKey::Label(_) => RelKind::Vp,
            CountKey::Rels | CountKey::RelType(_) => RelKind::E,
        };
        let state = self.core.state.lock();
        state
            .undo
            .iter()
            .map(|undo| {
                let (at, delta) = match *undo {
                    Undo::Inserted(at) => (at, 1),
                    Undo::Deleted(at) => (at, -1),
                };
                if at.kind != kind {
                    return 0;
                }
                let feeds = self.store.with_tuple(at, |t| {
                    count_keys(at.kind, t.p, t.o.payload).any(|k| k == key)
                });
                if feeds == Some(true) {
                    delta
                } else {
                    0
                }
            })
            .sum()
    }
}
