//! Adding a key this transaction's snapshot lacks (a new property or
//! label) while another transaction adds the same key: wait for it, as a
//! replacement waits for the tuple it deletes (module `write`), instead of
//! both adding it and one failing only at commit
//! (docs/adr/0126-waiting-for-uncommitted-writes.md).

use super::state::FreshKey;
use super::write::Writer;
use crate::error::{Result, StorageError};
use crate::mvcc::{is_commit_ts, FREED, KILLED, NONE};
use crate::relation::RelKind;
use std::collections::HashSet;

impl Writer<'_> {
    /// The begin stamp of a tuple of `key` this transaction neither sees
    /// nor wrote: another's insert, open or committed after the snapshot
    /// (`NONE`: there is none).
    fn foreign_insert(&self, key: &FreshKey) -> u64 {
        let Some(part) = self.store.relation(key.kind).read(key.part) else {
            return NONE;
        };
        let found = part
            .by_subject(key.s)
            .filter(|(_, t)| t.p == key.p && key.o.is_none_or(|o| o == t.o))
            .map(|(_, t)| t.begin())
            .find(|&begin| self.foreign(begin));
        found.unwrap_or(NONE)
    }

    /// Whether a tuple inserted with `begin` is someone else's and unseen.
    fn foreign(&self, begin: u64) -> bool {
        if begin == self.core.marker || begin == KILLED || begin == FREED {
            return false;
        }
        !is_commit_ts(begin) || begin > self.core.read_ts()
    }

    /// Before adding `key`: waits while another open transaction adds it,
    /// and fails with a write conflict when one committed it after this
    /// snapshot.
    pub(super) fn await_fresh_key(&self, key: &FreshKey) -> Result<()> {
        let stamp = self.wait_out(|| self.foreign_insert(key))?;
        if stamp == NONE {
            return Ok(());
        }
        Err(StorageError::WriteConflict(format!(
            "a property or label concurrently set on {:#x}",
            key.s
        )))
    }

    /// The property keys of `s` that some other transaction inserted and
    /// this one does not see, in one walk: the keys a many-keys write must
    /// wait for (labels are not properties and never listed).
    pub(super) fn foreign_keys(&self, kind: RelKind, part: usize, s: u64) -> HashSet<u32> {
        let Some(part) = self.store.relation(kind).read(part) else {
            return HashSet::new();
        };
        let keys = part
            .by_subject(s)
            .filter(|(_, t)| self.foreign(t.begin()))
            .map(|(_, t)| t.p);
        keys.collect()
    }
}
