//! [`ObjectStore`] over a local directory: keys are paths under the root.

use super::{ObjectStore, PendingPut, StreamedPut};
use crate::error::WalError;
use crate::recovery::sync_dir;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Suffix of a file being written; never listed, so an interrupted `put`
/// leaves nothing a reader could mistake for an object.
const TMP_SUFFIX: &str = ".tmp";

/// A directory holding objects as files (`ckpt-.../MANIFEST` is the file
/// `<root>/ckpt-.../MANIFEST`).
#[derive(Clone, Debug)]
pub struct LocalDir {
    root: PathBuf,
}

impl LocalDir {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        LocalDir { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    fn path(&self, key: &str) -> PathBuf {
        self.root.join(key)
    }

    /// Removes the files of interrupted writes under the root (a crash or a
    /// full disk during a `put`); returns how many. Run at start-up, before
    /// anything writes here: such a file is never read, and left alone it
    /// would hold its space for good.
    pub fn remove_interrupted_writes(&self) -> Result<usize, WalError> {
        let mut found = Vec::new();
        interrupted_writes(&self.root, &mut found)?;
        for path in &found {
            match std::fs::remove_file(path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(found.len())
    }
}

/// A [`LocalDir`] put whose file is written under its temporary name.
/// Dropped unfinished (or failing), it removes that file: a full disk
/// leaves a partial file, which must not hold space nor outlive the failure.
struct LocalPut {
    /// `None` once finished.
    file: Option<File>,
    tmp: PathBuf,
    path: PathBuf,
    parent: PathBuf,
    /// Whether the put created `parent` (then its parent is fsynced too).
    created: bool,
}

impl PendingPut for LocalPut {
    fn finish(mut self: Box<Self>) -> Result<(), WalError> {
        if let Some(file) = self.file.take() {
            if let Err(e) = file
                .sync_all()
                .and_then(|()| std::fs::rename(&self.tmp, &self.path))
            {
                let _ = std::fs::remove_file(&self.tmp);
                return Err(e.into());
            }
        }
        sync_dir(&self.parent)?;
        if self.created {
            if let Some(grandparent) = self.parent.parent() {
                sync_dir(grandparent)?;
            }
        }
        Ok(())
    }
}

impl Drop for LocalPut {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Asks the kernel to start writing `file`'s dirty pages to the device now
/// (without waiting), so a later fsync finds them written or under way.
#[cfg(target_os = "linux")]
fn start_writeback(file: &File) {
    use std::os::fd::AsRawFd;
    // SAFETY: a valid open descriptor; the call only starts writeback of
    // the whole file (offset 0, length 0 = to the end) and reads no memory.
    // A failure only means the fsync does all the waiting.
    unsafe {
        libc::sync_file_range(file.as_raw_fd(), 0, 0, libc::SYNC_FILE_RANGE_WRITE);
    }
}

#[cfg(not(target_os = "linux"))]
fn start_writeback(_file: &File) {}

/// The files under `dir` that interrupted writes left.
fn interrupted_writes(dir: &Path, found: &mut Vec<PathBuf>) -> Result<(), WalError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e.into()),
    };
    for entry in entries {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            interrupted_writes(&entry.path(), found)?;
        } else if entry.file_name().to_string_lossy().ends_with(TMP_SUFFIX) {
            found.push(entry.path());
        }
    }
    Ok(())
}

impl LocalDir {
    /// A put of `key` into its temporary file, nothing written yet.
    fn start_put(&self, key: &str) -> Result<LocalPut, WalError> {
        let path = self.path(key);
        let parent = path.parent().unwrap_or(&self.root).to_path_buf();
        let created = !parent.exists();
        std::fs::create_dir_all(&parent)?;
        let mut tmp_name = path.clone().into_os_string();
        tmp_name.push(TMP_SUFFIX);
        let tmp = PathBuf::from(tmp_name);
        Ok(LocalPut {
            file: Some(File::create(&tmp)?),
            tmp,
            path,
            parent,
            created,
        })
    }
}

impl StreamedPut for LocalPut {
    fn write(&mut self, bytes: &[u8]) -> Result<(), WalError> {
        if let Some(file) = self.file.as_mut() {
            file.write_all(bytes)?;
        }
        Ok(())
    }

