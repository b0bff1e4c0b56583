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

    /// Starts a put whose bytes are handed over piece by piece
    /// ([`StreamedPut::write`]) and then started as by
    /// [`ObjectStore::put_started`] ([`StreamedPut::written`]): a
    /// checkpoint writes each partition file a few chunks at a time from a
    /// reused buffer instead of building it whole in fresh memory first
    /// (the kernel zeroing and faulting in those pages was a part of a
    /// bulk load's checkpoint). The object does not exist before the
    /// pending put is finished, nor after a dropped one. The default
    /// gathers the pieces and puts them with [`ObjectStore::put_started`].
    fn put_streamed<'s>(&'s self, key: &str) -> Result<Box<dyn StreamedPut + 's>, WalError> {
        Ok(Box::new(Gathered {
            store: self,
            key: key.to_string(),
            bytes: Vec::new(),
        }))
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

/// A put started by [`ObjectStore::put_streamed`], its bytes still being
/// handed over.
pub trait StreamedPut {
    /// Appends `bytes` to the object.
    fn write(&mut self, bytes: &[u8]) -> Result<(), WalError>;

    /// Ends the object's bytes: the put, as [`ObjectStore::put_started`]
    /// answers it (durable once finished).
    fn written(self: Box<Self>) -> Result<Box<dyn PendingPut>, WalError>;
}

/// [`ObjectStore::put_streamed`]'s default: the pieces gathered in memory.
struct Gathered<'s, S: ?Sized> {
    store: &'s S,
    key: String,
    bytes: Vec<u8>,
}

impl<S: ObjectStore + ?Sized> StreamedPut for Gathered<'_, S> {
    fn write(&mut self, bytes: &[u8]) -> Result<(), WalError> {
        self.bytes.extend_from_slice(bytes);
        Ok(())
    }

    fn written(self: Box<Self>) -> Result<Box<dyn PendingPut>, WalError> {
        self.store.put_started(&self.key, &self.bytes)
    }
}

/// The pending put of a store that put the object at once.
struct AlreadyPut;

impl PendingPut for AlreadyPut {
    fn finish(self: Box<Self>) -> Result<(), WalError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::sync::Mutex;

    /// A store with only the required methods: the defaults under test.
    #[derive(Default)]
    struct Memory(Mutex<BTreeMap<String, Vec<u8>>>);

    impl ObjectStore for Memory {
        fn put(&self, key: &str, bytes: &[u8]) -> Result<(), WalError> {
            self.0.lock().unwrap().insert(key.into(), bytes.to_vec());
            Ok(())
        }
        fn get(&self, key: &str) -> Result<Option<Vec<u8>>, WalError> {
            Ok(self.0.lock().unwrap().get(key).cloned())
        }
        fn list(&self, prefix: &str) -> Result<Vec<String>, WalError> {
            let objects = self.0.lock().unwrap();
            Ok(objects
                .keys()
                .filter(|k| k.starts_with(prefix))
                .cloned()
                .collect())
        }
        fn delete(&self, key: &str) -> Result<(), WalError> {
            self.0.lock().unwrap().remove(key);
            Ok(())
        }
        fn location(&self, key: &str) -> PathBuf {
            PathBuf::from(key)
        }
    }

    #[test]
    fn a_default_streamed_put_gathers_its_pieces_and_puts_them_once_written() {
        let store = Memory::default();
        let mut put = store.put_streamed("k").unwrap();
        put.write(b"ab").unwrap();
        put.write(b"cd").unwrap();
        assert_eq!(store.get("k").unwrap(), None);
        put.written().unwrap().finish().unwrap();
        assert_eq!(store.get("k").unwrap().as_deref(), Some(&b"abcd"[..]));
        let mut dropped = store.put_streamed("gone").unwrap();
        dropped.write(b"x").unwrap();
        drop(dropped);
        assert_eq!(store.list("").unwrap(), vec!["k"]);
    }
}
