//! Opening a log: segment discovery, header checks, replay of every intact
//! record after the checkpoint timestamp, torn-tail truncation.
//!
//! The log is a sequence of segment files `wal-000001.log`, `wal-000002.log`,
//! ... with consecutive numbers (a checkpoint deletes a prefix of them). A
//! segment is *sealed* once the writer has fsynced it completely and
//! created the next one, so only the last segment can have a torn tail.
//!
//! The damage rule, per segment: scanning stops at the first offset where no
//! complete, intact record can be read (frame shorter than 8 bytes,
//! implausible length, length running past the end of the file, CRC
//! mismatch). Then:
//! - in the last segment, if no intact record starts at any later byte
//!   offset, the bytes are a torn tail (a write that never completed, so no
//!   commit in it was acknowledged in `fsync` mode). They are truncated away
//!   and reported with `tracing::warn!` and in
//!   `RecoveryReport::truncated_bytes`;
//! - otherwise (an intact record follows, or the segment is sealed) the
//!   damage is *before* the tail: `WalError::Corrupt` naming the file and
//!   offset. Nothing is ever skipped silently: acknowledged commits may
//!   follow the damage. (A crash can in principle persist the pages of one
//!   unsynced write out of order and land here too; refusing to open is the
//!   safe answer, and an operator can truncate the file at the reported
//!   offset.)
//!
//! Commit timestamps are consecutive in the log (the store assigns
//! `last + 1` under its commit lock and a failed append stops the log), so
//! recovery also checks that the first record after the checkpoint
//! timestamp `T` is `T + 1` and that every later one follows its
//! predecessor by one: a missing or deleted segment is an error, not a
//! silent gap. An intact record of an unknown type, or whose payload does
//! not decode, is `Corrupt` too: its CRC proves it was written like that.
//!
//! Each segment is read into memory whole; segments are bounded by the
//! rotation size.

use crate::codec::decode_changes;
use crate::error::WalError;
use crate::format::{
    check_header, encode_header, find_intact_record_after, parse_segment_file_name, read_record,
    segment_file_name, HEADER_LEN, RECORD_COMMIT,
};
use crate::RecoveryReport;
use nereid_storage::Change;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// A segment that is complete and fsynced; deletable once a checkpoint
/// covers `last_ts`.
#[derive(Clone, Debug)]
pub(crate) struct Sealed {
    pub(crate) number: u32,
    pub(crate) path: PathBuf,
    pub(crate) last_ts: u64,
}

/// The active segment, positioned for appending, and what recovery found.
pub(crate) struct Recovered {
    pub(crate) file: File,
    pub(crate) segment: u32,
    pub(crate) end: u64,
    /// Commit timestamp of the last record in the active segment (or of the
    /// segment before it when it holds none).
    pub(crate) active_last_ts: u64,
    pub(crate) sealed: Vec<Sealed>,
    pub(crate) report: RecoveryReport,
}

/// The segment files in `dir`, ordered by number, checked for gaps.
pub(crate) fn list_segments(dir: &Path) -> Result<Vec<(u32, PathBuf)>, WalError> {
    let mut segments = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if let Some(n) = entry.file_name().to_str().and_then(parse_segment_file_name) {
            segments.push((n, entry.path()));
        }
    }
    segments.sort();
    for pair in segments.windows(2) {
        if pair[1].0 != pair[0].0 + 1 {
            return Err(WalError::Corrupt {
                file: pair[1].1.clone(),
                offset: 0,
                reason: format!(
                    "log segment {} is missing (found {} then {})",
                    pair[0].0 + 1,
                    pair[0].0,
                    pair[1].0
                ),
            });
        }
    }
    Ok(segments)
}

