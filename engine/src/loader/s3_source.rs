//! Load sources in an S3-compatible bucket, read through the log crate's
//! S3 client (the one checkpoints use, reached through the same
//! `--s3-endpoint` / `--s3-region`, credentials from the environment).
//!
//! `s3://bucket/key` is the object `key` when there is one; otherwise
//! every object under `key/` (every key below, S3 having no directories)
//! whose name has the format's extension, plain, `.gz` or `.zst`, in key
//! order, as a `file://` directory's files are taken. `s3://bucket` alone
//! is the whole bucket. Listing happens when the load runs, so a missing
//! bucket, a refusal or an unreachable endpoint makes the load
//! `LOAD_FAILED` with the URI in its error, like an unreadable file.

use std::sync::Arc;

use nereid_loader_formats::InputFormat;
use nereid_wal::{ObjectStore, S3Location, S3Store, WalError};

use super::source::{has_extension, none_listed, refused, InputFile};
use crate::db::DbError;

/// How the loader reaches S3: an S3-compatible endpoint (`None`: AWS) and
/// the region.
#[derive(Clone, Debug)]
pub(crate) struct S3Settings {
    pub(crate) endpoint: Option<String>,
    pub(crate) region: String,
}

/// Whether `source` names a bucket rather than files.
pub(crate) fn is_s3(source: &str) -> bool {
    source.starts_with("s3://")
}

/// The objects `source` names (see the module documentation).
pub(crate) fn list(
    source: &str,
    settings: &S3Settings,
    format: InputFormat,
) -> Result<Vec<InputFile>, DbError> {
    let failed = |e: WalError| refused(format!("source `{source}`: {e}"));
    let location = S3Location::parse(source, settings.endpoint.clone(), settings.region.clone())
        .map_err(|e| refused(format!("source {e}")))?;
    let key = location.prefix.clone();
    let bucket = S3Location {
        prefix: String::new(),
        ..location
    };
    let store = Arc::new(S3Store::connect(bucket).map_err(failed)?);
    let objects = store.objects(&key).map_err(failed)?;
    let object = |(key, size)| InputFile::Object {
        store: store.clone(),
        key,
        size,
    };
    if let Some(one) = objects.iter().find(|(k, _)| *k == key) {
        return Ok(vec![object(one.clone())]);
    }
    let under = if key.is_empty() {
        String::new()
    } else {
        format!("{key}/")
    };
    let files: Vec<InputFile> = objects
        .into_iter()
        .filter(|(k, _)| k.starts_with(&under) && has_extension(k, format))
        .map(object)
        .collect();
    if files.is_empty() {
        return Err(none_listed(
            &format!("source `{source}`"),
            format,
            "objects",
        ));
    }
    Ok(files)
}

/// One object for `LOAD CSV FROM 's3://bucket/key'`: its name and a reader
/// streaming it. The key must name an object (no prefix listing: a query
/// reads one file per source row, as with `file:///`).
pub(crate) fn open_object(
    source: &str,
    settings: &S3Settings,
) -> Result<(String, Box<dyn std::io::Read + Send>), String> {
    let location = S3Location::parse(source, settings.endpoint.clone(), settings.region.clone())
        .map_err(|e| e.to_string())?;
    let key = location.prefix.clone();
    if key.is_empty() {
        return Err(format!("{source} names a bucket, not an object"));
    }
    let bucket = S3Location {
        prefix: String::new(),
        ..location
    };
    let store = S3Store::connect(bucket).map_err(|e| e.to_string())?;
    let found = store.objects(&key).map_err(|e| e.to_string())?;
    if !found.iter().any(|(k, _)| *k == key) {
        return Err(format!("there is no object {source}"));
    }
    let name = store.location(&key).display().to_string();
    let reader = store.reader(&key);
    Ok((
        name,
        Box::new(ObjectReader {
            reader,
            _store: store,
        }),
    ))
}

/// An object's reader with the client whose runtime it reads through (the
/// runtime stops when the client is dropped).
struct ObjectReader {
    reader: nereid_wal::S3Reader,
    _store: S3Store,
}

impl std::io::Read for ObjectReader {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.reader.read(buf)
    }
}
