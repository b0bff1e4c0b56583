//! Log segments in an object store, so that a machine with an empty data
//! directory can restore from the object store alone: the newest checkpoint
//! plus the shipped segments after it.
//!
//! Keys are the local paths under the log directory: `wal/wal-NNNNNN.log`
//! for partition 0 (also what a log written before partitioning shipped)
//! and `wal/p<k>/wal-NNNNNN.log` for partition `k`. Only *sealed*
//! segments are shipped (complete, fsynced, never written again), so a
//! shipped object never changes; what was committed in the active segment
//! is not in the object store until that segment is sealed (rotation, by
//! size or by the server's ship interval).
//!
//! Segment numbers never repeat across restores: a restore into an empty
//! directory continues each partition's numbering after its highest
//! shipped segment, so a stale object from before a checkpoint can never be
//! mistaken for a newer segment. Partitions are restored independently;
//! recovery's merge rule then stops at the first commit missing from the
//! bucket (a partition's active segment is not shipped before it is
//! sealed), so a restore never shows a commit without every earlier one.
//!
//! Known limit: recovery may cut a partition inside a segment that was
//! already shipped (records after a timestamp gap, never acknowledged);
//! the bucket keeps the longer copy until that segment is sealed and
//! shipped again. A restore from the bucket in that window replays up to
//! the same gap, unless the gap was filled locally and shipped meanwhile.

use crate::error::WalError;
use crate::format::{
    check_header, parse_partition_dir_name, parse_segment_file_name, partition_dir, read_record,
    segment_file_name, HEADER_LEN,
};
use crate::object_store::ObjectStore;
use crate::recovery::{list_segments, sync_dir};
use crate::wal::Wal;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::Path;

const PREFIX: &str = "wal/";

/// A shipped segment: `(partition, segment number)`.
pub type ShippedSegment = (u32, u32);

fn key((partition, number): ShippedSegment) -> String {
    if partition == 0 {
        format!("{PREFIX}{}", segment_file_name(number))
    } else {
        format!("{PREFIX}p{partition}/{}", segment_file_name(number))
    }
}

fn parse_key(key: &str) -> Option<ShippedSegment> {
    let rest = key.strip_prefix(PREFIX)?;
    match rest.split_once('/') {
        None => Some((0, parse_segment_file_name(rest)?)),
        Some((dir, file)) => Some((
            parse_partition_dir_name(dir)?,
            parse_segment_file_name(file)?,
        )),
    }
}

/// The segments in `target`, ascending by partition, then number.
pub fn shipped_segments(target: &dyn ObjectStore) -> Result<BTreeSet<ShippedSegment>, WalError> {
    Ok(target
        .list(PREFIX)?
        .iter()
        .filter_map(|k| parse_key(k))
        .collect())
}

/// Uploads every sealed segment of `wal` not yet in `shipped` (which it
/// updates); returns how many it uploaded. The caller keeps this from
/// running concurrently with [`Wal::discard_through`].
pub fn ship_sealed_segments(
    wal: &Wal,
    target: &dyn ObjectStore,
    shipped: &mut BTreeSet<ShippedSegment>,
) -> Result<usize, WalError> {
    let mut count = 0;
    for segment in wal.sealed_segments() {
        let id = (segment.partition, segment.number);
        if shipped.contains(&id) {
            continue;
        }
        let bytes = std::fs::read(&segment.path)?;
        target.put(&key(id), &bytes)?;
        tracing::debug!(
            partition = segment.partition,
            segment = segment.number,
            bytes = bytes.len(),
            last_commit_ts = segment.last_ts,
            location = %target.location(&key(id)).display(),
            "shipped a sealed log segment"
        );
        shipped.insert(id);
        count += 1;
    }
    Ok(count)
}

/// Deletes the shipped segments of partition `k` numbered below
/// `oldest[k]` (the oldest segment the local partition still has:
/// everything before it is covered by a checkpoint; see
/// [`Wal::oldest_segments`]). Partitions the local log does not have are
/// left alone. Returns how many it deleted.
pub fn delete_shipped_before(
    target: &dyn ObjectStore,
    shipped: &mut BTreeSet<ShippedSegment>,
    oldest: &[u32],
) -> Result<usize, WalError> {
    let doomed: Vec<ShippedSegment> = shipped
        .iter()
        .filter(|(p, n)| oldest.get(*p as usize).is_some_and(|o| n < o))
        .copied()
        .collect();
    for id in &doomed {
        target.delete(&key(*id))?;
        shipped.remove(id);
    }
    Ok(doomed.len())
}

/// What [`restore_segments`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RestoredSegments {
    /// Segments downloaded (holding records after the checkpoint).
    pub segments: usize,
    pub bytes: u64,
    /// Per partition found in the bucket, the number its local log
    /// continues with.
    pub next_segments: BTreeMap<u32, u32>,
}

/// Fills the empty log directory `dir` from `source`: for every partition
/// in the bucket, downloads the shipped segments holding records after
/// `after_ts` (the loaded checkpoint's timestamp) and starts the next
/// segment after its highest shipped one. A shipped segment that fails its
/// header or holds a damaged record is a [`WalError::Corrupt`] naming its
/// `s3://` location; a gap in the numbers of a partition's needed segments
/// is one too (recovery's merge rule catches records missing elsewhere).
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
    let mut by_partition: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    for (partition, number) in shipped_segments(source)? {
        by_partition.entry(partition).or_default().push(number);
    }
    let mut restored = RestoredSegments::default();
    for (partition, numbers) in by_partition {
        let local = partition_dir(dir, partition);
        std::fs::create_dir_all(&local)?;
        let next = numbers.last().map_or(1, |n| n + 1);
        restore_partition(source, &local, partition, &numbers, after_ts, &mut restored)?;
        // An empty file: recovery writes its header and appends there.
        std::fs::File::create(local.join(segment_file_name(next)))?.sync_all()?;
        sync_dir(&local)?;
        restored.next_segments.insert(partition, next);
    }
    sync_dir(dir)?;
    Ok(restored)
}

/// Downloads the needed segments (`numbers`, ascending) of one partition.
fn restore_partition(
    source: &dyn ObjectStore,
    local: &Path,
    partition: u32,
    numbers: &[u32],
    after_ts: u64,
    restored: &mut RestoredSegments,
) -> Result<(), WalError> {
    let mut previous: Option<u32> = None;
    for &number in numbers {
        let id = (partition, number);
        let location = source.location(&key(id));
        let corrupt = |offset: usize, reason: String| WalError::Corrupt {
            file: location.clone(),
            offset: offset as u64,
            reason,
        };
        let Some(bytes) = source.get(&key(id))? else {
            return Err(corrupt(0, "disappeared while restoring".into()));
        };
        let (header_segment, stream) = check_header(&bytes, &location)?;
        if header_segment != number || stream != partition {
            return Err(corrupt(
                0,
                format!("the header says segment {header_segment} of partition {stream}"),
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
        let mut file = std::fs::File::create(local.join(segment_file_name(number)))?;
        file.write_all(&bytes)?;
        file.sync_all()?;
        restored.segments += 1;
        restored.bytes += bytes.len() as u64;
    }
    Ok(())
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
