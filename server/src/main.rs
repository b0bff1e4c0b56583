//! The `nereid` binary: configuration, logging, database, listeners, and a
//! clean exit on SIGINT/SIGTERM (with a final checkpoint); `nereid
//! healthcheck` probes a running server instead, `nereid import` loads files offline. Startup problems end in a one-line message
//! and a non-zero exit code, never a panic trace.

use anyhow::Context;
use nereid_engine::{Database, DbConfig};
use nereid_server::app;
use nereid_server::config::{Command, Config, LogFormat};
use std::process::ExitCode;

/// mimalloc on 2 MiB pages (crate `nereid-alloc`, ADR 0066).
#[global_allocator]
static ALLOCATOR: nereid_alloc::Allocator = nereid_alloc::Allocator;

fn main() -> ExitCode {
    nereid_alloc::prefer_huge_pages();
    let config = match Config::load() {
        Ok((config, None)) => config,
        Ok((config, Some(Command::Healthcheck))) => {
            return match nereid_server::healthcheck::check(&config.http_address, config.http_tls) {
                Ok(()) => ExitCode::SUCCESS,
                Err(why) => {
                    eprintln!("nereid healthcheck: {why}");
                    ExitCode::FAILURE
                }
            };
        }
        Ok((config, Some(Command::Import(args)))) => {
            return nereid_server::import::run(&config, &args);
        }
        Err(e) => {
            eprintln!("nereid: {e}");
            return ExitCode::from(2);
        }
    };
    let filter = match tracing_subscriber::EnvFilter::try_new(&config.log) {
        Ok(filter) => filter,
        Err(e) => {
            eprintln!("nereid: invalid log filter {:?}: {e}", config.log);
            return ExitCode::from(2);
        }
    };
    // Colours only for a terminal: log files and CI output stay plain text.
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stdout());
    let logs = tracing_subscriber::fmt().with_env_filter(filter);
    match config.log_format {
        LogFormat::Text => logs.with_ansi(ansi).init(),
        LogFormat::Json => logs.json().init(),
    }

    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("nereid: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(config)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::error!("{e:#}");
            eprintln!("nereid: {e:#}");
            ExitCode::FAILURE
        }
    }
}

async fn run(config: Config) -> anyhow::Result<()> {
    let db_config = DbConfig {
        statistics_update_percent: config.statistics_update_percent,
        query_max_memory: usize::try_from(config.query_max_memory).unwrap_or(usize::MAX),
        query_threads: config.query_threads,
        import_dir: config.import_dir.clone(),
        s3_endpoint: config.s3_endpoint.clone(),
        s3_region: config.s3_region.clone(),
        query_log: config.query_log.clone(),
        settings: nereid_server::settings::of(&config),
        prefixes: config.prefixes.clone(),
        ..DbConfig::new(config.data_dir.clone(), config.partitions)
    };
    // Opening recovers from the log: blocking work, off the I/O threads.
    let durable_config = config.durable.clone();
    let db = tokio::task::spawn_blocking(move || Database::open_with(&db_config, &durable_config))
        .await
        .context("opening the database failed")?
        .with_context(|| format!("cannot open the database in {}", config.data_dir.display()))?;
    let loader = db
        .loader()
        .map_err(|e| anyhow::anyhow!("{}", e.message))
        .context("cannot start the loader")?;
    let server = app::start_with_loader(db.clone(), &config, Some(loader)).await?;
    tracing::info!("Bolt listening on {}", server.bolt_address);
    tracing::info!("HTTP listening on {}", server.http_address);
    wait_for_shutdown_signal().await?;
    tracing::info!("shutting down");
    server.shutdown().await;
    // A final checkpoint, so that the next start replays little of the log.
    tokio::task::spawn_blocking(move || db.shutdown())
        .await
        .context("the shutdown checkpoint panicked")?;
    Ok(())
}

async fn wait_for_shutdown_signal() -> anyhow::Result<()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut terminate =
            signal(SignalKind::terminate()).context("cannot install the SIGTERM handler")?;
        tokio::select! {
            result = tokio::signal::ctrl_c() => result.context("cannot wait for SIGINT")?,
            _ = terminate.recv() => {}
        }
    }
    #[cfg(not(unix))]
    tokio::signal::ctrl_c()
        .await
        .context("cannot wait for Ctrl-C")?;
    Ok(())
}
