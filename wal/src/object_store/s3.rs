//! [`ObjectStore`] over an S3-compatible bucket (AWS S3, MinIO, moto, ...)
//! through `aws-sdk-s3`.
//!
//! Settings for S3-compatible servers (docs/adr/0041-durable-object-store.md):
//! an explicit endpoint URL, path-style addressing, checksums only when an
//! operation requires them (several S3-compatible servers reject the SDK's
//! default per-request CRC32 / aws-chunked bodies), a pinned behavior
//! version so an SDK upgrade cannot change defaults silently, and static
//! credentials from `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY`
//! (optionally `AWS_SESSION_TOKEN`).
//!
//! The checkpoint code is synchronous (it runs on plain threads), so the
//! store owns a small tokio runtime and waits for each request on a
//! channel. It never calls `Runtime::block_on`, which would panic on a
//! thread that is already inside a runtime (an HTTP handler's blocking
//! task, for example).

use super::s3_read::S3Reader;
use super::ObjectStore;
use crate::error::WalError;
use aws_sdk_s3::config::{
    BehaviorVersion, Credentials, Region, RequestChecksumCalculation, ResponseChecksumValidation,
};
use aws_sdk_s3::error::DisplayErrorContext;
use aws_sdk_s3::primitives::ByteStream;
use aws_sdk_s3::types::{CompletedMultipartUpload, CompletedPart};
use aws_sdk_s3::Client;
use std::future::Future;
use std::path::PathBuf;

/// Objects larger than this are uploaded in parts.
pub const MULTIPART_THRESHOLD: usize = 16 << 20;
/// Size of each part of a multipart upload (S3's minimum is 5 MiB, except
/// for the last part).
pub const MULTIPART_PART_BYTES: usize = 8 << 20;

/// Where the objects go: `s3://bucket/prefix` plus how to reach the server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct S3Location {
    pub bucket: String,
    /// Key prefix without leading or trailing `/` (may be empty).
    pub prefix: String,
    /// Endpoint URL of an S3-compatible server (`None`: AWS itself).
    pub endpoint: Option<String>,
    pub region: String,
}

impl S3Location {
    /// Parses `s3://bucket/prefix` (the prefix is optional).
    pub fn parse(uri: &str, endpoint: Option<String>, region: String) -> Result<Self, String> {
        let rest = uri
            .strip_prefix("s3://")
            .ok_or_else(|| format!("{uri:?} is not an s3:// URI"))?;
        let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
        if bucket.is_empty() {
            return Err(format!("{uri:?} names no bucket"));
        }
        Ok(S3Location {
            bucket: bucket.to_string(),
            prefix: prefix.trim_matches('/').to_string(),
            endpoint,
            region,
        })
    }

    fn key(&self, key: &str) -> String {
        if self.prefix.is_empty() {
            key.to_string()
        } else {
            format!("{}/{key}", self.prefix)
        }
    }
}

/// A bucket (and key prefix) holding checkpoints and shipped segments.
pub struct S3Store {
    location: S3Location,
    client: Client,
    /// Always `Some` until drop (taken there to shut down without blocking).
    runtime: Option<tokio::runtime::Runtime>,
    part_bytes: usize,
    multipart_threshold: usize,
}

pub(super) fn s3_error(op: &str, key: &str, e: impl std::error::Error) -> WalError {
    WalError::Io(std::io::Error::other(format!(
        "S3 {op} of {key} failed: {}",
        DisplayErrorContext(e)
    )))
}

