//! Checkpoints: the committed state at a timestamp `T`, so that recovery
//! loads it and replays only the log after `T`, and the log segments before
//! it can be deleted (Poseidon paper, section 4: restore is "the most
//! recent set of checkpoints, followed by log replay").
//!
//! Layout, as keys of an [`ObjectStore`] (a local directory, default
//! `<data_dir>/checkpoints`, or an `s3://bucket/prefix`):
//! ```text
//! ckpt-00000000000000001234/      one directory per checkpoint, named by T
//!     nodes-00000.ckp ...         one file per REL_VP partition (module `part_file`)
//!     rels-00000.ckp ...          one file per REL_E grid cell
//!     MANIFEST                    written last (module `manifest`)
//! ```
//! Taking one: `T` is the store's visible (published, hence durable)
//! timestamp; partitions are exported through an MVCC view at `T` and
//! written in parallel while writers continue; every file's put is started
//! as it is encoded and all are finished (durable and atomic, see
//! [`ObjectStore::put_started`]) before the manifest is put.
//! Only then are older checkpoints
//! (and directories without a manifest: interrupted attempts) deleted, and
//! the caller may discard log segments up to `T`.
//!
//! Loading one: the newest directory *with* a manifest wins; directories
//! without one are ignored. A manifest or partition file that fails its
//! checksum, length or header check is a hard error
//! ([`WalError::CheckpointCorrupt`] naming the file): the log before it may
//! already be gone, so falling back could silently lose commits.

mod manifest;
mod part_file;

use crate::error::WalError;
use crate::object_store::{LocalDir, ObjectStore, PendingPut};
use manifest::{FileEntry, Manifest, MANIFEST};
use nereid_storage::Store;
use part_file::PartKind;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What a checkpoint write or load did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckpointInfo {
    /// The commit timestamp the checkpoint holds the state of.
    pub commit_ts: u64,
    /// Where the checkpoint is: its folder, or its `s3://` key prefix.
    pub dir: PathBuf,
    /// Bytes of partition files.
    pub bytes: u64,
    pub files: usize,
    pub nodes: u64,
    pub relationships: u64,
    pub elapsed: Duration,
    /// False when a checkpoint at the same timestamp already existed and
    /// nothing was written.
    pub written: bool,
}

impl CheckpointInfo {
    /// Bytes per second, for the log.
    pub fn rate(&self) -> u64 {
        let secs = self.elapsed.as_secs_f64();
        if secs > 0.0 {
            (self.bytes as f64 / secs) as u64
        } else {
            self.bytes
        }
    }
}

fn dir_name(commit_ts: u64) -> String {
    format!("ckpt-{commit_ts:020}")
}

fn parse_dir_name(name: &str) -> Option<u64> {
    name.strip_prefix("ckpt-")?.parse().ok()
}

fn key(commit_ts: u64, file: &str) -> String {
    format!("{}/{file}", dir_name(commit_ts))
}

fn corrupt(file: &Path, reason: impl Into<String>) -> WalError {
    WalError::CheckpointCorrupt {
        file: file.to_path_buf(),
        reason: reason.into(),
    }
}

/// Checkpoints in `target`, newest first: their timestamp, and whether
/// their manifest exists (a checkpoint without one is an interrupted
/// attempt and does not exist).
fn list(target: &dyn ObjectStore) -> Result<Vec<(u64, bool)>, WalError> {
    let mut found: Vec<(u64, bool)> = Vec::new();
    for key in target.list("ckpt-")? {
        let Some((folder, file)) = key.split_once('/') else {
            continue;
        };
        let Some(ts) = parse_dir_name(folder) else {
            continue;
        };
        let complete = file == MANIFEST;
        match found.iter_mut().find(|(t, _)| *t == ts) {
            Some(entry) => entry.1 |= complete,
            None => found.push((ts, complete)),
        }
    }
    found.sort_by_key(|(ts, _)| std::cmp::Reverse(*ts));
    Ok(found)
}

/// How many threads export or load partitions at once.
fn parallelism(jobs: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    cores.clamp(1, 8).min(jobs.max(1))
}

