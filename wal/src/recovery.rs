//! Opening a log: partition discovery, parallel reading of the partitions
//! (module `scan`, one thread each), the merge by commit timestamp, replay
//! in timestamp order, and the cuts that make every partition end where
//! replay ended.
//!
//! Layout: partition 0 is the log directory itself, partition `k > 0` its
//! subdirectory `p<k>` (see `format`); each is a sequence of segment files
//! `wal-000001.log`, `wal-000002.log`, ... with consecutive numbers (a
//! checkpoint deletes a prefix of them). A segment is *sealed* once its
//! writer has fsynced it completely and created the next one, so only the
//! last segment of a partition can have a torn tail. Every partition found
//! on disk is read, whatever the configured count: a log written with
//! more (or fewer, or one unpartitioned) stream(s) recovers the same way.
//!
//! The merge rule. The store assigns commit timestamps `last + 1`, so the
//! records after the checkpoint timestamp `T` of all partitions together
//! must be `T + 1, T + 2, ...`. Replay applies them in that order and stops
//! at the first missing timestamp `g`:
//! - if some partition ends before `g` (its highest timestamp is below
//!   `g`), then `g` was in that partition's unsynced tail when the process
//!   died. No commit from `g` on was acknowledged (acknowledgement waits
//!   for the whole timestamp prefix, module `order`), so the records after
//!   `g` in the other partitions are dropped: each partition is truncated
//!   just before its first record above the last replayed timestamp (later
//!   segments of it are deleted), with a `WARN` saying how many records and
//!   bytes went;
//! - otherwise every partition continued past `g`, so `g` went missing from
//!   the middle of the log (a deleted segment, a lost checkpoint): a hard
//!   `WalError::Corrupt` naming the record after the gap.
//!
//! Two records with the same timestamp are `Corrupt` as well.

use crate::error::WalError;
use crate::format::{
    encode_header, parse_partition_dir_name, parse_segment_file_name, partition_dir,
    segment_file_name, HEADER_LEN,
};
use crate::scan::{scan_partition, PartitionScan};
use crate::RecoveryReport;
use nereid_storage::Change;
use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// A segment that is complete and fsynced; deletable once a checkpoint
/// covers `last_ts`.
#[derive(Clone, Debug)]
pub(crate) struct Sealed {
    pub(crate) number: u32,
    pub(crate) path: PathBuf,
    pub(crate) last_ts: u64,
}

/// One partition after recovery: its active segment, positioned for
/// appending, and its sealed segments.
pub(crate) struct RecoveredPartition {
    pub(crate) partition: u32,
    pub(crate) dir: PathBuf,
    pub(crate) file: File,
    pub(crate) segment: u32,
    pub(crate) end: u64,
    /// An upper bound of the commit timestamps kept in the partition (at
    /// least the checkpoint's).
    pub(crate) active_last_ts: u64,
    pub(crate) sealed: Vec<Sealed>,
}

