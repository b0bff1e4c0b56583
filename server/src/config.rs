//! Server configuration: command-line flags, environment variables and an
//! optional TOML file.
//!
//! Precedence, highest first: flags > environment > TOML file > defaults.
//! Clap merges flags and environment (every setting is an `Option`, so
//! "not given" stays visible); the file and the defaults fill the gaps.

use clap::Parser;
use nereid_engine::{
    checkpoint_target_from_uri, CheckpointTarget, DurableConfig, DEFAULT_QUERY_MAX_MEMORY,
    DEFAULT_S3_REGION, DEFAULT_STATISTICS_UPDATE_PERCENT,
};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use thiserror::Error;

#[path = "config_bolt.rs"]
mod bolt_limits;
pub use bolt_limits::{BoltLimitArgs, BoltLimitFile, BoltLimits};
#[path = "config_auth.rs"]
mod auth_settings;
#[path = "config_prefixes.rs"]
mod prefixes;
#[path = "config_timeout.rs"]
mod transaction_timeout;
pub use auth_settings::{AuthArgs, AuthFile, AuthHashing};

pub const DEFAULT_DATA_DIR: &str = "./data";
pub const DEFAULT_BOLT_ADDRESS: &str = "127.0.0.1:7687";
pub const DEFAULT_HTTP_ADDRESS: &str = "127.0.0.1:7474";
pub const DEFAULT_PARTITIONS: usize = 4;
pub const DEFAULT_LOG: &str = "info";

/// The shape of the server's log lines (`--log-format`).
#[derive(clap::ValueEnum, Deserialize, Debug, Default, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LogFormat {
    /// One human-readable line per event.
    #[default]
    Text,
    /// One JSON object per event (`timestamp`, `level`, `target`, `fields`).
    Json,
}

/// Nereid: a graph database server speaking Bolt and openCypher.
///
/// Every setting can also come from an environment variable or from the
/// TOML file named by --config (keys: data_dir, import_dir, bolt_address, http_address,
/// partitions, exec_threads, query_threads, log, log_format, statistics_update_percent, query_max_memory, transaction_timeout, prefixes,
/// query_log, slow_query_ms, query_log_redact,
/// durability, checkpoint_uri,
/// checkpoint_log_bytes, checkpoint_interval_ms, checkpoint_on_shutdown,
/// s3_endpoint, s3_region, wal_segment_bytes, log_partitions, auth, no_auth, tls_cert, tls_key, http_tls,
/// bolt_max_connections, bolt_reserved_connections, bolt_handshake_timeout_ms,
/// bolt_idle_timeout_ms, bolt_max_message_bytes, bolt_max_buffered_bytes,
/// auth_file, auth_hash_concurrency, auth_hash_rate). Flags win over the environment, which wins
/// over the file.
#[derive(Parser, Debug, Default, Clone)]
#[command(name = "nereid", version)]
pub struct Cli {
    /// Directory of the database files [default: ./data]
    #[arg(long, env = "NEREID_DATA_DIR", value_name = "DIR", global = true)]
    pub data_dir: Option<PathBuf>,

    /// Directory `file://` load sources must lie in (Neo4j's
    /// server.directories.import) [default: <data-dir>/import]
    #[arg(long, env = "NEREID_IMPORT_DIR", value_name = "DIR")]
    pub import_dir: Option<PathBuf>,

    /// Address the Bolt listener binds to [default: 127.0.0.1:7687]
    #[arg(long, env = "NEREID_BOLT_ADDRESS", value_name = "HOST:PORT")]
    pub bolt_address: Option<String>,

    /// Address the HTTP listener (health, admin) binds to [default: 127.0.0.1:7474]
    #[arg(long, env = "NEREID_HTTP_ADDRESS", value_name = "HOST:PORT")]
    pub http_address: Option<String>,

    /// Optional TOML configuration file
    #[arg(long, env = "NEREID_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Number of data partitions per dimension, a power of two; fixed when the
    /// data directory is created (later values are ignored) [default: 4]
    #[arg(long, env = "NEREID_PARTITIONS", value_name = "N")]
    pub partitions: Option<usize>,

    /// Threads executing queries [default: number of CPU cores]
    #[arg(long, env = "NEREID_EXEC_THREADS", value_name = "N")]
    pub exec_threads: Option<usize>,

    /// Threads one read-only query may run its expands, filters and
    /// projections on when the planner estimates it long (a `Gather` in
    /// EXPLAIN); 1 runs every query on one thread [default: number of CPU
    /// cores]
    #[arg(long, env = "NEREID_QUERY_THREADS", value_name = "N")]
    pub query_threads: Option<usize>,

