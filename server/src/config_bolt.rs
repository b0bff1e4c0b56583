//! The Bolt listener's limits: how many connections, how long a client may
//! take over the handshake or stay silent, how large one message may be.
//! They protect the server from clients that connect too often, stall, or
//! send too much; each limit costs only the offending connection.

use super::ConfigError;
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

    /// A client must finish the Bolt (and TLS) handshake within this time [default: 30000]
    #[arg(long, env = "NEREID_BOLT_HANDSHAKE_TIMEOUT_MS", value_name = "MS")]
    pub bolt_handshake_timeout_ms: Option<u64>,

    /// A connection that sends nothing for this long is closed (0: never) [default: 1800000]
    #[arg(long, env = "NEREID_BOLT_IDLE_TIMEOUT_MS", value_name = "MS")]
    pub bolt_idle_timeout_ms: Option<u64>,

    /// The largest Bolt message accepted; a larger one gets a
    /// Request.Invalid failure and the connection is closed [default: 67108864]
    #[arg(long, env = "NEREID_BOLT_MAX_MESSAGE_BYTES", value_name = "BYTES")]
    pub bolt_max_message_bytes: Option<usize>,
}

/// The same settings in the TOML file.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct BoltLimitFile {
    pub bolt_max_connections: Option<usize>,
    pub bolt_handshake_timeout_ms: Option<u64>,
    pub bolt_idle_timeout_ms: Option<u64>,
    pub bolt_max_message_bytes: Option<usize>,
}

/// The resolved limits.
#[derive(Debug, Clone, PartialEq)]
pub struct BoltLimits {
    pub max_connections: usize,
    pub handshake_timeout: Duration,
    /// `None`: connections may stay idle forever.
    pub idle_timeout: Option<Duration>,
    pub max_message_size: usize,
}

impl Default for BoltLimits {
    fn default() -> Self {
        BoltLimits::resolve(&BoltLimitArgs::default(), &BoltLimitFile::default()).unwrap_or(
            BoltLimits {
                max_connections: DEFAULT_BOLT_MAX_CONNECTIONS,
                handshake_timeout: Duration::from_millis(DEFAULT_BOLT_HANDSHAKE_TIMEOUT_MS),
                idle_timeout: Some(Duration::from_millis(DEFAULT_BOLT_IDLE_TIMEOUT_MS)),
                max_message_size: DEFAULT_BOLT_MAX_MESSAGE_BYTES,
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
        Ok(BoltLimits {
            max_connections,
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
        ] {
            assert!(BoltLimits::resolve(&cli, &BoltLimitFile::default()).is_err());
        }
    }
}