impl S3Store {
    /// Connects (lazily: no request is made here) with credentials from the
    /// environment.
    pub fn connect(location: S3Location) -> Result<Self, WalError> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        let (Some(access_key), Some(secret_key)) =
            (var("AWS_ACCESS_KEY_ID"), var("AWS_SECRET_ACCESS_KEY"))
        else {
            return Err(WalError::Io(std::io::Error::other(
                "an s3:// URI needs AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment",
            )));
        };
        let credentials = Credentials::new(
            access_key,
            secret_key,
            var("AWS_SESSION_TOKEN"),
            None,
            "environment",
        );
        Self::connect_with(location, credentials)
    }

    /// [`S3Store::connect`] with the credentials given (tests use it, the
    /// environment being shared by every test thread).
    pub(super) fn connect_with(
        location: S3Location,
        credentials: Credentials,
    ) -> Result<Self, WalError> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("nereid-s3")
            .enable_all()
            .build()?;
        let mut loader = aws_config::defaults(BehaviorVersion::v2026_01_12())
            .region(Region::new(location.region.clone()))
            .credentials_provider(credentials);
        if let Some(endpoint) = &location.endpoint {
            loader = loader.endpoint_url(endpoint);
        }
        let shared = run_on(runtime.handle(), loader.load())?;
        let config = aws_sdk_s3::config::Builder::from(&shared)
            .force_path_style(true)
            .request_checksum_calculation(RequestChecksumCalculation::WhenRequired)
            .response_checksum_validation(ResponseChecksumValidation::WhenRequired)
            .build();
        Ok(S3Store {
            location,
            client: Client::from_conf(config),
            runtime: Some(runtime),
            part_bytes: MULTIPART_PART_BYTES,
            multipart_threshold: MULTIPART_THRESHOLD,
        })
    }

    /// Changes the multipart sizes (tests use small ones).
    pub fn with_multipart(mut self, threshold: usize, part_bytes: usize) -> Self {
        self.multipart_threshold = threshold;
        self.part_bytes = part_bytes.max(1);
        self
    }

    fn run<T: Send + 'static>(
        &self,
        future: impl Future<Output = T> + Send + 'static,
    ) -> Result<T, WalError> {
        run_on(self.handle(), future)
    }

    fn handle(&self) -> &tokio::runtime::Handle {
        let runtime = self.runtime.as_ref().expect("the runtime lives until drop");
        runtime.handle()
    }

    /// Every object whose key starts with `prefix`, with its size in bytes,
    /// sorted by key (a bulk load lists its source with this).
    pub fn objects(&self, prefix: &str) -> Result<Vec<(String, u64)>, WalError> {
        let full_prefix = self.location.key(prefix);
        let strip = if self.location.prefix.is_empty() {
            0
        } else {
            self.location.prefix.len() + 1
        };
        let client = self.client.clone();
        let bucket = self.location.bucket.clone();
        let listing = async move {
            let mut objects = Vec::new();
            let mut token: Option<String> = None;
            loop {
                let page = client
                    .list_objects_v2()
                    .bucket(&bucket)
                    .prefix(&full_prefix)
                    .set_continuation_token(token.take())
                    .send()
                    .await
                    .map_err(|e| s3_error("ListObjectsV2", &full_prefix, e))?;
                objects.extend(page.contents().iter().filter_map(|o| {
                    let key = o.key()?.get(strip..)?.to_string();
                    Some((key, o.size().unwrap_or(0).max(0) as u64))
                }));
                match page.next_continuation_token() {
                    Some(next) if page.is_truncated() == Some(true) => token = Some(next.into()),
                    _ => break,
                }
            }
            objects.sort();
            Ok(objects)
        };
        self.run(listing)?
    }

    /// A reader streaming the object under `key` (nothing is requested
    /// until the first read; see [`S3Reader`]). It keeps the store's
    /// runtime busy, so the store must outlive it.
    pub fn reader(&self, key: &str) -> S3Reader {
        S3Reader::new(
            self.client.clone(),
            self.handle().clone(),
            self.location.bucket.clone(),
            self.location.key(key),
        )
    }

    fn put_multipart(&self, key: String, bytes: &[u8]) -> Result<(), WalError> {
        let client = self.client.clone();
        let bucket = self.location.bucket.clone();
        let parts: Vec<Vec<u8>> = bytes.chunks(self.part_bytes).map(<[u8]>::to_vec).collect();
        let upload = async move {
            let created = client
                .create_multipart_upload()
                .bucket(&bucket)
                .key(&key)
                .send()
                .await
                .map_err(|e| s3_error("CreateMultipartUpload", &key, e))?;
            let upload_id = created.upload_id().unwrap_or_default().to_string();
            let mut completed = Vec::with_capacity(parts.len());
            let mut failure = None;
            for (i, part) in parts.into_iter().enumerate() {
                let number = i as i32 + 1;
                match client
                    .upload_part()
                    .bucket(&bucket)
                    .key(&key)
                    .upload_id(&upload_id)
                    .part_number(number)
                    .body(ByteStream::from(part))
                    .send()
                    .await
                {
                    Ok(out) => completed.push(
                        CompletedPart::builder()
                            .set_e_tag(out.e_tag().map(str::to_string))
                            .part_number(number)
                            .build(),
                    ),
                    Err(e) => {
                        failure = Some(s3_error("UploadPart", &key, e));
                        break;
                    }
                }
            }
            if failure.is_none() {
                let done = client
                    .complete_multipart_upload()
                    .bucket(&bucket)
                    .key(&key)
                    .upload_id(&upload_id)
                    .multipart_upload(
                        CompletedMultipartUpload::builder()
                            .set_parts(Some(completed))
                            .build(),
                    )
                    .send()
                    .await;
                match done {
                    Ok(_) => return Ok(()),
                    Err(e) => failure = Some(s3_error("CompleteMultipartUpload", &key, e)),
                }
            }
            // Best effort: an abandoned upload only costs storage.
            let _ = client
                .abort_multipart_upload()
                .bucket(&bucket)
                .key(&key)
                .upload_id(&upload_id)
                .send()
                .await;
            Err(failure.expect("set on every path here"))
        };
        self.run(upload)?
    }
}