    fn written(self: Box<Self>) -> Result<Box<dyn PendingPut>, WalError> {
        if let Some(file) = self.file.as_ref() {
            start_writeback(file);
        }
        Ok(self)
    }
}

impl ObjectStore for LocalDir {
    fn put(&self, key: &str, bytes: &[u8]) -> Result<(), WalError> {
        self.put_started(key, bytes)?.finish()
    }

    /// Writes the temporary file and asks the kernel to start writing it
    /// back; [`PendingPut::finish`] fsyncs it (by then mostly written),
    /// renames it into place and fsyncs the directory.
    fn put_started(&self, key: &str, bytes: &[u8]) -> Result<Box<dyn PendingPut>, WalError> {
        let mut pending = Box::new(self.start_put(key)?);
        // An error drops `pending`, which removes the partial file.
        pending.write(bytes)?;
        pending.written()
    }

    fn put_streamed<'s>(&'s self, key: &str) -> Result<Box<dyn StreamedPut + 's>, WalError> {
        Ok(Box::new(self.start_put(key)?))
    }

    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, WalError> {
        match std::fs::read(self.path(key)) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    fn list(&self, prefix: &str) -> Result<Vec<String>, WalError> {
        let mut keys = Vec::new();
        walk(&self.root, "", &mut keys)?;
        keys.retain(|k| k.starts_with(prefix));
        keys.sort();
        Ok(keys)
    }

    fn delete(&self, key: &str) -> Result<(), WalError> {
        let path = self.path(key);
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e.into()),
        }
        // A checkpoint directory goes away with its last file (and the
        // leftovers of interrupted writes in it).
        if let Some(parent) = path.parent().filter(|p| *p != self.root) {
            let mut left = Vec::new();
            walk(parent, "", &mut left)?;
            if left.is_empty() {
                std::fs::remove_dir_all(parent)?;
                sync_dir(parent.parent().unwrap_or(&self.root))?;
            } else {
                sync_dir(parent)?;
            }
        }
        Ok(())
    }

    fn location(&self, key: &str) -> PathBuf {
        self.path(key)
    }
}

