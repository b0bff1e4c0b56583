//! [`ObjectStore`] over a local directory: keys are paths under the root.

use super::ObjectStore;
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
}

impl ObjectStore for LocalDir {
    fn put(&self, key: &str, bytes: &[u8]) -> Result<(), WalError> {
        let path = self.path(key);
        let parent = path.parent().unwrap_or(&self.root).to_path_buf();
        let created = !parent.exists();
        std::fs::create_dir_all(&parent)?;
        let mut tmp_name = path.clone().into_os_string();
        tmp_name.push(TMP_SUFFIX);
        let tmp = PathBuf::from(tmp_name);
        let mut file = File::create(&tmp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        std::fs::rename(&tmp, &path)?;
        sync_dir(&parent)?;
        if created {
            if let Some(grandparent) = parent.parent() {
                sync_dir(grandparent)?;
            }
        }
        Ok(())
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
}
