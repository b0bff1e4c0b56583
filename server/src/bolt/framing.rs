//! Chunked message framing (bolt-protocol.md §4): `[u16 size][bytes]`
//! chunks ending with `00 00`; an empty chunk between messages is a NOOP.
//!
//! Memory: a chunk is checked against the message limit and charged to the
//! server-wide [`BufferBudget`](super::budget::BufferBudget) before its
//! bytes are read, so neither bound is ever exceeded, even briefly.

use super::budget::{BudgetExhausted, Charge};
use thiserror::Error;
use tokio::io::{AsyncRead, AsyncReadExt};

/// The largest chunk body a u16 size can describe.
pub const MAX_CHUNK: usize = u16::MAX as usize;

/// Default limit on one reassembled message; larger ones close the
/// connection (it protects the server's memory, not the client's).
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 64 * 1024 * 1024;

#[derive(Debug, Error)]
pub enum FrameError {
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    #[error("message larger than the limit of {limit} bytes")]
    TooLarge { limit: usize },
    #[error("connection closed in the middle of a message")]
    Truncated,
    #[error(transparent)]
    Busy(#[from] BudgetExhausted),
}

/// Reads one message body. `Ok(None)` means the peer closed the connection
/// cleanly between messages. NOOP chunks are skipped.
pub async fn read_message<R: AsyncRead + Unpin>(
    reader: &mut R,
    limit: usize,
) -> Result<Option<Vec<u8>>, FrameError> {
    read_message_into(reader, limit, None).await
}

/// [`read_message`] that charges every chunk to `charge` before reading
/// it; the caller keeps the charge for as long as it holds the body.
pub async fn read_message_charged<R: AsyncRead + Unpin>(
    reader: &mut R,
    limit: usize,
    charge: &mut Charge,
) -> Result<Option<Vec<u8>>, FrameError> {
    read_message_into(reader, limit, Some(charge)).await
}

async fn read_message_into<R: AsyncRead + Unpin>(
    reader: &mut R,
    limit: usize,
    mut charge: Option<&mut Charge>,
) -> Result<Option<Vec<u8>>, FrameError> {
    let mut message = Vec::new();
    loop {
        let mut header = [0u8; 2];
        match reader.read_exact(&mut header).await {
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => {
                return if message.is_empty() {
                    Ok(None)
                } else {
                    Err(FrameError::Truncated)
                };
            }
            Err(e) => return Err(e.into()),
        }
        let size = usize::from(u16::from_be_bytes(header));
        if size == 0 {
            if message.is_empty() {
                continue; // NOOP keep-alive
            }
            return Ok(Some(message));
        }
        let start = message.len();
        if start + size > limit {
            return Err(FrameError::TooLarge { limit });
        }
        if let Some(charge) = charge.as_deref_mut() {
            charge.add(size)?;
        }
        message.resize(start + size, 0);
        if let Some(chunk) = message.get_mut(start..) {
            reader.read_exact(chunk).await.map_err(|e| {
                if e.kind() == std::io::ErrorKind::UnexpectedEof {
                    FrameError::Truncated
                } else {
                    FrameError::Io(e)
                }
            })?;
        }
    }
}

/// Appends `body` to `out` as chunks of at most [`MAX_CHUNK`] bytes plus the
/// end marker.
pub fn write_message(body: &[u8], out: &mut Vec<u8>) {
    out.reserve(body.len() + 2 * (body.len() / MAX_CHUNK + 2));
    for chunk in body.chunks(MAX_CHUNK) {
        out.extend_from_slice(&(chunk.len() as u16).to_be_bytes());
        out.extend_from_slice(chunk);
    }
    out.extend_from_slice(&[0, 0]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn noops_are_skipped_and_split_chunks_are_joined() {
        let bytes: Vec<u8> = [
            &[0u8, 0, 0, 0][..],
            &[0, 2, 0xB1, 0x3F],
            &[0, 3, 0xA1, 0x81, 0x6E],
            &[0, 1, 0xFF, 0, 0],
            &[0, 1, 0xB0, 0, 0],
        ]
        .concat();
        let mut reader = &bytes[..];
        let first = read_message(&mut reader, 1024).await.unwrap();
        assert_eq!(first, Some(vec![0xB1, 0x3F, 0xA1, 0x81, 0x6E, 0xFF]));
        let second = read_message(&mut reader, 1024).await.unwrap();
        assert_eq!(second, Some(vec![0xB0]));
        assert!(read_message(&mut reader, 1024).await.unwrap().is_none());
    }

    #[tokio::test]
    async fn oversized_and_truncated_messages_are_errors() {
        let bytes = [0u8, 4, 1, 2, 3, 4, 0, 4, 5, 6, 7, 8, 0, 0];
        let mut reader = &bytes[..];
        assert!(matches!(
            read_message(&mut reader, 6).await,
            Err(FrameError::TooLarge { limit: 6 })
        ));
        let mut reader = &bytes[..5];
        assert!(matches!(
            read_message(&mut reader, 100).await,
            Err(FrameError::Truncated)
        ));
    }

    #[tokio::test]
    async fn chunks_are_charged_before_they_are_read() {
        use crate::bolt::budget::BufferBudget;
        let budget = BufferBudget::new(5);
        let bytes = [0u8, 4, 1, 2, 3, 4, 0, 0, 0, 2, 5, 6, 0, 0];
        let mut reader = &bytes[..];
        let mut first = Charge::new(&budget);
        let body = read_message_charged(&mut reader, 100, &mut first).await;
        assert_eq!(body.unwrap(), Some(vec![1, 2, 3, 4]));
        assert_eq!(budget.used(), 4);
        let mut second = Charge::new(&budget);
        assert!(matches!(
            read_message_charged(&mut reader, 100, &mut second).await,
            Err(FrameError::Busy(_))
        ));
        drop(first);
        assert_eq!(budget.used(), 0);
    }

    #[test]
    fn large_bodies_are_split_into_full_chunks() {
        let body = vec![7u8; MAX_CHUNK + 10];
        let mut out = Vec::new();
        write_message(&body, &mut out);
        assert_eq!(&out[..2], &[0xFF, 0xFF]);
        assert_eq!(&out[2 + MAX_CHUNK..4 + MAX_CHUNK], &[0, 10]);
        assert_eq!(&out[out.len() - 2..], &[0, 0]);
        assert_eq!(out.len(), body.len() + 6);
    }
}