/// Runs `future` on `runtime` and waits for it on this (non-async) thread.
pub(super) fn run_on<T: Send + 'static>(
    runtime: &tokio::runtime::Handle,
    future: impl Future<Output = T> + Send + 'static,
) -> Result<T, WalError> {
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    runtime.spawn(async move {
        let _ = tx.send(future.await);
    });
    rx.recv()
        .map_err(|_| WalError::Io(std::io::Error::other("the S3 client runtime stopped")))
}

impl ObjectStore for S3Store {
    fn put(&self, key: &str, bytes: &[u8]) -> Result<(), WalError> {
        let key = self.location.key(key);
        if bytes.len() > self.multipart_threshold {
            return self.put_multipart(key, bytes);
        }
        let request = self
            .client
            .put_object()
            .bucket(&self.location.bucket)
            .key(&key)
            .body(ByteStream::from(bytes.to_vec()))
            .send();
        self.run(request)?
            .map(drop)
            .map_err(|e| s3_error("PutObject", &key, e))
    }

    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, WalError> {
        let key = self.location.key(key);
        let request = self
            .client
            .get_object()
            .bucket(&self.location.bucket)
            .key(&key)
            .send();
        let fetch = async move {
            match request.await {
                Ok(out) => out
                    .body
                    .collect()
                    .await
                    .map(|data| Some(data.into_bytes().to_vec()))
                    .map_err(|e| s3_error("GetObject (body)", &key, e)),
                Err(e) if e.as_service_error().is_some_and(|s| s.is_no_such_key()) => Ok(None),
                Err(e) => Err(s3_error("GetObject", &key, e)),
            }
        };
        self.run(fetch)?
    }

    fn list(&self, prefix: &str) -> Result<Vec<String>, WalError> {
        let objects = self.objects(prefix)?;
        Ok(objects.into_iter().map(|(key, _)| key).collect())
    }

    fn delete(&self, key: &str) -> Result<(), WalError> {
        let key = self.location.key(key);
        let request = self
            .client
            .delete_object()
            .bucket(&self.location.bucket)
            .key(&key)
            .send();
        self.run(request)?
            .map(drop)
            .map_err(|e| s3_error("DeleteObject", &key, e))
    }

    fn location(&self, key: &str) -> PathBuf {
        PathBuf::from(format!(
            "s3://{}/{}",
            self.location.bucket,
            self.location.key(key)
        ))
    }
}

impl Drop for S3Store {
    fn drop(&mut self) {
        // `Runtime`'s own drop blocks, which panics inside an async context.
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s3_uris_parse_into_bucket_and_prefix() {
        let region = "us-east-1".to_string();
        let at = S3Location::parse("s3://bucket/some/prefix/", None, region.clone()).unwrap();
        assert_eq!(
            (at.bucket.as_str(), at.prefix.as_str()),
            ("bucket", "some/prefix")
        );
        assert_eq!(at.key("MANIFEST"), "some/prefix/MANIFEST");
        let bare = S3Location::parse("s3://bucket", None, region.clone()).unwrap();
        assert_eq!(bare.key("MANIFEST"), "MANIFEST");
        assert!(S3Location::parse("s3:///x", None, region.clone()).is_err());
        assert!(S3Location::parse("file:///x", None, region).is_err());
    }
}
