//! Opening a log: header check, replay of every intact record, torn-tail
//! truncation.
//!
//! The damage rule: scanning stops at the first offset where no complete,
//! intact record can be read (frame shorter than 8 bytes, implausible
//! length, length running past the end of the file, CRC mismatch). Then the rest of the file is searched for an intact record
//! starting at any later byte offset:
//! - none found: the bytes are a torn tail (a write that never completed, so
//!   no commit in it was acknowledged). They are truncated away and reported
//!   with `tracing::warn!` and in `RecoveryReport::truncated_bytes`;
//! - one found: the damage is *before* the tail (media corruption, or a
//!   corrupted length field): `WalError::Corrupt` with the offset. Nothing
//!   is ever skipped silently: acknowledged commits may follow the damage.
//!   (A crash can in principle persist the pages of one unsynced write out
//!   of order and land here too; refusing to open is the safe answer, and an
//!   operator can truncate the file at the reported offset.)
//!
//! An intact record of an unknown type, whose payload does not decode, or
//! whose commit timestamp does not increase, is `Corrupt` too: its CRC
//! proves it was written like that.
//!
//! The file is read into memory whole; streaming and checkpoints (so that
//! recovery does not replay the whole history) come with segment rotation.

use crate::codec::decode_changes;
use crate::error::WalError;
use crate::format::{
    check_header, encode_header, find_intact_record_after, read_record, HEADER_LEN, RECORD_COMMIT,
};
use crate::RecoveryReport;
use nereid_storage::Change;
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::Path;

/// The log file, positioned for appending, and what recovery found.
pub(crate) struct Recovered {
    pub(crate) file: File,
    pub(crate) end: u64,
    pub(crate) report: RecoveryReport,
}

/// Opens (or creates) the segment file at `path` and replays it.
pub(crate) fn recover(
    path: &Path,
    mut apply: impl FnMut(u64, &[Change]) -> Result<(), String>,
) -> Result<Recovered, WalError> {
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;

    if bytes.len() < HEADER_LEN {
        let header = encode_header(1, 0);
        // Empty, or a header torn while the log was being created.
        if !header.starts_with(&bytes) {
            return Err(WalError::Corrupt {
                offset: 0,
                reason: format!("{}-byte file with a damaged header", bytes.len()),
            });
        }
        file.set_len(0)?;
        write_at_end(&mut file, &header)?;
        file.sync_all()?;
        sync_dir(path)?;
        return Ok(Recovered {
            file,
            end: HEADER_LEN as u64,
            report: RecoveryReport::default(),
        });
    }
    check_header(&bytes)?;

    let mut report = RecoveryReport::default();
    let mut at = HEADER_LEN;
    while at < bytes.len() {
        let Some(record) = read_record(&bytes, at) else {
            if let Some(next) = find_intact_record_after(&bytes, at) {
                return Err(WalError::Corrupt {
                    offset: at as u64,
                    reason: format!("damaged record followed by an intact record at byte {next}"),
                });
            }
            break;
        };
        if record.record_type != RECORD_COMMIT {
            return Err(WalError::Corrupt {
                offset: at as u64,
                reason: format!("unsupported record type {}", record.record_type),
            });
        }
        tracing::trace!(
            offset = at,
            txn = record.txn_handle,
            commit_ts = record.commit_ts,
            "replaying log record"
        );
        if record.commit_ts <= report.last_commit_ts {
            return Err(WalError::Corrupt {
                offset: at as u64,
                reason: format!(
                    "commit timestamp {} does not follow {}",
                    record.commit_ts, report.last_commit_ts
                ),
            });
        }
        let changes = decode_changes(record.payload).map_err(|reason| WalError::Corrupt {
            offset: at as u64,
            reason,
        })?;
        apply(record.commit_ts, &changes).map_err(|reason| WalError::Replay {
            offset: at as u64,
            reason,
        })?;
        report.records += 1;
        report.last_commit_ts = record.commit_ts;
        at = record.end;
    }

    if at < bytes.len() {
        let dropped = (bytes.len() - at) as u64;
        tracing::warn!(
            path = %path.display(),
            offset = at,
            bytes = dropped,
            "truncating an incomplete record at the end of the log (a write torn by a crash)"
        );
        file.set_len(at as u64)?;
        file.sync_all()?;
        report.truncated_bytes = dropped;
    }
    Ok(Recovered {
        file,
        end: at as u64,
        report,
    })
}

fn write_at_end(file: &mut File, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom};
    file.seek(SeekFrom::End(0))?;
    file.write_all(bytes)
}

/// Makes a newly created file's directory entry durable.
fn sync_dir(path: &Path) -> std::io::Result<()> {
    match path.parent() {
        Some(dir) => File::open(dir)?.sync_all(),
        None => Ok(()),
    }
}
