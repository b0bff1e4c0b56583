//! The on-disk format (version 1).
//!
//! File header, 24 bytes, little-endian:
//! ```text
//! magic "NEREIDLG" (8) | format version u32 | segment number u32 | stream id u32 | CRC32C of the previous 20 bytes u32
//! ```
//! The segment number orders the files of one log partition (the file
//! `wal-000001.log` is segment 1; rotation adds `wal-000002.log`, ...; the
//! header's number must match the file name). The stream id is the log
//! partition the file belongs to and must match its directory: partition 0
//! is the log directory itself (so a log written before partitioning, which
//! wrote stream 0 only, is partition 0 unchanged), partition `k > 0` is its
//! subdirectory `p<k>`.
//!
//! Record, repeated until end of file:
//! ```text
//! body length u32 | CRC32C of the body u32 | body
//! body = record type u8 | txn handle u64 | commit timestamp u64 | payload
//! ```
//! Record types: 1 = commit (payload: the change list, see `codec`);
//! 2 = abort and 3 = checkpoint are reserved for later versions; an intact
//! record of any type but 1 is reported as corruption by version 1.

use crate::error::WalError;
use std::path::Path;

pub(crate) const MAGIC: &[u8; 8] = b"NEREIDLG";
pub(crate) const FORMAT_VERSION: u32 = 1;
pub(crate) const HEADER_LEN: usize = 24;
/// Frame header: body length + CRC.
pub(crate) const FRAME_LEN: usize = 8;
/// Type + txn handle + commit timestamp.
pub(crate) const BODY_PREFIX_LEN: usize = 17;
/// Largest body accepted (and written): 1 GiB.
pub(crate) const MAX_BODY_LEN: usize = 1 << 30;

pub(crate) const RECORD_COMMIT: u8 = 1;
/// Reserved: an explicit abort marker for partitioned logs.
#[allow(dead_code)]
pub(crate) const RECORD_ABORT: u8 = 2;
/// Reserved: a checkpoint marker (the log before it may be discarded).
#[allow(dead_code)]
pub(crate) const RECORD_CHECKPOINT: u8 = 3;

/// The name of a segment file of stream 0.
pub(crate) fn segment_file_name(segment: u32) -> String {
    format!("wal-{segment:06}.log")
}

/// The directory of log partition `partition` under the log directory
/// `root` (see the module docs).
pub(crate) fn partition_dir(root: &Path, partition: u32) -> std::path::PathBuf {
    if partition == 0 {
        root.to_path_buf()
    } else {
        root.join(format!("p{partition}"))
    }
}

