use super::*;
use std::sync::Mutex;

/// Tests that touch NEREID_* variables run one at a time.
static ENV: Mutex<()> = Mutex::new(());

const VARS: [&str; 12] = [
    "NEREID_DATA_DIR",
    "NEREID_BOLT_ADDRESS",
    "NEREID_HTTP_ADDRESS",
    "NEREID_CONFIG",
    "NEREID_PARTITIONS",
    "NEREID_EXEC_THREADS",
    "NEREID_QUERY_THREADS",
    "NEREID_LOG",
    "NEREID_LOG_FORMAT",
    "NEREID_STATISTICS_UPDATE_PERCENT",
    "NEREID_TRANSACTION_TIMEOUT",
    "NEREID_PREFIXES",
];

fn clear_env() {
    for var in VARS {
        std::env::remove_var(var);
    }
}

fn parse(args: &[&str]) -> Cli {
    let mut all = vec!["nereid"];
    all.extend_from_slice(args);
    Cli::try_parse_from(all).unwrap()
}

#[test]
fn defaults_apply_when_nothing_is_set() {
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    clear_env();
    let config = Config::resolve(parse(&[]), FileConfig::default()).unwrap();
    assert_eq!(config.data_dir, PathBuf::from("./data"));
    assert_eq!(config.bolt_address, "127.0.0.1:7687");
    assert_eq!(config.http_address, "127.0.0.1:7474");
    assert_eq!(config.partitions, 4);
    assert_eq!(config.exec_threads, default_exec_threads());
    assert_eq!(config.query_threads, default_exec_threads(), "all cores");
    assert_eq!(config.log, "info");
    assert_eq!(config.transaction_timeout, None, "no limit by default");
}

#[test]
fn the_transaction_timeout_comes_from_flag_environment_or_file() {
    use std::time::Duration;
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    clear_env();
    let file = parse_file("transaction_timeout = '1m'\n", Path::new("t.toml")).unwrap();
    let from_file = Config::resolve(parse(&[]), file.clone()).unwrap();
    assert_eq!(from_file.transaction_timeout, Some(Duration::from_secs(60)));
    std::env::set_var("NEREID_TRANSACTION_TIMEOUT", "250ms");
    let cli = parse(&[]);
    clear_env();
    let from_env = Config::resolve(cli, file.clone()).unwrap();
    assert_eq!(
        from_env.transaction_timeout,
        Some(Duration::from_millis(250))
    );
    let from_flag = Config::resolve(parse(&["--transaction-timeout", "0"]), file).unwrap();
    assert_eq!(
        from_flag.transaction_timeout, None,
        "0 lifts the file's limit"
    );
    let bad = Config::resolve(
        parse(&["--transaction-timeout", "30"]),
        FileConfig::default(),
    );
    let err = bad.unwrap_err().to_string();
    assert!(err.contains("transaction_timeout"), "{err}");
}

#[test]
fn flags_beat_environment_beats_file_beats_defaults() {
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    clear_env();
    let file = parse_file(
        "data_dir = '/file/data'\nbolt_address = '0.0.0.0:1'\nhttp_address = '0.0.0.0:2'\npartitions = 8\nlog = 'warn'\n",
        Path::new("test.toml"),
    )
    .unwrap();
    std::env::set_var("NEREID_BOLT_ADDRESS", "10.0.0.1:7000");
    std::env::set_var("NEREID_HTTP_ADDRESS", "10.0.0.1:7001");
    std::env::set_var("NEREID_EXEC_THREADS", "3");
    let cli = parse(&["--http-address", "localhost:9999"]);
    clear_env();
    let config = Config::resolve(cli, file).unwrap();
    assert_eq!(
        config.http_address, "localhost:9999",
        "flag over env and file"
    );
    assert_eq!(config.bolt_address, "10.0.0.1:7000", "env over file");
    assert_eq!(config.exec_threads, 3, "env over default");
    assert_eq!(
        config.data_dir,
        PathBuf::from("/file/data"),
        "file over default"
    );
    assert_eq!(config.partitions, 8, "file over default");
    assert_eq!(config.log, "warn");
}