    /// Log filter, e.g. `info` or `nereid_server=debug,info` [default: info]
    #[arg(long, env = "NEREID_LOG", value_name = "FILTER")]
    pub log: Option<String>,

    /// How log lines are written to standard output: `text` for people,
    /// `json` (one JSON object per line) for log collectors [default: text]
    #[arg(long, env = "NEREID_LOG_FORMAT", value_name = "FORMAT")]
    pub log_format: Option<LogFormat>,

    /// Rebuild the optimizer statistics in the background once this many
    /// percent of the property values and relationships they count were
    /// deleted or overwritten since the last build (0: never) [default: 10]
    #[arg(long, env = "NEREID_STATISTICS_UPDATE_PERCENT", value_name = "PERCENT")]
    pub statistics_update_percent: Option<u32>,

    /// Append a line per finished query (time, ids, elapsed ms, rows,
    /// client, user, text, parameters, metadata, failure) to FILE, in the
    /// shape of Neo4j's query.log [default: no query log]
    #[arg(long, env = "NEREID_QUERY_LOG", value_name = "FILE")]
    pub query_log: Option<PathBuf>,

    /// With --query-log, log only queries that took at least this many
    /// milliseconds (a slow-query log) [default: 0, every query]
    #[arg(long, env = "NEREID_SLOW_QUERY_MS", value_name = "MS")]
    pub slow_query_ms: Option<u64>,

    /// With --query-log, write parameter names only, not their values
    #[arg(long, env = "NEREID_QUERY_LOG_REDACT")]
    pub query_log_redact: bool,

