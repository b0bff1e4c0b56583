//! One checkpoint partition file (format version 3), little-endian:
//! ```text
//! header: magic "NEREIDCK" (8) | version u32 | kind u8 | partition u32 | commit ts u64 | CRC32C of the previous 25 bytes u32
//! chunk, repeated: body length u32 | CRC32C of the body u32 | body = a name table and a change list (`codec::encode_exported_chunk`)
//! ```
//! Version 2 (still read) wrote the ids of a chunk's records in 8 bytes
//! each, version 3 as differences from the record before (module
//! `codec::names`). Version 1 (still read) had the log's change list as a
//! chunk's body, every name spelled in every change.
//! Kind 1 holds `CreateNode`s of one REL_VP partition (partition 0's file
//! starts with the schema: `CreateConstraint`s and `CreateIndex`es), kind 2
//! the `CreateRel`s of one REL_E grid cell. Chunks hold up to [`CHUNK`] changes,
//! so neither writing nor loading needs a whole partition encoded at once.
//! The manifest also records every file's length and CRC32C, so truncation
//! and damage anywhere are detected before anything is loaded.

use crate::codec::{decode_changes, decode_numbered_chunk, encode_exported_chunk, ChunkIds};
use crate::error::WalError;
use nereid_storage::{Change, Exported};

pub(crate) const MAGIC: &[u8; 8] = b"NEREIDCK";
pub(crate) const VERSION: u32 = 3;
/// The format before chunks differenced their records' ids.
const VERSION_FIXED_IDS: u32 = 2;
/// The format before chunks had name tables.
const VERSION_SPELLED: u32 = 1;
const HEADER_LEN: usize = 29;
/// Changes per chunk.
pub(crate) const CHUNK: usize = 1024;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum PartKind {
    Nodes = 1,
    Rels = 2,
}

impl PartKind {
    pub(crate) fn file_name(self, partition: usize) -> String {
        match self {
            PartKind::Nodes => format!("nodes-{partition:05}.ckp"),
            PartKind::Rels => format!("rels-{partition:05}.ckp"),
        }
    }
}

/// Bytes encoded before they are handed to the file: a few chunks, so
/// one buffer, reused and in cache, carries a whole partition.
const WRITE_AT: usize = 256 << 10;

/// A partition file as [`encode_to`] wrote it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Written {
    /// Bytes written.
    pub(crate) len: u64,
    /// Changes written.
    pub(crate) count: u64,
    /// CRC32C of all the bytes (the manifest's), carried on over each
    /// chunk as it is written: computed over the finished file, it read
    /// every byte of a checkpoint again from memory.
    pub(crate) crc: u32,
}

/// Encodes a whole partition file from a store's exported entities,
/// taken [`CHUNK`] at a time (an export reads them lazily, so only one
/// chunk's are ever held), handing its bytes to `write` a few whole
/// chunks at a time. Each entity is written as the `Change` it stands for.
pub(crate) fn encode_to<'s>(
    kind: PartKind,
    partition: usize,
    commit_ts: u64,
    changes: impl IntoIterator<Item = Exported<'s>>,
    mut write: impl FnMut(&[u8]) -> Result<(), WalError>,
) -> Result<Written, WalError> {
    let mut out = Vec::with_capacity(WRITE_AT + WRITE_AT / 2);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&VERSION.to_le_bytes());
    out.push(kind as u8);
    out.extend_from_slice(&(partition as u32).to_le_bytes());
    out.extend_from_slice(&commit_ts.to_le_bytes());
    let crc = crc32c::crc32c(&out);
    out.extend_from_slice(&crc.to_le_bytes());
    let mut written = Written {
        len: 0,
        count: 0,
        crc: crc32c::crc32c(&out),
    };
    let mut changes = changes.into_iter();
    let mut chunk = Vec::with_capacity(CHUNK);
    let mut scratch = Vec::new();
    loop {
        chunk.clear();
        chunk.extend(changes.by_ref().take(CHUNK));
        if chunk.is_empty() {
            write(&out)?;
            written.len += out.len() as u64;
            return Ok(written);
        }
        written.count += chunk.len() as u64;
        // The chunk is encoded in place behind room for its length and
        // checksum, filled in after: a body encoded apart was copied once
        // more (every byte of a bulk load's checkpoint).
        let at = out.len();
        out.extend_from_slice(&[0; 8]);
        encode_exported_chunk(&chunk, &mut out, &mut scratch).map_err(WalError::Unencodable)?;
        let body = &out[at + 8..];
        let len =
            u32::try_from(body.len()).map_err(|_| WalError::Unencodable("chunk too large"))?;
        let crc = crc32c::crc32c(body);
        out[at..at + 4].copy_from_slice(&len.to_le_bytes());
        out[at + 4..at + 8].copy_from_slice(&crc.to_le_bytes());
        // While the chunk is still in cache (`crc32c_combine` of the
        // body's CRC was measured slower: ~10 µs a chunk).
        written.crc = crc32c::crc32c_append(written.crc, &out[at..]);
        if out.len() >= WRITE_AT {
            write(&out)?;
            written.len += out.len() as u64;
            out.clear();
        }
    }
}

