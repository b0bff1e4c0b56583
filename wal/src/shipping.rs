//! Log segments in an object store, so that a machine with an empty data
//! directory can restore from the object store alone: the newest checkpoint
//! plus the shipped segments after it.
//!
//! Keys are `wal/wal-NNNNNN.log`, the local file names. Only *sealed*
//! segments are shipped (complete, fsynced, never written again), so a
//! shipped object never changes; what was committed in the active segment
//! is not in the object store until that segment is sealed (rotation, by
//! size or by the server's ship interval).
//!
//! Segment numbers never repeat across restores: a restore into an empty
//! directory continues numbering after the highest shipped segment, so a
//! stale object from before a checkpoint can never be mistaken for a newer
//! segment.

use crate::error::WalError;
use crate::format::{
    check_header, parse_segment_file_name, read_record, segment_file_name, HEADER_LEN,
};
use crate::object_store::ObjectStore;
use crate::recovery::{list_segments, sync_dir};
use crate::wal::Wal;
use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;

const PREFIX: &str = "wal/";

fn key(number: u32) -> String {
    format!("{PREFIX}{}", segment_file_name(number))
}

/// Numbers of the segments in `target`, ascending.
pub fn shipped_segments(target: &dyn ObjectStore) -> Result<BTreeSet<u32>, WalError> {
    Ok(target
        .list(PREFIX)?
        .iter()
        .filter_map(|k| k.strip_prefix(PREFIX).and_then(parse_segment_file_name))
        .collect())
}

/// Uploads every sealed segment of `wal` not yet in `shipped` (which it
/// updates); returns how many it uploaded. The caller keeps this from
/// running concurrently with [`Wal::discard_through`].
pub fn ship_sealed_segments(
    wal: &Wal,
    target: &dyn ObjectStore,
    shipped: &mut BTreeSet<u32>,
) -> Result<usize, WalError> {
    let mut count = 0;
    for segment in wal.sealed_segments() {
        if shipped.contains(&segment.number) {
            continue;
        }
        let bytes = std::fs::read(&segment.path)?;
        target.put(&key(segment.number), &bytes)?;
        tracing::debug!(
            segment = segment.number,
            bytes = bytes.len(),
            last_commit_ts = segment.last_ts,
            location = %target.location(&key(segment.number)).display(),
            "shipped a sealed log segment"
        );
        shipped.insert(segment.number);
        count += 1;
    }
    Ok(count)
}

/// Deletes the shipped segments numbered below `oldest` (the oldest segment
/// the local log still has: everything before it is covered by a
/// checkpoint). Returns how many it deleted.
pub fn delete_shipped_before(
    target: &dyn ObjectStore,
    shipped: &mut BTreeSet<u32>,
    oldest: u32,
) -> Result<usize, WalError> {
    let doomed: Vec<u32> = shipped.range(..oldest).copied().collect();
    for number in &doomed {
        target.delete(&key(*number))?;
        shipped.remove(number);
    }
    Ok(doomed.len())
}

/// What [`restore_segments`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RestoredSegments {
    /// Segments downloaded (holding records after the checkpoint).
    pub segments: usize,
    pub bytes: u64,
    /// The number the local log continues with.
    pub next_segment: u32,
}

/// Fills the empty log directory `dir` from `source`: downloads the shipped
/// segments holding records after `after_ts` (the loaded checkpoint's
/// timestamp) and starts the next segment after the highest shipped one.
/// A shipped segment that fails its header or holds a damaged record is a
/// [`WalError::Corrupt`] naming its `s3://` location; a gap in the numbers
/// of the needed segments is one too (recovery's timestamp check catches
/// records missing anywhere else).
pub fn restore_segments(
    source: &dyn ObjectStore,
    dir: &Path,
    after_ts: u64,
) -> Result<RestoredSegments, WalError> {
    std::fs::create_dir_all(dir)?;
    if !list_segments(dir)?.is_empty() {
        return Err(WalError::Io(std::io::Error::other(format!(
            "restoring log segments into {}, which already has some",
            dir.display()
        ))));
    }
    let shipped = shipped_segments(source)?;
    let mut restored = RestoredSegments {
        next_segment: shipped.last().map_or(1, |n| n + 1),
        ..RestoredSegments::default()
    };
    let mut previous: Option<u32> = None;
    for number in shipped {
        let location = source.location(&key(number));
        let corrupt = |offset: usize, reason: String| WalError::Corrupt {
            file: location.clone(),
            offset: offset as u64,
            reason,
        };
        let Some(bytes) = source.get(&key(number))? else {
            return Err(corrupt(0, "disappeared while restoring".into()));
        };
        let (header_segment, _) = check_header(&bytes, &location)?;
        if header_segment != number {
            return Err(corrupt(
                0,
                format!("the header says segment {header_segment}"),
            ));
        }
        let last_ts = last_commit_ts(&bytes)
            .map_err(|at| corrupt(at, "damaged record in a shipped (sealed) segment".into()))?;
        if last_ts <= after_ts {
            continue;
        }
        if let Some(prev) = previous.filter(|p| *p + 1 != number) {
            return Err(corrupt(
                0,
                format!(
                    "shipped log segment {} is missing (found {prev} then {number})",
                    prev + 1
                ),
            ));
        }
        previous = Some(number);
        let mut file = std::fs::File::create(dir.join(segment_file_name(number)))?;
        file.write_all(&bytes)?;
        file.sync_all()?;
        restored.segments += 1;
        restored.bytes += bytes.len() as u64;
    }
    // An empty file: recovery writes its header and appends there.
    std::fs::File::create(dir.join(segment_file_name(restored.next_segment)))?.sync_all()?;
    sync_dir(dir)?;
    Ok(restored)
}

/// The commit timestamp of the last record of a complete segment (0 when it
/// has none), or the offset of a damaged record.
fn last_commit_ts(bytes: &[u8]) -> Result<u64, usize> {
    let mut at = HEADER_LEN;
    let mut last = 0;
    while at < bytes.len() {
        let record = read_record(bytes, at).ok_or(at)?;
        last = record.commit_ts;
        at = record.end;
    }
    Ok(last)
}