    /// A OneGraph prefix declared for every query, as NAME=IRI (repeat the
    /// flag; in the environment variable, separate them with spaces):
    /// `ex::name` then needs no `PREFIX ex: <...>` line, and a query's own
    /// `PREFIX` of the same name wins [default: none]
    #[arg(
        long = "prefix",
        id = "prefixes",
        env = "NEREID_PREFIXES",
        value_name = "NAME=IRI",
        value_delimiter = ' '
    )]
    pub prefixes: Vec<String>,

    /// Bytes one query may hold (its parameters, the values it builds, the
    /// rows a sort or aggregation keeps); over it the query fails with
    /// `Neo.TransientError.General.MemoryPoolOutOfMemoryError` and its
    /// transaction rolls back (0: no limit) [default: 1073741824, 1 GiB]
    #[arg(long, env = "NEREID_QUERY_MAX_MEMORY", value_name = "BYTES")]
    pub query_max_memory: Option<u64>,

    /// How long a transaction may run unless its client gives its own
    /// timeout (which then applies instead): `0` (no limit) or a duration
    /// such as `500ms`, `30s`, `5m`, `1h`. Past it the running query stops
    /// with `Neo.ClientError.Transaction.TransactionTimedOut` and the
    /// transaction rolls back [default: 0]
    #[arg(long, env = "NEREID_TRANSACTION_TIMEOUT", value_name = "DURATION")]
    pub transaction_timeout: Option<String>,

    /// When a commit is acknowledged: `fsync` (after an fsync covering it)
    /// or `interval:<ms>` (after the write; fsync at least every <ms>: an OS
    /// crash or power loss loses at most that window) [default: fsync]
    #[arg(long, env = "NEREID_DURABILITY", value_name = "MODE")]
    pub durability: Option<String>,

    /// Where checkpoints go: `file:///path`, a path, or `s3://bucket/prefix`
    /// (then sealed log segments are shipped there too, and a start with an
    /// empty data directory restores from the bucket; credentials from
    /// AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY) [default: <data-dir>/checkpoints]
    #[arg(long, env = "NEREID_CHECKPOINT_URI", value_name = "URI")]
    pub checkpoint_uri: Option<String>,

    /// Endpoint URL of an S3-compatible server for an s3:// checkpoint URI
    /// and s3:// load sources, e.g. http://127.0.0.1:9000 [default: AWS]
    #[arg(long, env = "NEREID_S3_ENDPOINT", value_name = "URL")]
    pub s3_endpoint: Option<String>,

    /// Region of the s3:// checkpoint bucket and load sources [default: us-east-1]
    #[arg(long, env = "NEREID_S3_REGION", value_name = "REGION")]
    pub s3_region: Option<String>,

    /// Take a checkpoint on clean shutdown; with `false` and an s3:// URI the
    /// log tail is sealed and shipped instead [default: true]
    #[arg(long, env = "NEREID_CHECKPOINT_ON_SHUTDOWN", value_name = "BOOL")]
    pub checkpoint_on_shutdown: Option<bool>,

    /// Checkpoint after this many log bytes (0: never by size) [default: 67108864]
    #[arg(long, env = "NEREID_CHECKPOINT_LOG_BYTES", value_name = "BYTES")]
    pub checkpoint_log_bytes: Option<u64>,

    /// Checkpoint at least this often while commits happen (0: never by time) [default: 0]
    #[arg(long, env = "NEREID_CHECKPOINT_INTERVAL_MS", value_name = "MS")]
    pub checkpoint_interval_ms: Option<u64>,

    /// Log segment size before rotation [default: 67108864]
    #[arg(long, env = "NEREID_WAL_SEGMENT_BYTES", value_name = "BYTES")]
    pub wal_segment_bytes: Option<u64>,

    /// Log partitions written in parallel (each its own segment files,
    /// writer thread and group commit); may change between runs [default:
    /// the number of cores]
    #[arg(long, env = "NEREID_LOG_PARTITIONS", value_name = "N")]
    pub log_partitions: Option<u32>,

    /// A Bolt user to create (or whose password to set), stored hashed in
    /// the data directory; users persist across restarts. Without any
    /// user, any credentials are accepted, and only on loopback. As a flag
    /// the password shows in the process list: prefer NEREID_AUTH or
    /// --auth-file
    #[arg(long, env = "NEREID_AUTH", value_name = "USER/PASSWORD")]
    pub auth: Option<Secret>,

    #[command(flatten)]
    pub auth_settings: AuthArgs,

    /// Accept every client without checking credentials, even on a
    /// non-loopback address
    #[arg(long, env = "NEREID_NO_AUTH")]
    pub no_auth: bool,

    /// PEM certificate chain for Bolt over TLS (bolt+s://); needs --tls-key
    #[arg(long, env = "NEREID_TLS_CERT", value_name = "FILE")]
    pub tls_cert: Option<PathBuf>,

    /// PEM private key of --tls-cert
    #[arg(long, env = "NEREID_TLS_KEY", value_name = "FILE")]
    pub tls_key: Option<PathBuf>,

    /// Serve HTTPS instead of HTTP on the HTTP address, with --tls-cert
    /// and --tls-key
    #[arg(long, env = "NEREID_HTTP_TLS")]
    pub http_tls: bool,

    #[command(flatten)]
    pub bolt_limits: BoltLimitArgs,

    /// What to do instead of serving [default: serve]
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The subcommands; without one, the binary serves.
#[derive(clap::Subcommand, Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Asks GET /health on the configured HTTP address (0.0.0.0 and :: as
    /// loopback) and exits 0 when the server answers 200, 1 otherwise: a
    /// container HEALTHCHECK for images without curl.
    Healthcheck,
    /// Loads CSV files into the data directory while no server runs on it
    /// (neo4j-admin's `database import` habit), with the bulk loader of
    /// `POST /loader`: one atomic load, durable when the command exits 0.
    Import(ImportArgs),
}

/// `nereid import --data-dir D --nodes F... --relationships F...`.
#[derive(clap::Args, Debug, Clone, PartialEq, Eq)]
pub struct ImportArgs {
    /// Node files (repeatable; a comma-separated list is several files)
    #[arg(long, value_name = "FILES", value_delimiter = ',')]
    pub nodes: Vec<PathBuf>,
    /// Relationship files (repeatable; a comma-separated list is several
    /// files), loaded after every node file
    #[arg(long, value_name = "FILES", value_delimiter = ',')]
    pub relationships: Vec<PathBuf>,
    /// `opencypher` (openCypher / neo4j-admin import CSV) or `csv`
    /// (Neptune's `~id` CSV)
    #[arg(long, default_value = "opencypher")]
    pub format: String,
    /// Report bad rows and load the rest, instead of loading nothing
    #[arg(long)]
    pub skip_bad_rows: bool,
}

