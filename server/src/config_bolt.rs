//! The Bolt listener's limits: how many connections, how long a client may
//! take over the handshake or stay silent, how large one message may be.
//! They protect the server from clients that connect too often, stall, or
//! send too much; each limit costs only the offending connection, and the
//! reserve and the buffer budget keep floods of unauthenticated clients
//! from costing everyone else.

use super::ConfigError;
use crate::bolt::budget::default_budget;
use crate::bolt::slots::default_reserve;
use std::time::Duration;

pub const DEFAULT_BOLT_MAX_CONNECTIONS: usize = 1000;
pub const DEFAULT_BOLT_HANDSHAKE_TIMEOUT_MS: u64 = 30_000;
/// Half an hour: far beyond any driver's pool idle time, so pooled
/// connections are not cut under a working application.
pub const DEFAULT_BOLT_IDLE_TIMEOUT_MS: u64 = 30 * 60 * 1000;
pub const DEFAULT_BOLT_MAX_MESSAGE_BYTES: usize = 64 * 1024 * 1024;

/// The flags (and environment variables) of the limits.
#[derive(clap::Args, Debug, Default, Clone)]
pub struct BoltLimitArgs {
    /// Bolt connections served at once; one more gets a transient
    /// NoThreadsAvailable failure and is closed [default: 1000]
    #[arg(long, env = "NEREID_BOLT_MAX_CONNECTIONS", value_name = "N")]
    pub bolt_max_connections: Option<usize>,

    /// Connection slots kept for authenticated clients: unauthenticated
    /// connections hold at most the others, and a new one over that share
    /// closes the oldest unauthenticated one [default: a tenth of
    /// --bolt-max-connections, at least 4]
    #[arg(long, env = "NEREID_BOLT_RESERVED_CONNECTIONS", value_name = "N")]
    pub bolt_reserved_connections: Option<usize>,

    /// A client must finish the Bolt (and TLS) handshake within this time,
    /// and authenticate (HELLO/LOGON) within this time of connecting [default: 30000]
    #[arg(long, env = "NEREID_BOLT_HANDSHAKE_TIMEOUT_MS", value_name = "MS")]
    pub bolt_handshake_timeout_ms: Option<u64>,

    /// A connection that sends nothing for this long is closed (0: never) [default: 1800000]
    #[arg(long, env = "NEREID_BOLT_IDLE_TIMEOUT_MS", value_name = "MS")]
    pub bolt_idle_timeout_ms: Option<u64>,

    /// The largest Bolt message accepted; a larger one gets a
    /// Request.Invalid failure and the connection is closed [default: 67108864]
    #[arg(long, env = "NEREID_BOLT_MAX_MESSAGE_BYTES", value_name = "BYTES")]
    pub bolt_max_message_bytes: Option<usize>,

    /// Bytes of received but not yet handled messages across all
    /// connections; a connection whose next chunk does not fit gets a
    /// transient NoThreadsAvailable failure and is closed [default: 536870912,
    /// or twice --bolt-max-message-bytes if that is more]
    #[arg(long, env = "NEREID_BOLT_MAX_BUFFERED_BYTES", value_name = "BYTES")]
    pub bolt_max_buffered_bytes: Option<usize>,
}

/// The same settings in the TOML file.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct BoltLimitFile {
    pub bolt_max_connections: Option<usize>,
    pub bolt_reserved_connections: Option<usize>,
    pub bolt_handshake_timeout_ms: Option<u64>,
    pub bolt_idle_timeout_ms: Option<u64>,
    pub bolt_max_message_bytes: Option<usize>,
    pub bolt_max_buffered_bytes: Option<usize>,
}

/// The resolved limits.
#[derive(Debug, Clone, PartialEq)]
pub struct BoltLimits {
    pub max_connections: usize,
    /// Slots only authenticated connections may use.
    pub reserved_connections: usize,
    pub handshake_timeout: Duration,
    /// `None`: connections may stay idle forever.
    pub idle_timeout: Option<Duration>,
    pub max_message_size: usize,
    /// The server-wide budget of buffered incoming message bytes.
    pub max_buffered_bytes: usize,
}

impl Default for BoltLimits {
    fn default() -> Self {
        BoltLimits::resolve(&BoltLimitArgs::default(), &BoltLimitFile::default()).unwrap_or(
            BoltLimits {
                max_connections: DEFAULT_BOLT_MAX_CONNECTIONS,
                reserved_connections: default_reserve(DEFAULT_BOLT_MAX_CONNECTIONS),
                handshake_timeout: Duration::from_millis(DEFAULT_BOLT_HANDSHAKE_TIMEOUT_MS),
                idle_timeout: Some(Duration::from_millis(DEFAULT_BOLT_IDLE_TIMEOUT_MS)),
                max_message_size: DEFAULT_BOLT_MAX_MESSAGE_BYTES,
                max_buffered_bytes: default_budget(DEFAULT_BOLT_MAX_MESSAGE_BYTES),
            },
        )
    }
}

