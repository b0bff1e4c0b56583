//! Where checkpoints (and shipped log segments) are kept: a small
//! key/value interface with two implementations, a local directory
//! ([`LocalDir`]) and an S3-compatible bucket ([`S3Store`]), so that the
//! checkpoint and restore logic is written once against [`ObjectStore`].
//!
//! Keys are relative, `/`-separated paths such as `ckpt-00000000000000001234/MANIFEST`
//! or `wal/wal-000003.log`.
//!
//! Contract every implementation keeps: when `put` returns, the object is
//! durable and complete, and a reader sees either the whole object or none
//! of it (a local file is written under a temporary name, fsynced, then
//! renamed; an S3 object becomes visible only when its PUT or its multipart
//! upload completes). The checkpoint's `MANIFEST` relies on this: it is put
//! last, so a checkpoint without a manifest never existed.

mod local;
#[cfg(feature = "s3")]
mod s3;
#[cfg(feature = "s3")]
mod s3_read;

pub use local::LocalDir;
#[cfg(feature = "s3")]
pub use s3::{S3Location, S3Store};
#[cfg(feature = "s3")]
pub use s3_read::S3Reader;

use crate::error::WalError;
use std::path::PathBuf;

/// A durable key/value store for checkpoint files and log segments.
pub trait ObjectStore: Send + Sync {
    /// Stores `bytes` under `key`, replacing any previous object, durably
    /// and atomically (see the module documentation).
    fn put(&self, key: &str, bytes: &[u8]) -> Result<(), WalError>;

    /// Starts a put: the bytes are handed over and, where the store can,
    /// their writing to the device begun; the object exists, durably and
    /// whole, once [`PendingPut::finish`] has returned, and not at all if
    /// the pending put is dropped unfinished. A writer of many objects (a
    /// checkpoint's partition files) starts each as it is encoded and
    /// finishes them all at the end, so the device writes one file while
    /// the next is encoded instead of each put waiting for its fsync. The
    /// default puts at once.
    fn put_started(&self, key: &str, bytes: &[u8]) -> Result<Box<dyn PendingPut>, WalError> {
        self.put(key, bytes)?;
        Ok(Box::new(AlreadyPut))
    }

    /// The object under `key`, or `None` when there is none.
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, WalError>;

    /// Every key starting with `prefix`, sorted.
    fn list(&self, prefix: &str) -> Result<Vec<String>, WalError>;

    /// Removes the object under `key` (no error when it is already gone).
    fn delete(&self, key: &str) -> Result<(), WalError>;

    /// How an operator finds `key` (a file path, or `s3://bucket/prefix/key`):
    /// used in log lines and in error messages naming damaged files.
    fn location(&self, key: &str) -> PathBuf;
}

/// A put started by [`ObjectStore::put_started`], not yet durable.
pub trait PendingPut: Send {
    /// Waits until the object is durable and makes it visible under its key.
    fn finish(self: Box<Self>) -> Result<(), WalError>;
}

/// The pending put of a store that put the object at once.
struct AlreadyPut;

impl PendingPut for AlreadyPut {
    fn finish(self: Box<Self>) -> Result<(), WalError> {
        Ok(())
    }
}