/// The settings a TOML file may hold; anything else is an error.
#[derive(Deserialize, Debug, Default, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    pub query_log: Option<PathBuf>,
    pub slow_query_ms: Option<u64>,
    pub query_log_redact: Option<bool>,
    pub data_dir: Option<PathBuf>,
    pub import_dir: Option<PathBuf>,
    pub bolt_address: Option<String>,
    pub http_address: Option<String>,
    pub partitions: Option<usize>,
    pub exec_threads: Option<usize>,
    pub query_threads: Option<usize>,
    pub log: Option<String>,
    pub log_format: Option<LogFormat>,
    pub statistics_update_percent: Option<u32>,
    pub query_max_memory: Option<u64>,
    pub transaction_timeout: Option<String>,
    /// `[prefixes]`: `name = "iri"` per prefix.
    pub prefixes: Option<std::collections::BTreeMap<String, String>>,
    pub durability: Option<String>,
    pub checkpoint_uri: Option<String>,
    pub s3_endpoint: Option<String>,
    pub s3_region: Option<String>,
    pub checkpoint_on_shutdown: Option<bool>,
    pub checkpoint_log_bytes: Option<u64>,
    pub checkpoint_interval_ms: Option<u64>,
    pub wal_segment_bytes: Option<u64>,
    pub log_partitions: Option<u32>,
    pub auth: Option<Secret>,
    pub auth_file: Option<PathBuf>,
    pub auth_hash_concurrency: Option<usize>,
    pub auth_hash_rate: Option<u32>,
    pub no_auth: Option<bool>,
    pub tls_cert: Option<PathBuf>,
    pub tls_key: Option<PathBuf>,
    pub http_tls: Option<bool>,
    pub bolt_max_connections: Option<usize>,
    pub bolt_reserved_connections: Option<usize>,
    pub bolt_handshake_timeout_ms: Option<u64>,
    pub bolt_idle_timeout_ms: Option<u64>,
    pub bolt_max_message_bytes: Option<usize>,
    pub bolt_max_buffered_bytes: Option<usize>,
}

/// The resolved configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub data_dir: PathBuf,
    /// Where `file://` load sources must lie.
    pub import_dir: PathBuf,
    pub bolt_address: String,
    pub http_address: String,
    pub partitions: usize,
    pub exec_threads: usize,
    /// Threads one query may run on (see `DbConfig::query_threads`).
    pub query_threads: usize,
    pub log: String,
    pub log_format: LogFormat,
    /// Background statistics rebuild threshold (see `DbConfig`).
    pub statistics_update_percent: u32,
    /// The query log (see `DbConfig`).
    pub query_log: Option<nereid_engine::QueryLogConfig>,
    /// Bytes one query may hold (0: no limit; see `DbConfig`).
    pub query_max_memory: u64,
    /// The server's default transaction timeout (`None`: no limit); a
    /// client's `tx_timeout` replaces it.
    pub transaction_timeout: Option<std::time::Duration>,
    /// OneGraph prefixes `(name, iri)` declared for every query.
    pub prefixes: Vec<(String, String)>,
    /// Durability and checkpoint settings.
    pub durable: DurableConfig,
    /// The S3-compatible endpoint of `s3://` load sources (`None`: AWS),
    /// the one an s3:// checkpoint URI uses too.
    pub s3_endpoint: Option<String>,
    /// The region of `s3://` load sources and checkpoint buckets.
    pub s3_region: String,
    /// `USER/PASSWORD` to create or update at start.
    pub auth: Option<Secret>,
    /// The server-wide budget for password verifications.
    pub auth_hashing: AuthHashing,
    /// Authentication explicitly disabled.
    pub no_auth: bool,
    /// Bolt over TLS with this certificate chain and key (both or neither).
    pub tls_cert: Option<PathBuf>,
    pub tls_key: Option<PathBuf>,
    /// HTTPS on the HTTP address (with the TLS certificate and key).
    pub http_tls: bool,
    /// Connection count, timeouts and message size of the Bolt listener.
    pub bolt_limits: BoltLimits,
}

#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("cannot read the configuration file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("invalid configuration file {path}: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("invalid setting {name}: {message}")]
    Invalid { name: &'static str, message: String },
}

impl Config {
    /// Parses the process's flags and environment, then reads the file;
    /// returns the subcommand given too, if any. `--help`, `--version` and
    /// bad flags exit the process (clap's way).
    pub fn load() -> Result<(Config, Option<Command>), ConfigError> {
        let cli = Cli::parse();
        let command = cli.command.clone();
        Ok((Config::from_cli(cli)?, command))
    }

    /// Reads the TOML file named by `cli.config` (if any) and resolves.
    pub fn from_cli(cli: Cli) -> Result<Config, ConfigError> {
        let file = match &cli.config {
            Some(path) => read_file(path)?,
            None => FileConfig::default(),
        };
        Config::resolve(cli, file)
    }

