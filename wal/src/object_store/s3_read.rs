//! Streaming reads of one S3 object, for a bulk load whose source is a
//! bucket: the object's body is read chunk by chunk as the parser asks for
//! bytes, so memory stays bounded by what the connection buffers, however
//! large the object.
//!
//! A load keeps several objects open while it parses others, and an idle
//! connection may be closed by the server: a body that breaks off is
//! requested again from the byte where it broke (a ranged GET), a few
//! times, before the read fails.

use std::io::{self, Read};

use aws_sdk_s3::error::DisplayErrorContext;
use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::Client;
use bytes::{Buf, Bytes};
use tokio::runtime::Handle;

use super::s3::{run_on, s3_error};

/// Consecutive broken bodies re-requested before a read fails.
const RETRIES: u32 = 3;

/// A [`Read`] over one object (from [`super::S3Store::reader`]).
pub struct S3Reader {
    client: Client,
    runtime: Handle,
    bucket: String,
    key: String,
    /// Bytes handed out so far: where a re-request starts.
    offset: u64,
    /// The body being read; `None` before the first read and after a break.
    body: Option<ByteStream>,
    /// What is left of the last chunk received.
    chunk: Bytes,
    /// Broken bodies since the last chunk received.
    failures: u32,
    ended: bool,
}

fn io_error(e: crate::error::WalError) -> io::Error {
    match e {
        crate::error::WalError::Io(e) => e,
        other => io::Error::other(other.to_string()),
    }
}

impl S3Reader {
    pub(super) fn new(client: Client, runtime: Handle, bucket: String, key: String) -> Self {
        S3Reader {
            client,
            runtime,
            bucket,
            key,
            offset: 0,
            body: None,
            chunk: Bytes::new(),
            failures: 0,
            ended: false,
        }
    }

    /// Requests the object from `offset` on. A missing key, a missing
    /// bucket or a refusal is not retried (the SDK already retried what
    /// is transient).
    fn request(&self) -> io::Result<ByteStream> {
        let mut request = self.client.get_object().bucket(&self.bucket).key(&self.key);
        if self.offset > 0 {
            request = request.range(format!("bytes={}-", self.offset));
        }
        let key = self.key.clone();
        let sent = run_on(&self.runtime, request.send()).map_err(io_error)?;
        let out = sent.map_err(|e| io_error(s3_error("GetObject", &key, e)))?;
        Ok(out.body)
    }

    /// The next chunk into `self.chunk`; false at the end of the object.
    fn next_chunk(&mut self) -> io::Result<bool> {
        loop {
            let body = match self.body.take() {
                Some(body) => body,
                None => self.request()?,
            };
            let next = async move {
                let mut body = body;
                let next = body.try_next().await;
                (body, next)
            };
            let (body, next) = run_on(&self.runtime, next).map_err(io_error)?;
            match next {
                Ok(Some(chunk)) => {
                    self.body = Some(body);
                    self.chunk = chunk;
                    self.failures = 0;
                    return Ok(true);
                }
                Ok(None) => return Ok(false),
                Err(e) if self.failures < RETRIES => {
                    self.failures += 1;
                    tracing::warn!(
                        key = %self.key,
                        offset = self.offset,
                        "S3 object body broke off, requesting the rest: {}",
                        DisplayErrorContext(e)
                    );
                }
                Err(e) => {
                    return Err(io::Error::other(format!(
                        "S3 GetObject of {} broke off at byte {}: {}",
                        self.key,
                        self.offset,
                        DisplayErrorContext(e)
                    )))
                }
            }
        }
    }
}

impl Read for S3Reader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        while self.chunk.is_empty() {
            if self.ended || !self.next_chunk()? {
                self.ended = true;
                return Ok(0);
            }
        }
        let n = buf.len().min(self.chunk.len());
        buf[..n].copy_from_slice(&self.chunk[..n]);
        self.chunk.advance(n);
        self.offset += n as u64;
        Ok(n)
    }
}

#[cfg(test)]
#[path = "s3_read_tests.rs"]
mod tests;