impl BoltLimits {
    /// Flags and environment over the file over the defaults.
    pub fn resolve(cli: &BoltLimitArgs, file: &BoltLimitFile) -> Result<BoltLimits, ConfigError> {
        let max_connections = cli
            .bolt_max_connections
            .or(file.bolt_max_connections)
            .unwrap_or(DEFAULT_BOLT_MAX_CONNECTIONS);
        let handshake_ms = cli
            .bolt_handshake_timeout_ms
            .or(file.bolt_handshake_timeout_ms)
            .unwrap_or(DEFAULT_BOLT_HANDSHAKE_TIMEOUT_MS);
        let idle_ms = cli
            .bolt_idle_timeout_ms
            .or(file.bolt_idle_timeout_ms)
            .unwrap_or(DEFAULT_BOLT_IDLE_TIMEOUT_MS);
        let max_message_size = cli
            .bolt_max_message_bytes
            .or(file.bolt_max_message_bytes)
            .unwrap_or(DEFAULT_BOLT_MAX_MESSAGE_BYTES);
        let positive = |name, value: u64| {
            if value == 0 {
                Err(ConfigError::Invalid {
                    name,
                    message: "must be at least 1".into(),
                })
            } else {
                Ok(())
            }
        };
        positive("bolt_max_connections", max_connections as u64)?;
        positive("bolt_handshake_timeout_ms", handshake_ms)?;
        // HELLO with a user agent and credentials must fit.
        if max_message_size < 1024 {
            return Err(ConfigError::Invalid {
                name: "bolt_max_message_bytes",
                message: "must be at least 1024".into(),
            });
        }
        let reserved_connections = cli
            .bolt_reserved_connections
            .or(file.bolt_reserved_connections)
            .unwrap_or_else(|| default_reserve(max_connections));
        if reserved_connections >= max_connections {
            return Err(ConfigError::Invalid {
                name: "bolt_reserved_connections",
                message: format!(
                    "must be less than bolt_max_connections ({max_connections}): \
                     unauthenticated clients need a slot to log in"
                ),
            });
        }
        let max_buffered_bytes = cli
            .bolt_max_buffered_bytes
            .or(file.bolt_max_buffered_bytes)
            .unwrap_or_else(|| default_budget(max_message_size));
        if max_buffered_bytes < max_message_size {
            return Err(ConfigError::Invalid {
                name: "bolt_max_buffered_bytes",
                message: format!("must be at least bolt_max_message_bytes ({max_message_size})"),
            });
        }
        Ok(BoltLimits {
            max_connections,
            reserved_connections,
            max_buffered_bytes,
            handshake_timeout: Duration::from_millis(handshake_ms),
            idle_timeout: (idle_ms > 0).then(|| Duration::from_millis(idle_ms)),
            max_message_size,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_win_over_the_file_and_zero_idle_means_never() {
        let cli = BoltLimitArgs {
            bolt_max_connections: Some(2),
            bolt_idle_timeout_ms: Some(0),
            ..Default::default()
        };
        let file = BoltLimitFile {
            bolt_max_connections: Some(5),
            bolt_max_message_bytes: Some(4096),
            ..Default::default()
        };
        let limits = BoltLimits::resolve(&cli, &file).unwrap();
        assert_eq!(limits.max_connections, 2);
        assert_eq!(limits.idle_timeout, None);
        assert_eq!(limits.max_message_size, 4096);
        assert_eq!(limits.handshake_timeout, Duration::from_secs(30));
        assert_eq!(limits.reserved_connections, 1);
        assert_eq!(limits.max_buffered_bytes, default_budget(4096));
        assert_eq!(
            BoltLimits::default().idle_timeout,
            Some(Duration::from_secs(1800))
        );
    }

    #[test]
    fn nonsensical_limits_are_refused() {
        for cli in [
            BoltLimitArgs {
                bolt_max_connections: Some(0),
                ..Default::default()
            },
            BoltLimitArgs {
                bolt_handshake_timeout_ms: Some(0),
                ..Default::default()
            },
            BoltLimitArgs {
                bolt_max_message_bytes: Some(10),
                ..Default::default()
            },
            BoltLimitArgs {
                bolt_max_connections: Some(5),
                bolt_reserved_connections: Some(5),
                ..Default::default()
            },
            BoltLimitArgs {
                bolt_max_message_bytes: Some(1 << 20),
                bolt_max_buffered_bytes: Some(1 << 19),
                ..Default::default()
            },
        ] {
            assert!(BoltLimits::resolve(&cli, &BoltLimitFile::default()).is_err());
        }
    }
}