    /// Applies the precedence: `cli` (flags and environment) over `file`
    /// over the defaults.
    pub fn resolve(cli: Cli, file: FileConfig) -> Result<Config, ConfigError> {
        let durable = resolve_durable(&cli, &file)?;
        let (s3_endpoint, s3_region) = s3_endpoint_and_region(&cli, &file);
        let bolt_limits = BoltLimits::resolve(
            &cli.bolt_limits,
            &BoltLimitFile {
                bolt_max_connections: file.bolt_max_connections,
                bolt_reserved_connections: file.bolt_reserved_connections,
                bolt_handshake_timeout_ms: file.bolt_handshake_timeout_ms,
                bolt_idle_timeout_ms: file.bolt_idle_timeout_ms,
                bolt_max_message_bytes: file.bolt_max_message_bytes,
                bolt_max_buffered_bytes: file.bolt_max_buffered_bytes,
            },
        )?;
        let (auth, auth_hashing) = auth_settings::resolve(
            cli.auth,
            &cli.auth_settings,
            AuthFile {
                auth: file.auth,
                auth_file: file.auth_file,
                auth_hash_concurrency: file.auth_hash_concurrency,
                auth_hash_rate: file.auth_hash_rate,
            },
        )?;
        let transaction_timeout = transaction_timeout::resolve(
            cli.transaction_timeout.as_deref(),
            file.transaction_timeout.as_deref(),
        )?;
        let data_dir = cli
            .data_dir
            .or(file.data_dir)
            .unwrap_or_else(|| PathBuf::from(DEFAULT_DATA_DIR));
        let config = Config {
            import_dir: cli
                .import_dir
                .or(file.import_dir)
                .unwrap_or_else(|| data_dir.join("import")),
            data_dir,
            bolt_address: cli
                .bolt_address
                .or(file.bolt_address)
                .unwrap_or_else(|| DEFAULT_BOLT_ADDRESS.to_string()),
            http_address: cli
                .http_address
                .or(file.http_address)
                .unwrap_or_else(|| DEFAULT_HTTP_ADDRESS.to_string()),
            partitions: cli
                .partitions
                .or(file.partitions)
                .unwrap_or(DEFAULT_PARTITIONS),
            exec_threads: cli
                .exec_threads
                .or(file.exec_threads)
                .unwrap_or_else(default_exec_threads),
            query_threads: cli
                .query_threads
                .or(file.query_threads)
                .unwrap_or_else(default_exec_threads),
            log: cli
                .log
                .or(file.log)
                .unwrap_or_else(|| DEFAULT_LOG.to_string()),
            log_format: cli.log_format.or(file.log_format).unwrap_or_default(),
            statistics_update_percent: cli
                .statistics_update_percent
                .or(file.statistics_update_percent)
                .unwrap_or(DEFAULT_STATISTICS_UPDATE_PERCENT),
            query_max_memory: cli
                .query_max_memory
                .or(file.query_max_memory)
                .unwrap_or(DEFAULT_QUERY_MAX_MEMORY),
            query_log: cli
                .query_log
                .or(file.query_log)
                .map(|path| nereid_engine::QueryLogConfig {
                    path,
                    threshold: std::time::Duration::from_millis(
                        cli.slow_query_ms.or(file.slow_query_ms).unwrap_or(0),
                    ),
                    parameters: !(cli.query_log_redact || file.query_log_redact.unwrap_or(false)),
                }),
            transaction_timeout,
            prefixes: prefixes::resolve(&cli.prefixes, file.prefixes.as_ref())?,
            durable,
            s3_endpoint,
            s3_region,
            auth,
            auth_hashing,
            no_auth: cli.no_auth || file.no_auth.unwrap_or(false),
            tls_cert: cli.tls_cert.or(file.tls_cert),
            tls_key: cli.tls_key.or(file.tls_key),
            http_tls: cli.http_tls || file.http_tls.unwrap_or(false),
            bolt_limits,
        };
        config.validate()?;
        Ok(config)
    }