/// Replays every segment in `dir` (creating segment 1 in an empty
/// directory), applying the records after `after_ts` in order.
pub(crate) fn recover(
    dir: &Path,
    after_ts: u64,
    mut apply: impl FnMut(u64, &[Change]) -> Result<(), String>,
) -> Result<Recovered, WalError> {
    let segments = list_segments(dir)?;
    let mut report = RecoveryReport {
        last_commit_ts: after_ts,
        ..RecoveryReport::default()
    };
    // The highest timestamp seen, replayed or skipped.
    let mut seen_ts = 0u64;
    let mut sealed = Vec::new();
    let Some(last_index) = segments.len().checked_sub(1) else {
        let (file, end) = create_segment(dir, 1)?;
        return Ok(Recovered {
            file,
            segment: 1,
            end,
            active_last_ts: after_ts,
            sealed,
            report,
        });
    };
    for (index, (number, path)) in segments.iter().enumerate() {
        let is_last = index == last_index;
        let mut file = OpenOptions::new().read(true).write(is_last).open(path)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        if bytes.len() < HEADER_LEN && is_last {
            // Empty, or a header torn while the segment was being created.
            if !encode_header(*number, 0).starts_with(&bytes) {
                return Err(WalError::Corrupt {
                    file: path.clone(),
                    offset: 0,
                    reason: format!("{}-byte file with a damaged header", bytes.len()),
                });
            }
            drop(file);
            let (file, end) = create_segment(dir, *number)?;
            return Ok(Recovered {
                file,
                segment: *number,
                end,
                active_last_ts: seen_ts.max(after_ts),
                sealed,
                report,
            });
        }
        let (header_segment, _stream) = check_header(&bytes, path)?;
        if header_segment != *number {
            return Err(WalError::Corrupt {
                file: path.clone(),
                offset: 0,
                reason: format!("the header says segment {header_segment}"),
            });
        }
        let end = replay_segment(
            path,
            &bytes,
            is_last,
            after_ts,
            &mut seen_ts,
            &mut report,
            &mut apply,
        )?;
        if !is_last {
            sealed.push(Sealed {
                number: *number,
                path: path.clone(),
                last_ts: seen_ts,
            });
            continue;
        }
        if end < bytes.len() {
            let dropped = (bytes.len() - end) as u64;
            tracing::warn!(
                path = %path.display(),
                offset = end,
                bytes = dropped,
                "truncating an incomplete record at the end of the log (a write torn by a crash)"
            );
            file.set_len(end as u64)?;
            file.sync_all()?;
            report.truncated_bytes = dropped;
        }
        file.seek(SeekFrom::Start(end as u64))?;
        return Ok(Recovered {
            file,
            segment: *number,
            end: end as u64,
            active_last_ts: seen_ts.max(after_ts),
            sealed,
            report,
        });
    }
    unreachable!("the loop returns at the last segment")
}

/// Replays one segment's records; returns the offset past the last intact
/// one (the caller truncates a torn tail there).
fn replay_segment(
    path: &Path,
    bytes: &[u8],
    is_last: bool,
    after_ts: u64,
    seen_ts: &mut u64,
    report: &mut RecoveryReport,
    apply: &mut impl FnMut(u64, &[Change]) -> Result<(), String>,
) -> Result<usize, WalError> {
    let corrupt = |offset: usize, reason: String| WalError::Corrupt {
        file: path.to_path_buf(),
        offset: offset as u64,
        reason,
    };
    let mut at = HEADER_LEN;
    while at < bytes.len() {
        let Some(record) = read_record(bytes, at) else {
            if !is_last {
                return Err(corrupt(
                    at,
                    "damaged record in a sealed (completely written) segment".into(),
                ));
            }
            if let Some(next) = find_intact_record_after(bytes, at) {
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
        if ts <= *seen_ts {
            return Err(corrupt(
                at,
                format!("commit timestamp {ts} does not follow {}", *seen_ts),
            ));
        }
        if ts > after_ts {
            let expected = report.last_commit_ts + 1;
            if ts != expected {
                return Err(corrupt(
                    at,
                    format!(
                        "commit timestamp {ts} where {expected} was expected: \
                         log records are missing (a deleted segment, or a checkpoint lost?)"
                    ),
                ));
            }
            tracing::trace!(
                offset = at,
                txn = record.txn_handle,
                commit_ts = ts,
                "replaying log record"
            );
            let changes = decode_changes(record.payload).map_err(|reason| corrupt(at, reason))?;
            apply(ts, &changes).map_err(|reason| WalError::Replay {
                file: path.to_path_buf(),
                offset: at as u64,
                reason,
            })?;
            report.records += 1;
            report.last_commit_ts = ts;
        } else {
            report.skipped_records += 1;
        }
        *seen_ts = ts;
        at = record.end;
    }
    Ok(at.min(bytes.len()))
}

/// Creates (or resets) segment `number` with a fresh header, durably.
pub(crate) fn create_segment(dir: &Path, number: u32) -> Result<(File, u64), WalError> {
    let path = dir.join(segment_file_name(number));
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&path)?;
    file.write_all(&encode_header(number, 0))?;
    file.sync_all()?;
    sync_dir(dir)?;
    Ok((file, HEADER_LEN as u64))
}

/// Makes directory entries (new or removed files) durable.
pub(crate) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}