/// Collects the keys of the files under `dir` (whose key prefix is
/// `prefix`), skipping files of interrupted writes.
fn walk(dir: &Path, prefix: &str, keys: &mut Vec<String>) -> Result<(), WalError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e.into()),
    };
    for entry in entries {
        let entry = entry?;
        let Some(name) = entry.file_name().to_str().map(str::to_string) else {
            continue;
        };
        let key = format!("{prefix}{name}");
        if entry.file_type()?.is_dir() {
            walk(&entry.path(), &format!("{key}/"), keys)?;
        } else if !name.ends_with(TMP_SUFFIX) {
            keys.push(key);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn objects_round_trip_list_by_prefix_and_delete_with_their_folder() {
        let dir = tempfile::tempdir().unwrap();
        let store = LocalDir::new(dir.path().join("root"));
        assert_eq!(store.get("a/x").unwrap(), None);
        store.put("a/x", b"one").unwrap();
        store.put("a/y", b"two").unwrap();
        store.put("b", b"three").unwrap();
        std::fs::write(dir.path().join("root/a/z.tmp"), b"partial").unwrap();
        assert_eq!(store.get("a/x").unwrap().as_deref(), Some(&b"one"[..]));
        assert_eq!(store.list("a/").unwrap(), vec!["a/x", "a/y"]);
        assert_eq!(store.list("").unwrap(), vec!["a/x", "a/y", "b"]);
        store.put("a/x", b"replaced").unwrap();
        assert_eq!(store.get("a/x").unwrap().as_deref(), Some(&b"replaced"[..]));
        store.delete("a/x").unwrap();
        store.delete("a/x").unwrap();
        assert_eq!(store.list("a/").unwrap(), vec!["a/y"]);
    }

    #[test]
    fn a_started_put_exists_only_once_finished_and_leaves_nothing_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let store = LocalDir::new(dir.path().join("root"));
        store.put("c/kept", b"old").unwrap();
        let first = store.put_started("c/new", b"one").unwrap();
        let second = store.put_started("c/kept", b"two").unwrap();
        let dropped = store.put_started("c/dropped", b"three").unwrap();
        // Started puts are not objects yet: the old value is still read.
        assert_eq!(store.list("c/").unwrap(), vec!["c/kept"]);
        assert_eq!(store.get("c/kept").unwrap().as_deref(), Some(&b"old"[..]));
        first.finish().unwrap();
        second.finish().unwrap();
        drop(dropped);
        assert_eq!(store.list("c/").unwrap(), vec!["c/kept", "c/new"]);
        assert_eq!(store.get("c/new").unwrap().as_deref(), Some(&b"one"[..]));
        assert_eq!(store.get("c/kept").unwrap().as_deref(), Some(&b"two"[..]));
        // The dropped put left no temporary file behind.
        assert_eq!(store.remove_interrupted_writes().unwrap(), 0);
    }

    #[test]
    fn a_streamed_put_is_its_pieces_once_finished_and_nothing_when_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let store = LocalDir::new(dir.path().join("root"));
        store.put("d/kept", b"old").unwrap();
        let mut kept = store.put_streamed("d/kept").unwrap();
        let mut dropped = store.put_streamed("d/dropped").unwrap();
        for piece in [&b"one "[..], b"", b"two"] {
            kept.write(piece).unwrap();
            dropped.write(piece).unwrap();
        }
        let kept = kept.written().unwrap();
        let dropped = dropped.written().unwrap();
        assert_eq!(store.get("d/kept").unwrap().as_deref(), Some(&b"old"[..]));
        kept.finish().unwrap();
        drop(dropped);
        assert_eq!(store.list("d/").unwrap(), vec!["d/kept"]);
        assert_eq!(
            store.get("d/kept").unwrap().as_deref(),
            Some(&b"one two"[..])
        );
        // Dropped while still being written: nothing left either.
        let mut unwritten = store.put_streamed("d/unwritten").unwrap();
        unwritten.write(b"half").unwrap();
        drop(unwritten);
        assert_eq!(store.remove_interrupted_writes().unwrap(), 0);
        assert_eq!(store.list("d/").unwrap(), vec!["d/kept"]);
    }

    #[test]
    fn interrupted_writes_are_removed_and_objects_kept() {
        let dir = tempfile::tempdir().unwrap();
        let store = LocalDir::new(dir.path().join("root"));
        store.put("ckpt-1/p0", b"whole").unwrap();
        std::fs::write(dir.path().join("root/ckpt-1/MANIFEST.tmp"), b"half").unwrap();
        std::fs::create_dir_all(dir.path().join("root/ckpt-2")).unwrap();
        std::fs::write(dir.path().join("root/ckpt-2/p0.tmp"), b"half").unwrap();
        assert_eq!(store.remove_interrupted_writes().unwrap(), 2);
        assert!(!dir.path().join("root/ckpt-1/MANIFEST.tmp").exists());
        assert!(!dir.path().join("root/ckpt-2/p0.tmp").exists());
        assert_eq!(
            store.get("ckpt-1/p0").unwrap().as_deref(),
            Some(&b"whole"[..])
        );
        // Nothing to do, and a root that does not exist yet, are fine.
        assert_eq!(store.remove_interrupted_writes().unwrap(), 0);
        let absent = LocalDir::new(dir.path().join("absent"));
        assert_eq!(absent.remove_interrupted_writes().unwrap(), 0);
    }

    #[test]
    fn a_failed_put_leaves_no_partial_file() {
        // /dev/full fails every write with ENOSPC; a put whose temporary
        // file cannot be created in place fails without leaving one: here,
        // the target is a directory the rename cannot replace.
        let dir = tempfile::tempdir().unwrap();
        let store = LocalDir::new(dir.path().join("root"));
        std::fs::create_dir_all(dir.path().join("root/ckpt-1/p0/inner")).unwrap();
        store.put("ckpt-1/p0", b"bytes").unwrap_err();
        assert!(!dir.path().join("root/ckpt-1/p0.tmp").exists());
    }
}