/// Runs `job(i)` for `i in 0..jobs` on a few threads; the first error wins.
fn run_parallel<T: Send>(
    jobs: usize,
    job: impl Fn(usize) -> Result<T, WalError> + Sync,
) -> Result<Vec<T>, WalError> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results = parking_lot::Mutex::new(Vec::with_capacity(jobs));
    let failed = parking_lot::Mutex::new(None);
    std::thread::scope(|s| {
        for _ in 0..parallelism(jobs) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= jobs || failed.lock().is_some() {
                    return;
                }
                match job(i) {
                    Ok(v) => results.lock().push((i, v)),
                    Err(e) => {
                        failed.lock().get_or_insert(e);
                        return;
                    }
                }
            });
        }
    });
    if let Some(e) = failed.into_inner() {
        return Err(e);
    }
    let mut results = results.into_inner();
    results.sort_by_key(|(i, _)| *i);
    Ok(results.into_iter().map(|(_, v)| v).collect())
}

/// Takes a checkpoint of `store` into the local directory `root`: see
/// [`take_checkpoint_to`].
pub fn take_checkpoint(store: &Store, root: &Path) -> Result<CheckpointInfo, WalError> {
    take_checkpoint_to(store, &LocalDir::new(root))
}

/// Takes a checkpoint of `store` at its visible timestamp into `target`.
/// Safe to run while transactions commit. Callers serialise checkpoints.
pub fn take_checkpoint_to(
    store: &Store,
    target: &dyn ObjectStore,
) -> Result<CheckpointInfo, WalError> {
    let started = Instant::now();
    // The pin keeps garbage collection off the versions the export reads.
    let pin = store.pin_snapshot();
    let commit_ts = pin.ts();
    let dir = target.location(&dir_name(commit_ts));
    if target.get(&key(commit_ts, MANIFEST))?.is_some() {
        // Nothing new to write; still clear interrupted attempts.
        remove_older(target, commit_ts)?;
        return Ok(CheckpointInfo {
            commit_ts,
            dir,
            bytes: 0,
            files: 0,
            nodes: 0,
            relationships: 0,
            elapsed: started.elapsed(),
            written: false,
        });
    }
    // Counters first: they only grow, and the load takes the maximum.
    let counters = store.id_counters();
    let node_parts = store.node_partitions();
    let rel_parts = store.rel_partitions();
    let write_part = |i: usize| -> Result<(FileEntry, u64, Box<dyn PendingPut>), WalError> {
        let (kind, part) = if i < node_parts {
            (PartKind::Nodes, i)
        } else {
            (PartKind::Rels, i - node_parts)
        };
        let name = kind.file_name(part);
        // Written as it is encoded, started, not finished: the device
        // writes this file while the next partitions are encoded; all are
        // finished below.
        let mut put = target.put_streamed(&key(commit_ts, &name))?;
        let write = |bytes: &[u8]| put.write(bytes);
        let written = match kind {
            PartKind::Nodes => part_file::encode_to(
                kind,
                part,
                commit_ts,
                store.export_node_records(commit_ts, part),
                write,
            ),
            PartKind::Rels => part_file::encode_to(
                kind,
                part,
                commit_ts,
                store.export_rel_records(commit_ts, part),
                write,
            ),
        }?;
        let pending = put.written()?;
        let entry = FileEntry {
            name,
            len: written.len,
            crc: written.crc,
        };
        Ok((entry, written.count, pending))
    };
    let written = run_parallel(node_parts + rel_parts, write_part)?;
    let nodes = written[..node_parts].iter().map(|(_, n, _)| n).sum();
    let relationships = written[node_parts..].iter().map(|(_, n, _)| n).sum();
    let mut files = Vec::with_capacity(written.len());
    let mut pending = Vec::with_capacity(written.len());
    for (entry, _, put) in written {
        files.push(entry);
        pending.push(put);
    }
    // Every partition file durable before the manifest names it.
    for put in pending {
        put.finish()?;
    }
    let manifest = Manifest {
        commit_ts,
        partitions: node_parts,
        counters,
        files,
    };
    // Last: the checkpoint exists from here on.
    target.put(&key(commit_ts, MANIFEST), manifest.encode().as_bytes())?;
    let info = CheckpointInfo {
        commit_ts,
        dir,
        bytes: manifest.files.iter().map(|f| f.len).sum(),
        files: manifest.files.len(),
        nodes,
        relationships,
        elapsed: started.elapsed(),
        written: true,
    };
    remove_older(target, commit_ts)?;
    Ok(info)
}