/// [`encode_to`] into memory: the file's bytes and what was written.
#[cfg(test)]
pub(crate) fn encode<'s>(
    kind: PartKind,
    partition: usize,
    commit_ts: u64,
    changes: impl IntoIterator<Item = Exported<'s>>,
) -> Result<(Vec<u8>, Written), WalError> {
    let mut bytes = Vec::new();
    let written = encode_to(kind, partition, commit_ts, changes, |b| {
        bytes.extend_from_slice(b);
        Ok(())
    })?;
    Ok((bytes, written))
}

fn le_u32(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// Decodes a partition file, checking that it is the expected one. Calls
/// `chunk` with every chunk's changes in order.
pub(crate) fn decode(
    bytes: &[u8],
    kind: PartKind,
    partition: usize,
    commit_ts: u64,
    mut chunk: impl FnMut(Vec<Change>) -> Result<(), String>,
) -> Result<(), String> {
    let header = bytes.get(..HEADER_LEN).ok_or("shorter than its header")?;
    if &header[..8] != MAGIC {
        return Err("not a nereid checkpoint file (bad magic bytes)".into());
    }
    if le_u32(header, 25) != Some(crc32c::crc32c(&header[..25])) {
        return Err("header checksum mismatch".into());
    }
    let version = le_u32(header, 8).unwrap_or(0);
    let decode_chunk = |body: &[u8]| match version {
        VERSION => decode_numbered_chunk(body, ChunkIds::Differenced),
        VERSION_FIXED_IDS => decode_numbered_chunk(body, ChunkIds::Fixed),
        _ => decode_changes(body),
    };
    if ![VERSION, VERSION_FIXED_IDS, VERSION_SPELLED].contains(&version) {
        return Err(format!(
            "format version {version}; this build reads {VERSION_SPELLED} to {VERSION}"
        ));
    }
    let found_kind = header[12];
    let found_part = le_u32(header, 13).unwrap_or(u32::MAX) as usize;
    let found_ts = u64::from_le_bytes(header[17..25].try_into().map_err(|_| "header")?);
    if (found_kind, found_part, found_ts) != (kind as u8, partition, commit_ts) {
        return Err(format!(
            "holds kind {found_kind} partition {found_part} at {found_ts}, expected kind {} partition {partition} at {commit_ts}",
            kind as u8
        ));
    }
    let mut at = HEADER_LEN;
    while at < bytes.len() {
        let len = le_u32(bytes, at).ok_or_else(|| format!("truncated chunk header at byte {at}"))?
            as usize;
        let crc =
            le_u32(bytes, at + 4).ok_or_else(|| format!("truncated chunk header at byte {at}"))?;
        let body = bytes
            .get(at + 8..at + 8 + len)
            .ok_or_else(|| format!("truncated chunk at byte {at}"))?;
        if crc32c::crc32c(body) != crc {
            return Err(format!("chunk checksum mismatch at byte {at}"));
        }
        let changes = decode_chunk(body).map_err(|e| format!("chunk at byte {at}: {e}"))?;
        chunk(changes)?;
        at += 8 + len;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use nereid_values::{NodeId, Value};
    use std::collections::BTreeMap;

    fn nodes(n: u64) -> Vec<Change> {
        (0..n)
            .map(|i| Change::CreateNode {
                id: NodeId(i),
                key: format!("n{i}"),
                labels: vec!["L".into()],
                properties: BTreeMap::from([("i".to_string(), Value::Int(i as i64))]),
            })
            .collect()
    }

    #[test]
    fn partition_files_round_trip_in_chunks_and_detect_damage() {
        let changes = nodes(2500);
        let exported = changes.iter().cloned().map(Exported::Change);
        let (bytes, written) = encode(PartKind::Nodes, 3, 77, exported).unwrap();
        assert_eq!(written.count, 2500);
        assert_eq!(written.len, bytes.len() as u64);
        assert_eq!(written.crc, crc32c::crc32c(&bytes));
        let mut back = Vec::new();
        let mut chunks = 0;
        decode(&bytes, PartKind::Nodes, 3, 77, |c| {
            chunks += 1;
            back.extend(c);
            Ok(())
        })
        .unwrap();
        assert_eq!((back, chunks), (changes, 3));
        assert!(decode(&bytes, PartKind::Rels, 3, 77, |_| Ok(())).is_err());
        assert!(decode(&bytes, PartKind::Nodes, 2, 77, |_| Ok(())).is_err());
        for at in [0, 10, 30, 40, bytes.len() / 2, bytes.len() - 1] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 0x20;
            assert!(
                decode(&damaged, PartKind::Nodes, 3, 77, |_| Ok(())).is_err(),
                "flip at {at}"
            );
        }
        assert!(decode(
            &bytes[..bytes.len() - 3],
            PartKind::Nodes,
            3,
            77,
            |_| Ok(())
        )
        .is_err());
    }

    /// A file larger than the write buffer reaches its writer in pieces
    /// of whole chunks, which put together are the file [`encode`]
    /// gathers, with its length and CRC; an empty partition is its header.
    #[test]
    fn large_files_are_written_in_pieces_of_whole_chunks() {
        let long = "k".repeat(300);
        let changes: Vec<Change> = (0..3000u64)
            .map(|i| Change::CreateNode {
                id: NodeId(i),
                key: format!("{long}{i}"),
                labels: vec!["L".into()],
                properties: BTreeMap::new(),
            })
            .collect();
        let exported = || changes.iter().cloned().map(Exported::Change);
        let mut pieces: Vec<Vec<u8>> = Vec::new();
        let written = encode_to(PartKind::Nodes, 1, 5, exported(), |b| {
            pieces.push(b.to_vec());
            Ok(())
        })
        .unwrap();
        assert!(pieces.len() >= 3, "{} pieces", pieces.len());
        let (whole, gathered) = encode(PartKind::Nodes, 1, 5, exported()).unwrap();
        assert_eq!(pieces.concat(), whole);
        assert_eq!(written, gathered);
        assert_eq!(written.crc, crc32c::crc32c(&whole));
        assert_eq!(written.len, whole.len() as u64);
        // Every piece ends where a chunk ends: the file up to it decodes.
        let mut upto = 0;
        for piece in &pieces {
            upto += piece.len();
            decode(&whole[..upto], PartKind::Nodes, 1, 5, |_| Ok(())).unwrap();
        }
        let (empty, none) = encode(PartKind::Rels, 0, 5, std::iter::empty()).unwrap();
        assert_eq!(empty.len(), HEADER_LEN);
        assert_eq!((none.count, none.crc), (0, crc32c::crc32c(&empty)));
        // A writer's error ends the encoding with it.
        let failed = encode_to(PartKind::Nodes, 1, 5, exported(), |_| {
            Err(WalError::Unencodable("full"))
        });
        assert!(failed.is_err());
    }

    /// A one-chunk file of format `version` around `body`.
    fn file_of(version: u32, body: &[u8]) -> Vec<u8> {
        let mut file = Vec::new();
        file.extend_from_slice(MAGIC);
        file.extend_from_slice(&version.to_le_bytes());
        file.push(PartKind::Nodes as u8);
        file.extend_from_slice(&3u32.to_le_bytes());
        file.extend_from_slice(&77u64.to_le_bytes());
        let crc = crc32c::crc32c(&file);
        file.extend_from_slice(&crc.to_le_bytes());
        file.extend_from_slice(&(body.len() as u32).to_le_bytes());
        file.extend_from_slice(&crc32c::crc32c(body).to_le_bytes());
        file.extend_from_slice(body);
        file
    }

    fn decoded(file: &[u8]) -> Vec<Change> {
        let mut back = Vec::new();
        decode(file, PartKind::Nodes, 3, 77, |c| {
            back.extend(c);
            Ok(())
        })
        .unwrap();
        back
    }

    #[test]
    fn files_of_earlier_versions_still_load() {
        let changes = nodes(10);
        let (current, written) = encode(
            PartKind::Nodes,
            3,
            77,
            changes.iter().cloned().map(Exported::Change),
        )
        .unwrap();
        assert_eq!(written.crc, crc32c::crc32c(&current));
        assert_eq!(decoded(&current), changes);
        // Version 2: names numbered, ids in 8 bytes.
        let (mut v2_body, mut scratch) = (Vec::new(), Vec::new());
        crate::codec::encode_numbered_chunk(&changes, ChunkIds::Fixed, &mut v2_body, &mut scratch)
            .unwrap();
        let v2 = file_of(VERSION_FIXED_IDS, &v2_body);
        assert_eq!(decoded(&v2), changes);
        // Version 1: the log's change list, names spelled in every change.
        let mut v1_body = Vec::new();
        crate::codec::encode_changes(&changes, &mut v1_body).unwrap();
        let v1 = file_of(VERSION_SPELLED, &v1_body);
        assert_eq!(decoded(&v1), changes);
        // Each version smaller than the one before.
        assert!(current.len() < v2.len() && v2.len() < v1.len());
        // A version this build does not know is refused.
        let v4 = file_of(VERSION + 1, &v2_body);
        assert!(decode(&v4, PartKind::Nodes, 3, 77, |_| Ok(())).is_err());
    }
}
