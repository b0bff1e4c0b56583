//! The Bolt handshake: magic preamble, four version slots, and the
//! manifest-v1 exchange (bolt-protocol.md §3).
//!
//! Invariants: the 20 opening bytes may arrive in any number of reads
//! (`read_exact` waits for them); the manifest reply is written in one
//! `write_all` because the JS driver parses it from a single buffer; after a
//! manifest reply exactly 4 bytes and one varint are consumed, so a HELLO
//! pipelined behind them stays in the reader's buffer.

use super::version::BoltVersion;
use thiserror::Error;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

pub const MAGIC: [u8; 4] = [0x60, 0x60, 0xB0, 0x17];
pub const MANIFEST_V1: [u8; 4] = [0x00, 0x00, 0x01, 0xFF];

/// `00 00 01 FF`, 3 ranges (4.4–4.0, 5.4–5.0, 5.8–5.6), capabilities 0:
/// byte for byte what Neo4j 5.26 answers.
pub const MANIFEST_REPLY: [u8; 18] = [
    0x00, 0x00, 0x01, 0xFF, 0x03, 0x00, 0x04, 0x04, 0x04, 0x00, 0x04, 0x04, 0x05, 0x00, 0x02, 0x08,
    0x05, 0x00,
];

/// The reply when no offered version is supported.
pub const NO_MATCH: [u8; 4] = [0, 0, 0, 0];

/// What the client's four slots ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Offer {
    /// Answer with this version (legacy negotiation).
    Version(BoltVersion),
    /// Answer with the manifest and let the client choose.
    Manifest,
    /// Answer `00 00 00 00`, then close.
    NoMatch,
    /// Close without a byte (a range reaching below minor 0).
    Malformed,
}

/// Chooses from the slots: the first slot, in client order, that we support;
/// inside a range, the highest common minor. Zero slots are padding.
pub fn choose(slots: &[[u8; 4]; 4]) -> Offer {
    let malformed = slots
        .iter()
        .any(|&[_, range, minor, major]| major != 0xFF && range > minor);
    if malformed {
        return Offer::Malformed;
    }
    for &slot in slots {
        if slot == [0; 4] {
            continue;
        }
        if slot == MANIFEST_V1 {
            return Offer::Manifest;
        }
        let [_, range, minor, major] = slot;
        let lowest = minor.saturating_sub(range);
        if let Some(version) = (lowest..=minor)
            .rev()
            .map(|m| BoltVersion::new(major, m))
            .find(|v| v.is_supported())
        {
            return Offer::Version(version);
        }
    }
    Offer::NoMatch
}

/// The outcome of a successful handshake.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Negotiated {
    pub version: BoltVersion,
    /// Whether the manifest was used (HELLO SUCCESS then names the version).
    pub manifest: bool,
}

#[derive(Debug, Error)]
pub enum HandshakeError {
    #[error("I/O error during the handshake: {0}")]
    Io(#[from] std::io::Error),
    #[error("not a Bolt client (bad magic {0:02X?})")]
    BadMagic([u8; 4]),
    #[error("an HTTP client reached the Bolt port")]
    Http,
    #[error("no common Bolt version in {0:02X?}")]
    NoMatch([[u8; 4]; 4]),
    #[error("malformed version offer {0:02X?}")]
    Malformed([[u8; 4]; 4]),
    #[error("the client chose Bolt {0}, which was not offered")]
    BadChoice(BoltVersion),
    #[error("the capability varint is longer than 10 bytes")]
    BadVarint,
}

const HTTP_REPLY: &[u8] = b"HTTP/1.1 400 Bad Request\r\ncontent-type: text/plain\r\ncontent-length: 52\r\nconnection: close\r\n\r\nThis is a Bolt port; use a Neo4j driver to connect.\n";

/// Runs the server side of the handshake.
pub async fn negotiate<R, W>(reader: &mut R, writer: &mut W) -> Result<Negotiated, HandshakeError>
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut magic = [0u8; 4];
    reader.read_exact(&mut magic).await?;
    if magic != MAGIC {
        if is_http_method(&magic) {
            writer.write_all(HTTP_REPLY).await?;
            writer.flush().await?;
            return Err(HandshakeError::Http);
        }
        return Err(HandshakeError::BadMagic(magic));
    }
    let mut raw = [0u8; 16];
    reader.read_exact(&mut raw).await?;
    let slots = split_slots(raw);
    match choose(&slots) {
        Offer::Version(version) => {
            writer
                .write_all(&[0, 0, version.minor, version.major])
                .await?;
            writer.flush().await?;
            Ok(Negotiated {
                version,
                manifest: false,
            })
        }
        Offer::Manifest => {
            writer.write_all(&MANIFEST_REPLY).await?;
            writer.flush().await?;
            let mut choice = [0u8; 4];
            reader.read_exact(&mut choice).await?;
            let _capabilities = read_varint(reader).await?;
            let version = BoltVersion::new(choice[3], choice[2]);
            if !version.is_supported() {
                return Err(HandshakeError::BadChoice(version));
            }
            Ok(Negotiated {
                version,
                manifest: true,
            })
        }
        Offer::NoMatch => {
            writer.write_all(&NO_MATCH).await?;
            writer.flush().await?;
            Err(HandshakeError::NoMatch(slots))
        }
        Offer::Malformed => Err(HandshakeError::Malformed(slots)),
    }
}

fn split_slots(raw: [u8; 16]) -> [[u8; 4]; 4] {
    let mut slots = [[0u8; 4]; 4];
    for (slot, chunk) in slots.iter_mut().zip(raw.chunks_exact(4)) {
        slot.copy_from_slice(chunk);
    }
    slots
}

fn is_http_method(magic: &[u8; 4]) -> bool {
    matches!(
        magic,
        b"GET " | b"POST" | b"HEAD" | b"PUT " | b"OPTI" | b"DELE" | b"PATC"
    )
}

/// Reads an unsigned LEB128 varint (at most 10 bytes for a u64).
pub async fn read_varint<R: AsyncRead + Unpin>(reader: &mut R) -> Result<u64, HandshakeError> {
    let mut value: u64 = 0;
    for i in 0..10 {
        let byte = reader.read_u8().await?;
        value |= u64::from(byte & 0x7F) << (7 * i);
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err(HandshakeError::BadVarint)
}

#[cfg(test)]
#[path = "handshake_tests.rs"]
mod tests;
