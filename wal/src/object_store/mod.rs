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