/// The partition number of a subdirectory name written by [`partition_dir`].
pub(crate) fn parse_partition_dir_name(name: &str) -> Option<u32> {
    let digits = name.strip_prefix('p')?;
    if digits.is_empty() || digits.starts_with('0') || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// The segment number of a file name written by [`segment_file_name`].
pub(crate) fn parse_segment_file_name(name: &str) -> Option<u32> {
    let digits = name.strip_prefix("wal-")?.strip_suffix(".log")?;
    if digits.len() < 6 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

pub(crate) fn encode_header(segment: u32, stream: u32) -> [u8; HEADER_LEN] {
    let mut h = [0u8; HEADER_LEN];
    h[..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&FORMAT_VERSION.to_le_bytes());
    h[12..16].copy_from_slice(&segment.to_le_bytes());
    h[16..20].copy_from_slice(&stream.to_le_bytes());
    let crc = crc32c::crc32c(&h[..20]);
    h[20..24].copy_from_slice(&crc.to_le_bytes());
    h
}

fn le_u32(bytes: &[u8], at: usize) -> Option<u32> {
    let b: [u8; 4] = bytes.get(at..at + 4)?.try_into().ok()?;
    Some(u32::from_le_bytes(b))
}

fn le_u64(bytes: &[u8], at: usize) -> Option<u64> {
    let b: [u8; 8] = bytes.get(at..at + 8)?.try_into().ok()?;
    Some(u64::from_le_bytes(b))
}

/// Checks a complete header of the file `file`; returns `(segment, stream)`.
pub(crate) fn check_header(h: &[u8], file: &Path) -> Result<(u32, u32), WalError> {
    if h.len() < HEADER_LEN {
        return Err(WalError::Corrupt {
            file: file.to_path_buf(),
            offset: 0,
            reason: "file shorter than its header".into(),
        });
    }
    if &h[..8] != MAGIC {
        return Err(WalError::NotALog(file.to_path_buf()));
    }
    let version = le_u32(h, 8).unwrap_or(0);
    if version != FORMAT_VERSION {
        return Err(WalError::UnsupportedVersion {
            file: file.to_path_buf(),
            found: version,
            supported: FORMAT_VERSION,
        });
    }
    if le_u32(h, 20) != Some(crc32c::crc32c(&h[..20])) {
        return Err(WalError::Corrupt {
            file: file.to_path_buf(),
            offset: 0,
            reason: "header checksum mismatch".into(),
        });
    }
    Ok((le_u32(h, 12).unwrap_or(0), le_u32(h, 16).unwrap_or(0)))
}

/// Frames one record: length, CRC, type, handle, timestamp, payload.
pub(crate) fn encode_record(
    record_type: u8,
    txn_handle: u64,
    commit_ts: u64,
    payload: &[u8],
) -> Result<Vec<u8>, WalError> {
    let body_len = BODY_PREFIX_LEN + payload.len();
    if body_len > MAX_BODY_LEN {
        return Err(WalError::RecordTooLarge(body_len));
    }
    let mut out = Vec::with_capacity(FRAME_LEN + body_len);
    out.extend_from_slice(&(body_len as u32).to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    out.push(record_type);
    out.extend_from_slice(&txn_handle.to_le_bytes());
    out.extend_from_slice(&commit_ts.to_le_bytes());
    out.extend_from_slice(payload);
    let crc = crc32c::crc32c(&out[FRAME_LEN..]);
    out[4..8].copy_from_slice(&crc.to_le_bytes());
    Ok(out)
}

/// One record read back from the file.
#[derive(Debug)]
pub(crate) struct RawRecord<'a> {
    pub(crate) record_type: u8,
    pub(crate) txn_handle: u64,
    pub(crate) commit_ts: u64,
    pub(crate) payload: &'a [u8],
    /// Offset just past the record.
    pub(crate) end: usize,
}

/// Reads the record framed at `at`, or `None` when no complete, intact
/// record (plausible length, matching CRC) starts there. The record type is
/// the caller's to check.
pub(crate) fn read_record(file: &[u8], at: usize) -> Option<RawRecord<'_>> {
    let body_len = le_u32(file, at)? as usize;
    let crc = le_u32(file, at + 4)?;
    if !(BODY_PREFIX_LEN..=MAX_BODY_LEN).contains(&body_len) {
        return None;
    }
    let body_start = at + FRAME_LEN;
    let body = file.get(body_start..body_start.checked_add(body_len)?)?;
    let record_type = *body.first()?;
    if crc32c::crc32c(body) != crc {
        return None;
    }
    Some(RawRecord {
        record_type,
        txn_handle: le_u64(body, 1)?,
        commit_ts: le_u64(body, 9)?,
        payload: body.get(BODY_PREFIX_LEN..)?,
        end: body_start + body_len,
    })
}

/// The offset of the first intact record starting after `from`, if any: the
/// resynchronisation scan that tells damage in the middle of the log from a
/// torn tail.
pub(crate) fn find_intact_record_after(file: &[u8], from: usize) -> Option<usize> {
    (from + 1..file.len().saturating_sub(FRAME_LEN + BODY_PREFIX_LEN - 1))
        .find(|&at| read_record(file, at).is_some())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips_and_is_checked() {
        let f = Path::new("wal-000001.log");
        let h = encode_header(1, 0);
        assert_eq!(check_header(&h, f).unwrap(), (1, 0));
        let mut bad = h;
        bad[0] = b'X';
        assert!(matches!(check_header(&bad, f), Err(WalError::NotALog(_))));
        let mut v2 = h;
        v2[8] = 2;
        assert!(matches!(
            check_header(&v2, f),
            Err(WalError::UnsupportedVersion {
                found: 2,
                supported: 1,
                ..
            })
        ));
        let mut flipped = h;
        flipped[13] ^= 1;
        assert!(matches!(
            check_header(&flipped, f),
            Err(WalError::Corrupt { .. })
        ));
        assert_eq!(segment_file_name(1), "wal-000001.log");
        assert_eq!(parse_segment_file_name("wal-000001.log"), Some(1));
        assert_eq!(parse_segment_file_name("wal-1234567.log"), Some(1234567));
        assert_eq!(parse_segment_file_name("wal-01.log"), None);
        assert_eq!(parse_segment_file_name("wal-000001.log.tmp"), None);
        assert_eq!(parse_partition_dir_name("p3"), Some(3));
        assert_eq!(parse_partition_dir_name("p0"), None);
        assert_eq!(parse_partition_dir_name("p03"), None);
        assert_eq!(parse_partition_dir_name("px"), None);
        let root = Path::new("/data/wal");
        assert_eq!(partition_dir(root, 0), root);
        assert_eq!(partition_dir(root, 2), root.join("p2"));
    }

    #[test]
    fn records_round_trip_and_damage_is_detected() {
        let rec = encode_record(RECORD_COMMIT, 7, 42, b"payload").unwrap();
        let mut file = vec![0xAA; 3];
        file.extend_from_slice(&rec);
        let r = read_record(&file, 3).unwrap();
        assert_eq!(
            (r.record_type, r.txn_handle, r.commit_ts),
            (RECORD_COMMIT, 7, 42)
        );
        assert_eq!(r.payload, b"payload");
        assert_eq!(r.end, file.len());
        assert!(read_record(&file[..file.len() - 1], 3).is_none());
        for i in 3..file.len() {
            let mut damaged = file.clone();
            damaged[i] ^= 0x10;
            assert!(read_record(&damaged, 3).is_none(), "flip at {i}");
        }
        assert_eq!(find_intact_record_after(&file, 0), Some(3));
        assert_eq!(find_intact_record_after(&file, 3), None);
    }
}