#[test]
fn the_file_is_named_by_flag_or_environment() {
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    clear_env();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nereid.toml");
    std::fs::write(&path, "partitions = 2\n").unwrap();
    std::env::set_var("NEREID_CONFIG", &path);
    let cli = parse(&[]);
    clear_env();
    assert_eq!(Config::from_cli(cli).unwrap().partitions, 2);

    let missing = parse(&["--config", "/nonexistent/nereid.toml"]);
    let err = Config::from_cli(missing).unwrap_err();
    assert!(matches!(err, ConfigError::Read { .. }), "{err}");
}

#[test]
fn prefixes_come_from_the_environment_over_the_files_table() {
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    clear_env();
    std::env::set_var(
        "NEREID_PREFIXES",
        "ex=http://example.org/ dc=http://purl.org/dc/terms/",
    );
    let cli = parse(&[]);
    clear_env();
    let file = parse_file(
        "[prefixes]\nex = 'http://file.org/'\nfoaf = 'http://xmlns.com/foaf/0.1/'\n",
        Path::new("n.toml"),
    )
    .unwrap();
    let prefixes = Config::resolve(cli, file).unwrap().prefixes;
    let pair = |n: &str, i: &str| (n.to_string(), i.to_string());
    assert_eq!(
        prefixes,
        vec![
            pair("dc", "http://purl.org/dc/terms/"),
            pair("ex", "http://example.org/"),
            pair("foaf", "http://xmlns.com/foaf/0.1/"),
        ]
    );
}

#[test]
fn unknown_toml_keys_are_rejected_by_name() {
    let err = parse_file("data_dir = 'x'\nbolt_adress = 'y'\n", Path::new("n.toml")).unwrap_err();
    let text = err.to_string();
    assert!(text.contains("bolt_adress"), "{text}");
    assert!(text.contains("n.toml"), "{text}");
    assert!(parse_file("partitions = 'four'", Path::new("n.toml")).is_err());
}

#[test]
fn invalid_values_are_rejected() {
    let file = FileConfig {
        partitions: Some(0),
        ..FileConfig::default()
    };
    assert!(Config::resolve(Cli::default(), file).is_err());
    let file = FileConfig {
        bolt_address: Some("localhost".into()),
        ..FileConfig::default()
    };
    let err = Config::resolve(Cli::default(), file).unwrap_err();
    assert!(err.to_string().contains("bolt_address"), "{err}");
}

#[test]
fn help_documents_every_setting() {
    use clap::CommandFactory;
    let help = Cli::command().render_long_help().to_string();
    for needle in [
        "--data-dir",
        "NEREID_DATA_DIR",
        "--bolt-address",
        "NEREID_BOLT_ADDRESS",
        "--http-address",
        "--config",
        "--partitions",
        "--exec-threads",
        "NEREID_LOG",
        "NEREID_LOG_FORMAT",
        "--transaction-timeout",
        "NEREID_TRANSACTION_TIMEOUT",
        "--prefix",
        "NEREID_PREFIXES",
        "127.0.0.1:7687",
    ] {
        assert!(help.contains(needle), "help lacks {needle}:\n{help}");
    }
}

#[test]
fn durability_and_checkpoint_settings_resolve_and_are_checked() {
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    clear_env();
    let config = Config::resolve(parse(&[]), FileConfig::default()).unwrap();
    assert_eq!(config.durable, nereid_engine::DurableConfig::default());
    let file = FileConfig {
        durability: Some("fsync".into()),
        checkpoint_uri: Some("file:///var/backups/nereid".into()),
        checkpoint_interval_ms: Some(60_000),
        ..FileConfig::default()
    };
    let config = Config::resolve(
        parse(&["--durability", "interval:25", "--wal-segment-bytes", "8192"]),
        file,
    )
    .unwrap();
    assert_eq!(
        config.durable.durability,
        nereid_engine::Durability::Interval(std::time::Duration::from_millis(25))
    );
    assert_eq!(
        config.durable.checkpoint_target,
        CheckpointTarget::Dir(PathBuf::from("/var/backups/nereid"))
    );
    assert_eq!(
        config.durable.checkpoint_interval,
        Some(std::time::Duration::from_secs(60))
    );
    assert_eq!(config.durable.wal_segment_bytes, 8192);
    for bad in [
        &["--durability", "sometimes"][..],
        &["--checkpoint-uri", "s3:///prefix"][..],
        &["--checkpoint-uri", "gs://bucket/prefix"][..],
        &["--wal-segment-bytes", "10"][..],
    ] {
        let err = Config::resolve(parse(bad), FileConfig::default()).unwrap_err();
        assert!(matches!(err, ConfigError::Invalid { .. }), "{bad:?}: {err}");
    }
}

