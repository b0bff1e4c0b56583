//! Garbage collection of dead tuple versions.
//!
//! A version is dead when no snapshot can ever read it again: its insert was
//! rolled back (`begin == KILLED`), or its deletion committed at or before
//! the *watermark*, the oldest read timestamp of a live transaction (the
//! published timestamp when none is live; later transactions read at or
//! above it). Collecting a partition (under its write lock) unlinks dead
//! tuples from the S, O and I indexes and puts their slots on the
//! partition's free list, where the next insert reuses them, so memory
//! stays flat under update churn.
//!
//! Invariants:
//! - a live snapshot never loses a version it can read: such a version's
//!   `end` is `NONE`, a marker, or a commit timestamp above the snapshot's
//!   read timestamp, hence above the watermark;
//! - a transaction registers its read timestamp under the same mutex the
//!   watermark is computed under, so a snapshot that begins during a
//!   collection reads at or above the watermark that collection uses;
//! - `TupleRef`s held by transactions point at versions they wrote (marker
//!   stamps) or could read: never dead, so never reused under them.
//!
//! Collection runs when enough garbage has accumulated since the last one
//! (at least [`MIN_GARBAGE`] dead versions, counted at commit and
//! rollback), on the thread that ended the transaction.

use crate::mvcc::{is_commit_ts, KILLED};
use crate::relation::Relation;
use crate::store::Store;
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// Dead versions that trigger a collection.
pub(crate) const MIN_GARBAGE: u64 = 4096;

/// Read timestamps of live transactions (timestamp -> count).
#[derive(Default)]
pub(crate) struct Snapshots {
    live: Mutex<BTreeMap<u64, usize>>,
    /// Versions made dead (deleted or killed) since the last collection.
    pub(crate) garbage: AtomicU64,
}

impl Snapshots {
    /// Registers a snapshot at the timestamp `read_ts()` returns, atomically
    /// with respect to [`Snapshots::watermark`].
    pub(crate) fn register(&self, read_ts: impl FnOnce() -> u64) -> u64 {
        let mut live = self.live.lock();
        let ts = read_ts();
        *live.entry(ts).or_insert(0) += 1;
        ts
    }

    pub(crate) fn unregister(&self, ts: u64) {
        let mut live = self.live.lock();
        if let Some(count) = live.get_mut(&ts) {
            *count -= 1;
            if *count == 0 {
                live.remove(&ts);
            }
        }
    }

    /// The oldest live read timestamp, or `visible` when none is live.
    pub(crate) fn watermark(&self, visible: impl FnOnce() -> u64) -> u64 {
        let live = self.live.lock();
        match live.keys().next() {
            Some(&oldest) => oldest,
            None => visible(),
        }
    }
}

/// True when no snapshot at or above `watermark` can read the version.
pub(crate) fn is_dead(begin: u64, end: u64, watermark: u64) -> bool {
    begin == KILLED || (is_commit_ts(end) && end <= watermark)
}

impl Store {
    /// Collects dead versions in every partition now; returns how many
    /// slots were freed.
    pub fn collect_garbage(&self) -> u64 {
        self.snapshots.garbage.store(0, Ordering::Relaxed);
        let watermark = self.snapshots.watermark(|| self.visible_ts());
        [&self.vp, &self.e, &self.ep]
            .into_iter()
            .map(|relation: &Relation| relation.collect(watermark))
            .sum()
    }

    /// Collects when enough garbage piled up since the last collection.
    /// Called when a transaction ends, outside every lock.
    pub(crate) fn maybe_collect_garbage(&self) {
        if self.snapshots.garbage.load(Ordering::Relaxed) >= MIN_GARBAGE {
            self.collect_garbage();
        }
    }

    /// Pins the snapshot at the visible timestamp: nothing it can read is
    /// collected while the pin lives (checkpoints export through one).
    pub fn pin_snapshot(&self) -> SnapshotPin<'_> {
        let ts = self.snapshots.register(|| self.visible_ts());
        SnapshotPin { store: self, ts }
    }

    /// Tuple slots in use (live and not yet collected versions) across all
    /// relations: what update churn must not grow.
    pub fn version_count(&self) -> u64 {
        [&self.vp, &self.e, &self.ep]
            .into_iter()
            .map(Relation::versions)
            .sum()
    }
}

/// A registered snapshot timestamp (see [`Store::pin_snapshot`]).
pub struct SnapshotPin<'s> {
    store: &'s Store,
    ts: u64,
}

impl SnapshotPin<'_> {
    /// The pinned timestamp (published, hence durable).
    pub fn ts(&self) -> u64 {
        self.ts
    }
}

impl Drop for SnapshotPin<'_> {
    fn drop(&mut self) {
        self.store.snapshots.unregister(self.ts);
    }
}
