//! The log's error type.

use std::path::PathBuf;

/// Errors raised by the log and by checkpoints.
#[derive(Debug, thiserror::Error)]
pub enum WalError {
    #[error("log I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// Damage that is not a torn tail (see the `recovery` module for the
    /// rule). Names the file and the byte offset so that an operator can
    /// inspect (or, deliberately, truncate) it.
    #[error("log file {} is corrupt at byte {offset}: {reason}", file.display())]
    Corrupt {
        file: PathBuf,
        offset: u64,
        reason: String,
    },
    #[error("{} is not a nereid log file (bad magic bytes)", .0.display())]
    NotALog(PathBuf),
    #[error("{} has log format version {found}; this build reads version {supported}", file.display())]
    UnsupportedVersion {
        file: PathBuf,
        found: u32,
        supported: u32,
    },
    /// The `apply` callback rejected a record during recovery.
    #[error("replaying the log record at byte {offset} of {} failed: {reason}", file.display())]
    Replay {
        file: PathBuf,
        offset: u64,
        reason: String,
    },
    /// A checkpoint whose manifest exists is damaged: recovery refuses to
    /// guess (the log before it may already be deleted).
    #[error("checkpoint file {} is corrupt: {reason}", file.display())]
    CheckpointCorrupt { file: PathBuf, reason: String },
    #[error("values of type {0} cannot be written to the log")]
    Unencodable(&'static str),
    #[error("log record of {0} bytes exceeds the maximum record size")]
    RecordTooLarge(usize),
    /// An earlier write or fsync failed; nothing is accepted any more, so no
    /// commit can be acknowledged without being durable.
    #[error("the log failed and accepts no more commits: {0}")]
    Failed(String),
}
