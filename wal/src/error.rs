//! The log's error type.

/// Errors raised by the log.
#[derive(Debug, thiserror::Error)]
pub enum WalError {
    #[error("log I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// Damage that is not a torn tail (see the crate docs for the rule).
    #[error("log corrupt at byte {offset}: {reason}")]
    Corrupt { offset: u64, reason: String },
    #[error("not a nereid log file (bad magic bytes)")]
    NotALog,
    #[error("unsupported log format version {found} (this build reads version {supported})")]
    UnsupportedVersion { found: u32, supported: u32 },
    /// The `apply` callback rejected a record during recovery.
    #[error("replaying the log record at byte {offset} failed: {reason}")]
    Replay { offset: u64, reason: String },
    #[error("values of type {0} cannot be written to the log")]
    Unencodable(&'static str),
    #[error("log record of {0} bytes exceeds the maximum record size")]
    RecordTooLarge(usize),
    /// An earlier write or fsync failed; nothing is accepted any more, so no
    /// commit can be acknowledged without being durable.
    #[error("the log failed and accepts no more commits: {0}")]
    Failed(String),
}