#[test]
fn log_partitions_come_from_the_flag_or_the_file_and_are_bounded() {
    let defaults = Config::resolve(parse(&[]), FileConfig::default()).unwrap();
    assert!(defaults.durable.log_partitions >= 1);
    let file = FileConfig {
        log_partitions: Some(3),
        ..FileConfig::default()
    };
    let from_file = Config::resolve(parse(&[]), file.clone()).unwrap();
    assert_eq!(from_file.durable.log_partitions, 3);
    let from_flag = Config::resolve(parse(&["--log-partitions", "4"]), file).unwrap();
    assert_eq!(from_flag.durable.log_partitions, 4);
    for bad in ["0", "100000"] {
        let err =
            Config::resolve(parse(&["--log-partitions", bad]), FileConfig::default()).unwrap_err();
        assert!(matches!(err, ConfigError::Invalid { .. }), "{bad}: {err}");
    }
}

#[test]
fn the_statistics_threshold_comes_from_the_flag_or_the_file() {
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    clear_env();
    let defaults = Config::resolve(parse(&[]), FileConfig::default()).unwrap();
    assert_eq!(defaults.statistics_update_percent, 10);
    let file = parse_file("statistics_update_percent = 0\n", Path::new("n.toml")).unwrap();
    let from_file = Config::resolve(parse(&[]), file.clone()).unwrap();
    assert_eq!(from_file.statistics_update_percent, 0);
    let cli = parse(&["--statistics-update-percent", "25"]);
    assert_eq!(
        Config::resolve(cli, file)
            .unwrap()
            .statistics_update_percent,
        25
    );
    assert!(Cli::try_parse_from(["nereid", "--statistics-update-percent", "-1"]).is_err());
}

#[test]
fn the_log_format_comes_from_the_flag_or_the_file_and_is_checked() {
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    clear_env();
    let defaults = Config::resolve(parse(&[]), FileConfig::default()).unwrap();
    assert_eq!(defaults.log_format, LogFormat::Text);
    let file = parse_file("log_format = 'json'\n", Path::new("n.toml")).unwrap();
    let from_file = Config::resolve(parse(&[]), file.clone()).unwrap();
    assert_eq!(from_file.log_format, LogFormat::Json);
    let cli = parse(&["--log-format", "text"]);
    assert_eq!(
        Config::resolve(cli, file).unwrap().log_format,
        LogFormat::Text
    );
    assert!(Cli::try_parse_from(["nereid", "--log-format", "xml"]).is_err());
    assert!(parse_file("log_format = 'xml'\n", Path::new("n.toml")).is_err());
}

#[test]
fn auth_settings_come_from_flags_or_the_file_and_never_print() {
    let _env = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let cli = Cli::try_parse_from(["nereid", "--auth", "neo4j/s3cret", "--no-auth"]).unwrap();
    let config = Config::resolve(cli, FileConfig::default()).unwrap();
    assert_eq!(
        config.auth.as_ref().map(Secret::expose),
        Some("neo4j/s3cret")
    );
    assert!(config.no_auth);
    assert!(!format!("{config:?}").contains("s3cret"));

    let file = parse_file("auth = \"u/p\"\nno_auth = false\n", Path::new("x.toml")).unwrap();
    let config = Config::resolve(Cli::default(), file).unwrap();
    assert_eq!(config.auth.as_ref().map(Secret::expose), Some("u/p"));
    assert!(!config.no_auth);
}

