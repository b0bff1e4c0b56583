//! Reading one log partition at open (one thread per partition): header
//! checks, record checks, decoding of the records to replay. Nothing is
//! applied or changed on disk here; `recovery` merges the partitions and
//! decides where each one ends.
//!
//! The damage rule, per segment: scanning stops at the first offset where no
//! complete, intact record can be read (frame shorter than 8 bytes,
//! implausible length, length running past the end of the file, CRC
//! mismatch). Then:
//! - in the last segment of the partition, if no intact record starts at
//!   any later byte offset, the bytes are a torn tail (a write that never
//!   completed, so no commit in it was acknowledged in `fsync` mode): they
//!   are reported as `intact_end < len`, for `recovery` to truncate;
//! - otherwise (an intact record follows, or the segment is sealed) the
//!   damage is *before* the tail: `WalError::Corrupt` naming the file and
//!   offset. Nothing is ever skipped silently: acknowledged commits may
//!   follow the damage. (A crash can in principle persist the pages of one
//!   unsynced write out of order and land here too; refusing to open is the
//!   safe answer, and an operator can truncate the file at the reported
//!   offset.)
//!
//! Within a partition commit timestamps strictly increase (appends happen
//! in timestamp order); an intact record of an unknown type, or whose
//! payload does not decode, is `Corrupt` too: its CRC proves it was written
//! like that. Each segment is read into memory whole; segments are bounded
//! by the rotation size.

use crate::codec::decode_changes;
use crate::error::WalError;
use crate::format::{
    check_header, encode_header, find_intact_record_after, read_record, HEADER_LEN, RECORD_COMMIT,
};
use crate::recovery::list_segments;
use nereid_storage::Change;
use std::path::{Path, PathBuf};

/// One segment file as found.
pub(crate) struct ScannedSegment {
    pub(crate) number: u32,
    pub(crate) path: PathBuf,
    /// File length in bytes.
    pub(crate) len: u64,
    /// Offset past the last intact record (`< len`: a torn tail).
    pub(crate) intact_end: u64,
    /// The file is shorter than a header (a crash while creating it): it is
    /// rewritten with a fresh header.
    pub(crate) needs_header: bool,
}

/// A record to replay (commit timestamp above the checkpoint's).
pub(crate) struct ScannedRecord {
    pub(crate) ts: u64,
    pub(crate) changes: Vec<Change>,
    /// Index into [`PartitionScan::segments`].
    pub(crate) segment: usize,
    pub(crate) offset: u64,
}

/// What one partition holds.
pub(crate) struct PartitionScan {
    pub(crate) partition: u32,
    pub(crate) dir: PathBuf,
    pub(crate) segments: Vec<ScannedSegment>,
    /// Records after the checkpoint timestamp, ascending.
    pub(crate) records: Vec<ScannedRecord>,
    /// Intact records at or below the checkpoint timestamp.
    pub(crate) skipped: u64,
    /// Highest commit timestamp per segment (0 when it has none), replayed
    /// or skipped; parallel to `segments`.
    pub(crate) segment_last_ts: Vec<u64>,
    /// The partition's directory existed before this open. A partition
    /// created now never held a commit, so it cannot explain a gap.
    pub(crate) existed: bool,
}

impl PartitionScan {
    /// The highest intact commit timestamp in the partition (0: none).
    pub(crate) fn highest_ts(&self) -> u64 {
        self.segment_last_ts.iter().copied().max().unwrap_or(0)
    }
}

/// Reads every segment of partition `partition` in `dir`.
pub(crate) fn scan_partition(
    dir: &Path,
    partition: u32,
    after_ts: u64,
) -> Result<PartitionScan, WalError> {
    let existed = dir.is_dir();
    let files = if existed {
        list_segments(dir)?
    } else {
        Vec::new()
    };
    let mut scan = PartitionScan {
        existed,
        partition,
        dir: dir.to_path_buf(),
        segments: Vec::new(),
        records: Vec::new(),
        skipped: 0,
        segment_last_ts: Vec::new(),
    };
    let last_index = files.len().saturating_sub(1);
    let mut seen_ts = 0u64;
    for (index, (number, path)) in files.into_iter().enumerate() {
        let is_last = index == last_index;
        let bytes = std::fs::read(&path)?;
        let corrupt = |offset: usize, reason: String| WalError::Corrupt {
            file: path.clone(),
            offset: offset as u64,
            reason,
        };
        if bytes.len() < HEADER_LEN && is_last {
            // Empty, or a header torn while the segment was being created.
            if !encode_header(number, partition).starts_with(&bytes) {
                return Err(corrupt(
                    0,
                    format!("{}-byte file with a damaged header", bytes.len()),
                ));
            }
            scan.segments.push(ScannedSegment {
                number,
                path,
                len: bytes.len() as u64,
                intact_end: 0,
                needs_header: true,
            });
            scan.segment_last_ts.push(seen_ts);
            break;
        }
        let (header_segment, stream) = check_header(&bytes, &path)?;
        if header_segment != number {
            return Err(corrupt(
                0,
                format!("the header says segment {header_segment}"),
            ));
        }
        if stream != partition {
            return Err(corrupt(
                0,
                format!("the header says log partition {stream}, the directory {partition}"),
            ));
        }
        let mut at = HEADER_LEN;
        while at < bytes.len() {
            let Some(record) = read_record(&bytes, at) else {
                if !is_last {
                    return Err(corrupt(
                        at,
                        "damaged record in a sealed (completely written) segment".into(),
                    ));
                }
                if let Some(next) = find_intact_record_after(&bytes, at) {
                    return Err(corrupt(
                        at,
                        format!("damaged record followed by an intact record at byte {next}"),
                    ));
                }
                break;
            };
            if record.record_type != RECORD_COMMIT {
                return Err(corrupt(
                    at,
                    format!("unsupported record type {}", record.record_type),
                ));
            }
            let ts = record.commit_ts;
            if ts <= seen_ts {
                return Err(corrupt(
                    at,
                    format!("commit timestamp {ts} does not follow {seen_ts}"),
                ));
            }
            if ts > after_ts {
                tracing::trace!(
                    partition,
                    txn = record.txn_handle,
                    commit_ts = ts,
                    "reading log record"
                );
                let changes =
                    decode_changes(record.payload).map_err(|reason| corrupt(at, reason))?;
                scan.records.push(ScannedRecord {
                    ts,
                    changes,
                    segment: index,
                    offset: at as u64,
                });
            } else {
                scan.skipped += 1;
            }
            seen_ts = ts;
            at = record.end;
        }
        scan.segments.push(ScannedSegment {
            number,
            path,
            len: bytes.len() as u64,
            intact_end: at.min(bytes.len()) as u64,
            needs_header: false,
        });
        scan.segment_last_ts.push(seen_ts);
    }
    Ok(scan)
}
