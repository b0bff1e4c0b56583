//! Removing index entries no snapshot can need any more.
//!
//! Entries are added by writers and never removed when a value changes,
//! because older snapshots may still read the old value (module `index`).
//! Each write that moves an entity off a key queues that entry with the
//! commit timestamp of the move (a rolled-back transaction queues what it
//! added, stamped with the last commit). A garbage collection takes the
//! queued entries whose timestamp is at or below its watermark: no live
//! snapshot reads below the watermark, so an entity whose tuples have not
//! changed since then (nothing committed above it, nothing in flight) and
//! whose key at the watermark is another one may lose the entry. An
//! entity that changed since goes back on the queue. The question is asked
//! under the index's write lock, and writers add entries after their
//! tuples, so a writer that gives the entity the key again either shows
//! in the tuples looked at or adds the entry back after the removal.

use super::image::entity_key;
use super::index::PropertyIndex;
use super::EntityKind;
use crate::ids::vertex_partition;
use crate::mvcc::{is_commit_ts, View, FREED, KILLED, NONE};
use crate::relation::Tuple;
use crate::store::Store;
use crate::txn::Reader;
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// An entry that may have become stale at commit timestamp `after`.
pub(crate) struct StaleEntry {
    pub(crate) index: Arc<PropertyIndex>,
    pub(crate) key: Vec<u8>,
    pub(crate) entity: u64,
    pub(crate) after: u64,
}

impl Store {
    /// Queues entries; they count as garbage towards the next collection.
    pub(crate) fn queue_stale(&self, entries: Vec<StaleEntry>) {
        if entries.is_empty() {
            return;
        }
        self.snapshots
            .garbage
            .fetch_add(entries.len() as u64, Ordering::Relaxed);
        self.schema.stale.lock().extend(entries);
    }

    /// Removes the queued entries nothing can need at `watermark`; returns
    /// how many were removed.
    pub(crate) fn collect_stale_entries(&self, watermark: u64) -> u64 {
        let due: Vec<StaleEntry> = {
            let mut queue = self.schema.stale.lock();
            let (due, later) = std::mem::take(&mut *queue)
                .into_iter()
                .partition(|e| e.after <= watermark);
            *queue = later;
            due
        };
        let mut removed = 0;
        let mut again = Vec::new();
        for entry in due {
            let mut verdict = Verdict::Keep;
            entry.index.remove_unless(&entry.key, entry.entity, || {
                verdict = self.stale_verdict(&entry, watermark);
                verdict != Verdict::Remove
            });
            match verdict {
                Verdict::Remove => removed += 1,
                // Due again at the next collection: the change that
                // deferred it may be uncommitted and never commit, so
                // waiting for a later timestamp could keep it forever.
                Verdict::Later => again.push(StaleEntry {
                    after: self.visible_ts(),
                    ..entry
                }),
                Verdict::Keep => {}
            }
        }
        self.schema.stale.lock().extend(again);
        removed
    }

    fn stale_verdict(&self, entry: &StaleEntry, watermark: u64) -> Verdict {
        let moved = |t: &Tuple<'_>| {
            let (begin, end) = (t.begin(), t.end());
            let begin_late =
                begin != KILLED && begin != FREED && (!is_commit_ts(begin) || begin > watermark);
            let end_late = end != NONE && (!is_commit_ts(end) || end > watermark);
            begin_late || end_late
        };
        let changed = match entry.index.def.entity {
            EntityKind::Node => {
                let part = vertex_partition(entry.entity, self.partitions);
                self.vp
                    .read(part)
                    .is_some_and(|p| p.by_subject(entry.entity).any(|(_, t)| moved(&t)))
            }
            EntityKind::Relationship => {
                let Some(cell) = self.e.partition_of_sid(entry.entity) else {
                    return Verdict::Remove;
                };
                let edge = self
                    .e
                    .read(cell)
                    .is_some_and(|p| p.by_statement(entry.entity).is_some_and(|(_, t)| moved(&t)));
                edge || self
                    .ep
                    .read(cell)
                    .is_some_and(|p| p.by_subject(entry.entity).any(|(_, t)| moved(&t)))
            }
        };
        if changed {
            return Verdict::Later;
        }
        let reader = Reader {
            store: self,
            view: View::committed(watermark),
        };
        match entity_key(&reader, &entry.index, entry.entity) {
            Some(key) if key.bytes == entry.key => Verdict::Keep,
            _ => Verdict::Remove,
        }
    }
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Verdict {
    /// The entity holds the key: the entry stays, off the queue.
    Keep,
    /// Nothing can read the key for the entity any more.
    Remove,
    /// The entity changed after the watermark: ask again later.
    Later,
}