/// What recovery found and left.
pub(crate) struct Recovered {
    /// Indexed by partition number.
    pub(crate) partitions: Vec<RecoveredPartition>,
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

/// The number of partitions of the log in `root`: at least `wanted`, and
/// every partition directory found. Missing directories are created only
/// once recovery succeeded (see [`PartitionScan::existed`]).
pub(crate) fn partition_count(root: &Path, wanted: u32) -> Result<u32, WalError> {
    let mut count = wanted.max(1);
    for entry in std::fs::read_dir(root)? {
        let entry = entry?;
        if !entry.file_type()?.is_dir() {
            continue;
        }
        if let Some(k) = entry
            .file_name()
            .to_str()
            .and_then(parse_partition_dir_name)
        {
            count = count.max(k + 1);
        }
    }
    Ok(count)
}

/// Reads the `count` partitions of the log in `root` in parallel, replays
/// the records after `after_ts` in timestamp order through `apply`, and
/// cuts every partition where replay ended.
pub(crate) fn recover(
    root: &Path,
    count: u32,
    after_ts: u64,
    mut apply: impl FnMut(u64, &[Change]) -> Result<(), String>,
) -> Result<Recovered, WalError> {
    let scans: Vec<Result<PartitionScan, WalError>> = std::thread::scope(|s| {
        let readers: Vec<_> = (0..count)
            .map(|k| {
                let dir = partition_dir(root, k);
                std::thread::Builder::new()
                    .name(format!("nereid-wal-recovery-{k}"))
                    .spawn_scoped(s, move || scan_partition(&dir, k, after_ts))
            })
            .collect();
        readers
            .into_iter()
            .map(|reader| match reader {
                Ok(handle) => handle.join().unwrap_or_else(|_| {
                    Err(WalError::Failed("a log recovery thread panicked".into()))
                }),
                Err(e) => Err(WalError::Io(e)),
            })
            .collect()
    });
    let scans = scans.into_iter().collect::<Result<Vec<_>, _>>()?;
    let mut report = RecoveryReport {
        last_commit_ts: after_ts,
        partitions: u64::from(count),
        ..RecoveryReport::default()
    };
    report.skipped_records = scans.iter().map(|s| s.skipped).sum();
    let cut_ts = replay_merged(&scans, after_ts, &mut apply, &mut report)?;
    let mut partitions = Vec::with_capacity(scans.len());
    for scan in scans {
        partitions.push(finish_partition(scan, cut_ts, after_ts, &mut report)?);
    }
    Ok(Recovered { partitions, report })
}

/// Cuts every partition of the log in `root` after commit timestamp `ts`
/// (nothing is replayed): resuming after a write failure drops the refused
/// commits, whose records may be anywhere from torn to durable, so that the
/// store can assign their timestamps again. Reading the partitions again
/// (rather than trusting the writers' bookkeeping) also finds a torn tail a
/// failed writer could not cut, and damage, which is reported, not skipped.
pub(crate) fn cut_after(
    root: &Path,
    count: u32,
    ts: u64,
) -> Result<Vec<RecoveredPartition>, WalError> {
    let mut report = RecoveryReport::default();
    (0..count)
        .map(|k| {
            let scan = scan_partition(&partition_dir(root, k), k, ts)?;
            finish_partition(scan, ts, ts, &mut report)
        })
        .collect()
}

/// Applies the records of all partitions in timestamp order up to the first
/// gap; returns the last applied timestamp (`after_ts` when none).
fn replay_merged(
    scans: &[PartitionScan],
    after_ts: u64,
    apply: &mut impl FnMut(u64, &[Change]) -> Result<(), String>,
    report: &mut RecoveryReport,
) -> Result<u64, WalError> {
    let mut merged: Vec<(u64, usize, usize)> = scans
        .iter()
        .enumerate()
        .flat_map(|(p, scan)| {
            scan.records
                .iter()
                .enumerate()
                .map(move |(i, r)| (r.ts, p, i))
        })
        .collect();
    merged.sort_unstable();
    let location = |p: usize, i: usize| {
        let record = &scans[p].records[i];
        (
            scans[p].segments[record.segment].path.clone(),
            record.offset,
        )
    };
    let mut last = after_ts;
    for (index, &(ts, p, i)) in merged.iter().enumerate() {
        if ts == last && index > 0 {
            let (file, offset) = location(p, i);
            return Err(WalError::Corrupt {
                file,
                offset,
                reason: format!("commit timestamp {ts} appears in two log partitions"),
            });
        }
        let missing = last + 1;
        if ts != missing {
            let (file, offset) = location(p, i);
            let torn_partition = scans.iter().find(|s| s.existed && s.highest_ts() < missing);
            let Some(torn) = torn_partition else {
                return Err(WalError::Corrupt {
                    file,
                    offset,
                    reason: format!(
                        "commit timestamp {ts} where {missing} was expected: log records are \
                         missing (a deleted segment, or a checkpoint lost?)"
                    ),
                });
            };
            let dropped = merged.len() - index;
            tracing::warn!(
                missing_commit_ts = missing,
                partition_ending_before_it = torn.partition,
                dropped_records = dropped,
                "the log ends at the first missing commit timestamp: the commits after it \
                 were never acknowledged and are dropped"
            );
            report.dropped_records = dropped as u64;
            break;
        }
        let record = &scans[p].records[i];
        tracing::trace!(partition = p, commit_ts = ts, "replaying log record");
        apply(ts, &record.changes).map_err(|reason| {
            let (file, offset) = location(p, i);
            WalError::Replay {
                file,
                offset,
                reason,
            }
        })?;
        report.records += 1;
        report.last_commit_ts = ts;
        last = ts;
    }
    Ok(last)
}

/// Cuts partition `scan` after `cut_ts` (and a torn tail), opens its
/// active segment for appending.
fn finish_partition(
    scan: PartitionScan,
    cut_ts: u64,
    after_ts: u64,
    report: &mut RecoveryReport,
) -> Result<RecoveredPartition, WalError> {
    let PartitionScan {
        partition,
        dir,
        segments,
        records,
        segment_last_ts,
        ..
    } = scan;
    report.segments += segments.len().max(1) as u64;
    let kept_ts = segment_last_ts
        .iter()
        .copied()
        .max()
        .unwrap_or(0)
        .min(cut_ts)
        .max(after_ts);
    let Some(last) = segments.len().checked_sub(1) else {
        if !dir.is_dir() {
            std::fs::create_dir_all(&dir)?;
            if let Some(parent) = dir.parent() {
                sync_dir(parent)?;
            }
        }
        let (file, end) = create_segment(&dir, 1, partition)?;
        return Ok(RecoveredPartition {
            partition,
            dir,
            file,
            segment: 1,
            end,
            active_last_ts: kept_ts,
            sealed: Vec::new(),
        });
    };
    let first_dropped = records.iter().position(|r| r.ts > cut_ts);
    let (active, end) = match first_dropped {
        Some(i) => (records[i].segment, records[i].offset),
        None => (last, segments[last].intact_end),
    };
    let mut dropped_bytes = segments[active].len.saturating_sub(end);
    for doomed in &segments[active + 1..] {
        dropped_bytes += doomed.len;
        std::fs::remove_file(&doomed.path)?;
    }
    let segment = &segments[active];
    if segment.needs_header {
        drop(create_segment(&dir, segment.number, partition)?);
    } else if dropped_bytes > 0 {
        let path = &segment.path;
        match first_dropped {
            Some(i) => tracing::warn!(
                partition,
                path = %path.display(),
                offset = end,
                bytes = dropped_bytes,
                records = records.len() - i,
                deleted_segments = segments.len() - 1 - active,
                "truncating the log partition after the last replayed commit"
            ),
            None => tracing::warn!(
                partition,
                path = %path.display(),
                offset = end,
                bytes = dropped_bytes,
                "truncating an incomplete record at the end of the log (a write torn by a crash)"
            ),
        }
        let file = OpenOptions::new().write(true).open(path)?;
        file.set_len(end)?;
        file.sync_all()?;
        report.truncated_bytes += dropped_bytes;
    }
    if active < last {
        sync_dir(&dir)?;
    }
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(&segment.path)?;
    let end = if segment.needs_header {
        HEADER_LEN as u64
    } else {
        end
    };
    file.seek(SeekFrom::Start(end))?;
    let sealed = segments[..active]
        .iter()
        .zip(&segment_last_ts)
        .map(|(s, last_ts)| Sealed {
            number: s.number,
            path: s.path.clone(),
            last_ts: *last_ts,
        })
        .collect();
    Ok(RecoveredPartition {
        partition,
        dir,
        file,
        segment: segment.number,
        end,
        active_last_ts: kept_ts,
        sealed,
    })
}

/// Creates (or resets) segment `number` of partition `stream` in `dir`
/// with a fresh header, durably.
pub(crate) fn create_segment(
    dir: &Path,
    number: u32,
    stream: u32,
) -> Result<(File, u64), WalError> {
    let path = dir.join(segment_file_name(number));
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(&path)?;
    file.write_all(&encode_header(number, stream))?;
    file.sync_all()?;
    sync_dir(dir)?;
    Ok((file, HEADER_LEN as u64))
}

/// Makes directory entries (new or removed files) durable.
pub(crate) fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}