    fn validate(&self) -> Result<(), ConfigError> {
        if self.partitions == 0 {
            return Err(ConfigError::Invalid {
                name: "partitions",
                message: "must be at least 1".into(),
            });
        }
        if self.tls_cert.is_some() != self.tls_key.is_some() {
            return Err(ConfigError::Invalid {
                name: "tls_cert",
                message: "tls_cert and tls_key go together: give both or neither".into(),
            });
        }
        if self.http_tls && self.tls_cert.is_none() {
            return Err(ConfigError::Invalid {
                name: "http_tls",
                message: "http_tls serves the certificate of tls_cert and tls_key: give them"
                    .into(),
            });
        }
        if self.exec_threads == 0 {
            return Err(ConfigError::Invalid {
                name: "exec_threads",
                message: "must be at least 1".into(),
            });
        }
        if self.query_threads == 0 {
            return Err(ConfigError::Invalid {
                name: "query_threads",
                message: "must be at least 1".into(),
            });
        }
        for (name, address) in [
            ("bolt_address", &self.bolt_address),
            ("http_address", &self.http_address),
        ] {
            if address
                .rsplit_once(':')
                .is_none_or(|(_, port)| port.parse::<u16>().is_err())
            {
                return Err(ConfigError::Invalid {
                    name,
                    message: format!("expected HOST:PORT, got {address:?}"),
                });
            }
        }
        Ok(())
    }
}

/// The S3 endpoint and region (of checkpoint buckets and load sources):
/// flags/environment over the file over defaults.
fn s3_endpoint_and_region(cli: &Cli, file: &FileConfig) -> (Option<String>, String) {
    let endpoint = cli.s3_endpoint.clone().or(file.s3_endpoint.clone());
    let region = cli
        .s3_region
        .clone()
        .or(file.s3_region.clone())
        .unwrap_or_else(|| DEFAULT_S3_REGION.to_string());
    (endpoint, region)
}

/// The durability settings: flags/environment over the file over defaults.
fn resolve_durable(cli: &Cli, file: &FileConfig) -> Result<DurableConfig, ConfigError> {
    let defaults = DurableConfig::default();
    let durability = match cli.durability.as_ref().or(file.durability.as_ref()) {
        Some(text) => text.parse().map_err(|message| ConfigError::Invalid {
            name: "durability",
            message,
        })?,
        None => defaults.durability,
    };
    let (s3_endpoint, s3_region) = s3_endpoint_and_region(cli, file);
    let checkpoint_target = match cli.checkpoint_uri.as_ref().or(file.checkpoint_uri.as_ref()) {
        Some(uri) => {
            checkpoint_target_from_uri(uri, s3_endpoint, s3_region).map_err(|message| {
                ConfigError::Invalid {
                    name: "checkpoint_uri",
                    message,
                }
            })?
        }
        None => CheckpointTarget::InDataDir,
    };
    let wal_segment_bytes = cli
        .wal_segment_bytes
        .or(file.wal_segment_bytes)
        .unwrap_or(defaults.wal_segment_bytes);
    if wal_segment_bytes < 4096 {
        return Err(ConfigError::Invalid {
            name: "wal_segment_bytes",
            message: "must be at least 4096".into(),
        });
    }
    let log_partitions = cli
        .log_partitions
        .or(file.log_partitions)
        .unwrap_or(defaults.log_partitions);
    if !(1..=nereid_engine::MAX_LOG_PARTITIONS).contains(&log_partitions) {
        return Err(ConfigError::Invalid {
            name: "log_partitions",
            message: format!(
                "must be between 1 and {}",
                nereid_engine::MAX_LOG_PARTITIONS
            ),
        });
    }
    Ok(DurableConfig {
        durability,
        checkpoint_target,
        checkpoint_log_bytes: cli
            .checkpoint_log_bytes
            .or(file.checkpoint_log_bytes)
            .unwrap_or(defaults.checkpoint_log_bytes),
        checkpoint_interval: cli
            .checkpoint_interval_ms
            .or(file.checkpoint_interval_ms)
            .filter(|&ms| ms > 0)
            .map(std::time::Duration::from_millis),
        wal_segment_bytes,
        log_partitions,
        checkpoint_on_shutdown: cli
            .checkpoint_on_shutdown
            .or(file.checkpoint_on_shutdown)
            .unwrap_or(defaults.checkpoint_on_shutdown),
    })
}

fn default_exec_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn read_file(path: &Path) -> Result<FileConfig, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    parse_file(&text, path)
}

/// Parses TOML text; unknown keys are rejected with their name.
pub fn parse_file(text: &str, path: &Path) -> Result<FileConfig, ConfigError> {
    toml::from_str(text).map_err(|e| ConfigError::Parse {
        path: path.to_path_buf(),
        message: e.message().to_string(),
    })
}

/// A setting that must never appear in logs or debug output.
#[derive(Clone, PartialEq, Eq, Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Self {
        Secret(value.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(***)")
    }
}

impl std::str::FromStr for Secret {
    type Err = std::convert::Infallible;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(Secret(s.to_string()))
    }
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