/// Deletes checkpoints other than the one at `keep` (older ones, and
/// interrupted attempts without a manifest). The manifest goes first, so a
/// deletion interrupted half-way leaves an interrupted attempt, never a
/// checkpoint with missing files.
fn remove_older(target: &dyn ObjectStore, keep: u64) -> Result<(), WalError> {
    for (ts, complete) in list(target)? {
        if ts != keep && (ts < keep || !complete) {
            let folder = format!("{}/", dir_name(ts));
            let mut keys = target.list(&folder)?;
            keys.sort_by_key(|k| !k.ends_with(MANIFEST));
            for k in keys {
                target.delete(&k)?;
            }
            tracing::debug!(location = %target.location(&folder).display(), "deleted an old checkpoint");
        }
    }
    Ok(())
}

/// Loads the newest complete checkpoint under the local directory `root`:
/// see [`load_newest_checkpoint_from`].
pub fn load_newest_checkpoint(
    store: &Store,
    root: &Path,
) -> Result<Option<CheckpointInfo>, WalError> {
    load_newest_checkpoint_from(store, &LocalDir::new(root))
}

/// Loads the newest complete checkpoint in `source` into `store` (which
/// must be empty), or returns `None` when there is none.
pub fn load_newest_checkpoint_from(
    store: &Store,
    source: &dyn ObjectStore,
) -> Result<Option<CheckpointInfo>, WalError> {
    let started = Instant::now();
    let Some((commit_ts, _)) = list(source)?.into_iter().find(|(_, complete)| *complete) else {
        return Ok(None);
    };
    let manifest_key = key(commit_ts, MANIFEST);
    let manifest_path = source.location(&manifest_key);
    let text = source
        .get(&manifest_key)
        .map_err(|e| corrupt(&manifest_path, e.to_string()))?
        .ok_or_else(|| corrupt(&manifest_path, "disappeared while loading"))?;
    let text = String::from_utf8(text).map_err(|_| corrupt(&manifest_path, "not UTF-8 text"))?;
    let manifest = Manifest::decode(&text).map_err(|e| corrupt(&manifest_path, e))?;
    if manifest.commit_ts != commit_ts {
        return Err(corrupt(
            &manifest_path,
            format!("holds commit_ts {}", manifest.commit_ts),
        ));
    }
    let node_parts = store.node_partitions();
    let rel_parts = store.rel_partitions();
    if manifest.partitions != node_parts || manifest.files.len() != node_parts + rel_parts {
        return Err(corrupt(
            &manifest_path,
            format!(
                "made with {} partitions ({} files); the store has {node_parts}",
                manifest.partitions,
                manifest.files.len()
            ),
        ));
    }
    let load_part = |i: usize| -> Result<u64, WalError> {
        let (kind, part) = if i < node_parts {
            (PartKind::Nodes, i)
        } else {
            (PartKind::Rels, i - node_parts)
        };
        let entry = &manifest.files[i];
        if entry.name != kind.file_name(part) {
            return Err(corrupt(
                &manifest_path,
                format!("unexpected file {}", entry.name),
            ));
        }
        let file_key = key(commit_ts, &entry.name);
        let path = source.location(&file_key);
        let bytes = source
            .get(&file_key)
            .map_err(|e| corrupt(&path, e.to_string()))?
            .ok_or_else(|| corrupt(&path, "missing"))?;
        if bytes.len() as u64 != entry.len {
            return Err(corrupt(
                &path,
                format!("{} bytes, the manifest says {}", bytes.len(), entry.len),
            ));
        }
        if crc32c::crc32c(&bytes) != entry.crc {
            return Err(corrupt(&path, "checksum mismatch"));
        }
        let mut count = 0u64;
        part_file::decode(&bytes, kind, part, manifest.commit_ts, |changes| {
            count += changes.len() as u64;
            store
                .load_snapshot(manifest.commit_ts, &changes)
                .map_err(|e| e.to_string())
        })
        .map_err(|e| corrupt(&path, e))?;
        Ok(count)
    };
    // Nodes before relationships: a relationship needs its endpoints.
    let nodes: u64 = run_parallel(node_parts, load_part)?.into_iter().sum();
    let relationships: u64 = run_parallel(rel_parts, |i| load_part(node_parts + i))?
        .into_iter()
        .sum();
    store
        .finish_snapshot_load(manifest.commit_ts, &manifest.counters)
        .map_err(|e| corrupt(&manifest_path, e.to_string()))?;
    Ok(Some(CheckpointInfo {
        commit_ts: manifest.commit_ts,
        dir: source.location(&dir_name(commit_ts)),
        bytes: manifest.files.iter().map(|f| f.len).sum(),
        files: manifest.files.len(),
        nodes,
        relationships,
        elapsed: started.elapsed(),
        written: false,
    }))
}
