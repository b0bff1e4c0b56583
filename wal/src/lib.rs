//! The durable logical log of nereid, and its checkpoints (Poseidon paper,
//! section 4: the engine is decoupled from its durable representation by a
//! logical log; restore is the newest checkpoint followed by log replay).
//!
//! The log stores, per committed transaction, the storage crate's
//! [`Change`](nereid_storage::Change) list in a compact binary form (module
//! `codec`), framed in checksummed, versioned records (module `format`) in
//! log partitions, each a sequence of segment files. Commits are appended
//! while the store's commit lock is held (cheap: a memcpy into a queue) and
//! made durable by their partition's writer thread with group commit, which
//! also rotates segments (module `writer`); a commit is released only when
//! every smaller timestamp is durable too (module `order`). Recovery reads
//! the partitions in parallel (module `scan`), replays intact records after
//! the checkpoint timestamp in timestamp order up to the first gap, and
//! truncates torn tails, refusing to skip damage anywhere else (module
//! `recovery`). Checkpoints (module `checkpoint`) hold the
//! store's state at a commit timestamp, so the segments before it can be
//! deleted. They are kept in an [`ObjectStore`] (module `object_store`: a
//! local directory or an S3-compatible bucket); with a bucket, sealed
//! segments are shipped there too (module `shipping`), so that an empty
//! data directory can be restored from the bucket alone.
//!
//! Usage with the store:
//! ```text
//! let after = load_newest_checkpoint(&store, &ckpt_dir)?.map_or(0, |c| c.commit_ts);
//! let (wal, _) = Wal::open_after(&wal_dir, &options, after, |ts, ch| store.replay(ts, ch))?;
//! let ticket = txn.commit(|ts, changes| wal.append(handle, ts, changes))?;
//! if let Some(ticket) = ticket { wal.wait_durable(lsn)?; ticket.publish(); }
//! // later, concurrently with commits:
//! let info = take_checkpoint(&store, &ckpt_dir)?; wal.discard_through(info.commit_ts)?;
//! ```
//!
//! # What happens to damaged files (documented outcomes, tested in
//! `wal/tests/` and `tests/e2e/test_corruption.py`)
//!
//! | damage | outcome |
//! |---|---|
//! | last record of the last segment incomplete (a write torn by a crash) | truncated at start; `WARN truncating an incomplete record at the end of the log` with path, offset and bytes; `RecoveryReport::truncated_bytes` |
//! | a flipped byte in the last record of the last segment | the same (indistinguishable from a torn write): that one commit is dropped |
//! | the last segment truncated inside a record | the same: the records before the cut are kept |
//! | a damaged record followed by an intact one (damage *before* the tail) | refuses to open: `log file <path> is corrupt at byte <offset>: ...`; the server exits non-zero; the file is left untouched |
//! | any damage or truncation in a sealed (not last) segment | refuses to open, naming file and offset |
//! | a missing segment, or records missing before the first one | refuses to open (`segment N is missing` / `log records are missing`) |
//! | a commit timestamp missing while some partition ends before it (its torn or unsynced tail) | replay stops there; later records of every partition are truncated away (`WARN truncating the log partition after the last replayed commit`); `RecoveryReport::dropped_records` |
//! | a commit timestamp missing while every partition continues past it | refuses to open (`log records are missing`) |
//! | a segment whose header names another partition | refuses to open, naming the file |
//! | bad magic, unknown format version, bad header checksum | refuses to open, naming the file |
//! | a checkpoint directory without `MANIFEST` (interrupted) | ignored, deleted by the next checkpoint |
//! | a damaged manifest or partition file of the newest complete checkpoint | refuses to open: `checkpoint file <path> is corrupt: ...` (the log before it may be gone, so no fallback) |
//! | the same in an `s3://` checkpoint | the same, naming `s3://bucket/prefix/ckpt-.../file` |
//! | a damaged record or header in a shipped segment (restore onto an empty log directory) | refuses to open: `log file s3://.../wal/wal-N.log is corrupt at byte <offset>` |
//! | a shipped segment missing between needed ones | refuses to open: `shipped log segment N is missing` |
//! | a write or fsync failing while running (a full disk) | the failed group write is cut off its file; every commit in flight is refused; `Wal::resume` (once the disk takes bytes) cuts every partition after the last acknowledged commit, rewinds the store's clock through its callback and accepts commits again; damage found by that re-read is an error, and the log stays failed (docs/adr/0083-resuming-after-a-log-failure.md) |
//! | a `disk-probe.tmp` left by a resume that was interrupted | deleted at open |

mod checkpoint;
mod codec;
mod error;
mod faults;
mod format;
mod metrics;
pub mod object_store;
mod order;
mod recovery;
mod scan;
mod shipping;
mod wal;
mod writer;

pub use checkpoint::{
    load_newest_checkpoint, load_newest_checkpoint_from, take_checkpoint, take_checkpoint_to,
    CheckpointInfo,
};
pub use error::WalError;
pub use faults::DiskFaults;
pub use metrics::LogMetrics;
pub use object_store::{LocalDir, ObjectStore, PendingPut, StreamedPut};
#[cfg(feature = "s3")]
pub use object_store::{S3Location, S3Reader, S3Store};
pub use shipping::{
    delete_shipped_before, restore_segments, ship_sealed_segments, shipped_segments,
    RestoredSegments, ShippedSegment,
};
pub use wal::{Durability, LogProgress, Lsn, RecoveryReport, SealedSegment, Wal, WalOptions};