#[test]
fn hardening_limits_come_from_flags_and_the_file() {
    let _env = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let file = parse_file(
        "bolt_reserved_connections = 3\nbolt_max_buffered_bytes = 200000000\nauth_hash_rate = 2\nauth_hash_concurrency = 1\n",
        Path::new("h.toml"),
    )
    .unwrap();
    let config = Config::resolve(Cli::default(), file.clone()).unwrap();
    assert_eq!(config.bolt_limits.reserved_connections, 3);
    assert_eq!(config.bolt_limits.max_buffered_bytes, 200_000_000);
    assert_eq!(config.auth_hashing.per_second, 2);
    assert_eq!(config.auth_hashing.concurrency, 1);
    let cli = Cli::try_parse_from([
        "nereid",
        "--bolt-reserved-connections",
        "7",
        "--auth-hash-rate",
        "9",
    ])
    .unwrap();
    let config = Config::resolve(cli, file).unwrap();
    assert_eq!(config.bolt_limits.reserved_connections, 7);
    assert_eq!(config.auth_hashing.per_second, 9);
}

#[test]
fn tls_needs_both_files() {
    let _env = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let only_cert = FileConfig {
        tls_cert: Some("cert.pem".into()),
        ..FileConfig::default()
    };
    let err = Config::resolve(Cli::default(), only_cert).unwrap_err();
    assert!(err.to_string().contains("tls_key"), "{err}");
    let both = parse_file(
        "tls_cert = \"c.pem\"\ntls_key = \"k.pem\"\n",
        Path::new("x.toml"),
    )
    .unwrap();
    let config = Config::resolve(Cli::default(), both).unwrap();
    assert_eq!(config.tls_key.as_deref(), Some(Path::new("k.pem")));
}

#[test]
fn an_s3_checkpoint_uri_takes_endpoint_and_region_from_their_settings() {
    let _env = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let file = parse_file(
        "checkpoint_uri = \"s3://backups/nereid/prod\"\ns3_region = \"eu-west-1\"\ncheckpoint_on_shutdown = false\n",
        Path::new("x.toml"),
    )
    .unwrap();
    let config = Config::resolve(parse(&["--s3-endpoint", "http://127.0.0.1:9000"]), file).unwrap();
    assert_eq!(
        config.durable.checkpoint_target,
        CheckpointTarget::S3(nereid_engine::S3Location {
            bucket: "backups".into(),
            prefix: "nereid/prod".into(),
            endpoint: Some("http://127.0.0.1:9000".into()),
            region: "eu-west-1".into(),
        })
    );
    assert!(!config.durable.checkpoint_on_shutdown);
    let defaults = Config::resolve(
        parse(&["--checkpoint-uri", "s3://b"]),
        FileConfig::default(),
    )
    .unwrap();
    match defaults.durable.checkpoint_target {
        CheckpointTarget::S3(at) => {
            assert_eq!((at.region.as_str(), at.endpoint), (DEFAULT_S3_REGION, None));
        }
        other => panic!("expected S3, got {other:?}"),
    }
}

#[test]
fn query_threads_come_from_flag_or_file_and_must_be_positive() {
    let _guard = ENV.lock().unwrap_or_else(|e| e.into_inner());
    clear_env();
    let file = parse_file("query_threads = 3\n", Path::new("t.toml")).unwrap();
    let from_file = Config::resolve(parse(&[]), file.clone()).unwrap();
    assert_eq!(from_file.query_threads, 3);
    let from_flag = Config::resolve(parse(&["--query-threads", "1"]), file).unwrap();
    assert_eq!(from_flag.query_threads, 1, "flag over file");
    let zero = Config::resolve(parse(&["--query-threads", "0"]), FileConfig::default());
    assert!(
        matches!(
            zero,
            Err(ConfigError::Invalid {
                name: "query_threads",
                ..
            })
        ),
        "{zero:?}"
    );
}
