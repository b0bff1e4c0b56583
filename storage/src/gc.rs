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
//! The same pass freezes zones (module `relation::zone`): a zone whose
//! remaining tuples all committed at or before the watermark, none deleted,
//! drops its version vector, so old data costs no stamp memory and scans of
//! it test no atomics.
//!
//! Collection runs when enough garbage has accumulated since the last one
//! (at least [`MIN_GARBAGE`] dead versions, counted at commit and
//! rollback) or enough tuples were inserted to be worth freezing
//! ([`MIN_FRESH`]), on the thread that ended the transaction; and after
//! every bulk load, snapshot load or replayed log.

use crate::mvcc::{is_commit_ts, KILLED};
use crate::relation::Relation;
use crate::store::Store;
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

/// Dead versions that trigger a collection.
pub(crate) const MIN_GARBAGE: u64 = 4096;
/// Stamped inserts that trigger a collection (to freeze their zones).
pub(crate) const MIN_FRESH: u64 = 65_536;

/// Read timestamps of live transactions (timestamp -> count).
#[derive(Default)]
pub(crate) struct Snapshots {
    live: Mutex<BTreeMap<u64, usize>>,
    /// Versions made dead (deleted or killed) since the last collection.
    pub(crate) garbage: AtomicU64,
    /// Tuples inserted (stamped committed) since the last collection.
    pub(crate) fresh: AtomicU64,
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
    /// Collects dead versions and freezes old zones in every partition now;
    /// returns how many slots were freed.
    pub fn collect_garbage(&self) -> u64 {
        self.snapshots.garbage.store(0, Ordering::Relaxed);
        self.snapshots.fresh.store(0, Ordering::Relaxed);
        let watermark = self.snapshots.watermark(|| self.visible_ts());
        let entries = self.collect_stale_entries(watermark);
        entries
            + [&self.vp, &self.e, &self.ep]
                .into_iter()
                .map(|relation: &Relation| relation.collect(watermark))
                .sum::<u64>()
    }

    /// Collects when enough garbage or fresh tuples piled up since the last
    /// collection. Called when a transaction ends, outside every lock.
    pub(crate) fn maybe_collect_garbage(&self) {
        if self.snapshots.garbage.load(Ordering::Relaxed) >= MIN_GARBAGE
            || self.snapshots.fresh.load(Ordering::Relaxed) >= MIN_FRESH
        {
            self.collect_garbage();
        }
    }

    /// Pins the snapshot at the visible timestamp: nothing it can read is
    /// collected while the pin lives (checkpoints export through one).
    pub fn pin_snapshot(&self) -> SnapshotPin<'_> {
        let ts = self.snapshots.register(|| self.visible_ts());
        SnapshotPin { store: self, ts }
    }

    /// Zones of all relations as `(frozen, versioned)`: how much of the
    /// store carries no version vector (see [`Store::collect_garbage`]).
    pub fn zone_states(&self) -> (usize, usize) {
        [&self.vp, &self.e, &self.ep]
            .into_iter()
            .map(Relation::zone_states)
            .fold((0, 0), |(f, v), (f2, v2)| (f + f2, v + v2))
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
