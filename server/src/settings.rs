//! What `SHOW SETTINGS` lists: every setting of the configuration file (the
//! same names as its keys, flags and environment variables), the value in
//! effect, the default, and the flag's help as the description. The engine
//! only shows them (`DbConfig::settings`); the server knows them.

use crate::config::{Cli, Config, FileConfig};
use nereid_dfe::Setting;
use nereid_engine::CheckpointTarget;
use std::time::Duration;

/// One setting: its file key and how to read its value off a [`Config`].
type Reader = fn(&Config) -> String;

const SETTINGS: &[(&str, Reader)] = &[
    ("data_dir", |c| c.data_dir.display().to_string()),
    ("import_dir", |c| c.import_dir.display().to_string()),
    ("bolt_address", |c| c.bolt_address.clone()),
    ("http_address", |c| c.http_address.clone()),
    ("partitions", |c| c.partitions.to_string()),
    ("exec_threads", |c| c.exec_threads.to_string()),
    ("query_threads", |c| c.query_threads.to_string()),
    ("log", |c| c.log.clone()),
    ("log_format", |c| {
        format!("{:?}", c.log_format).to_lowercase()
    }),
    ("statistics_update_percent", |c| {
        c.statistics_update_percent.to_string()
    }),
    ("query_max_memory", |c| c.query_max_memory.to_string()),
    ("transaction_timeout", |c| duration(c.transaction_timeout)),
    ("prefixes", |c| {
        c.prefixes
            .iter()
            .map(|(name, iri)| format!("{name}={iri}"))
            .collect::<Vec<_>>()
            .join(" ")
    }),
    ("query_log", |c| {
        c.query_log
            .as_ref()
            .map_or(String::new(), |l| l.path.display().to_string())
    }),
    ("slow_query_ms", |c| {
        c.query_log
            .as_ref()
            .map_or(0, |l| l.threshold.as_millis())
            .to_string()
    }),
    ("query_log_redact", |c| {
        c.query_log
            .as_ref()
            .is_some_and(|l| !l.parameters)
            .to_string()
    }),
    ("durability", |c| c.durable.durability.to_string()),
    ("checkpoint_uri", |c| match &c.durable.checkpoint_target {
        CheckpointTarget::InDataDir => String::new(),
        CheckpointTarget::Dir(path) => path.display().to_string(),
        CheckpointTarget::S3(s3) => format!("s3://{}/{}", s3.bucket, s3.prefix),
    }),
    ("s3_endpoint", |c| match &c.durable.checkpoint_target {
        CheckpointTarget::S3(s3) => s3.endpoint.clone().unwrap_or_default(),
        _ => String::new(),
    }),
    ("s3_region", |c| match &c.durable.checkpoint_target {
        CheckpointTarget::S3(s3) => s3.region.clone(),
        _ => String::new(),
    }),
    ("checkpoint_log_bytes", |c| {
        c.durable.checkpoint_log_bytes.to_string()
    }),
    ("checkpoint_interval_ms", |c| {
        c.durable
            .checkpoint_interval
            .map_or(0, |d| d.as_millis())
            .to_string()
    }),
    ("checkpoint_on_shutdown", |c| {
        c.durable.checkpoint_on_shutdown.to_string()
    }),
    ("wal_segment_bytes", |c| {
        c.durable.wal_segment_bytes.to_string()
    }),
    ("log_partitions", |c| c.durable.log_partitions.to_string()),
    // The user and password are never shown; only whether they were given.
    ("auth", |c| {
        if c.auth.is_some() {
            "********".into()
        } else {
            String::new()
        }
    }),
    ("no_auth", |c| c.no_auth.to_string()),
    ("auth_hash_concurrency", |c| {
        c.auth_hashing.concurrency.to_string()
    }),
    ("auth_hash_rate", |c| c.auth_hashing.per_second.to_string()),
    ("tls_cert", |c| path(&c.tls_cert)),
    ("tls_key", |c| path(&c.tls_key)),
    ("http_tls", |c| c.http_tls.to_string()),
    ("bolt_max_connections", |c| {
        c.bolt_limits.max_connections.to_string()
    }),
    ("bolt_reserved_connections", |c| {
        c.bolt_limits.reserved_connections.to_string()
    }),
    ("bolt_handshake_timeout_ms", |c| {
        c.bolt_limits.handshake_timeout.as_millis().to_string()
    }),
    ("bolt_idle_timeout_ms", |c| {
        c.bolt_limits
            .idle_timeout
            .map_or(0, |d| d.as_millis())
            .to_string()
    }),
    ("bolt_max_message_bytes", |c| {
        c.bolt_limits.max_message_size.to_string()
    }),
    ("bolt_max_buffered_bytes", |c| {
        c.bolt_limits.max_buffered_bytes.to_string()
    }),
];

/// The settings of `config`, each with its default and description.
pub fn of(config: &Config) -> Vec<Setting> {
    let defaults = Config::resolve(Cli::default(), FileConfig::default()).ok();
    let command = <Cli as clap::CommandFactory>::command();
    SETTINGS
        .iter()
        .map(|(name, read)| {
            let value = read(config);
            let default_value = defaults.as_ref().map(read).unwrap_or_default();
            Setting {
                name: name.to_string(),
                explicitly_set: value != default_value,
                value,
                default_value,
                description: description(&command, name),
            }
        })
        .collect()
}

/// The flag's help, without its `[default: ...]` note (shown apart).
fn description(command: &clap::Command, name: &str) -> String {
    let help = command
        .get_arguments()
        .chain(command.get_subcommands().flat_map(|c| c.get_arguments()))
        .find(|arg| arg.get_id().as_str() == name)
        .and_then(|arg| arg.get_long_help().or(arg.get_help()))
        .map(|help| help.to_string())
        .unwrap_or_default();
    let help = help.split(" [default:").next().unwrap_or_default();
    help.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn duration(d: Option<Duration>) -> String {
    d.map_or(String::new(), |d| format!("{}ms", d.as_millis()))
}

fn path(p: &Option<std::path::PathBuf>) -> String {
    p.as_ref()
        .map_or(String::new(), |p| p.display().to_string())
}
