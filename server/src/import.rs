//! `nereid import`: the offline load (neo4j-admin's `database import`
//! habit). It opens the data directory as the server would (so a running
//! server's lock refuses it), runs one load of the files named through the
//! database's bulk loader (the path of `POST /loader`: one atomic commit,
//! made durable by a checkpoint before the command reports success), shows
//! its progress on stderr, and closes the database cleanly.

use crate::config::{Config, ImportArgs};
use nereid_engine::{
    Database, DbConfig, InputFormat, LoadMode, LoadRequest, LoadState, LoadStatus,
};
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::time::Duration;

/// Runs the import; the process's exit code (0: loaded and durable).
pub fn run(config: &Config, args: &ImportArgs) -> ExitCode {
    match import(config, args) {
        Ok(status) => {
            eprintln!("{}", summary(&status));
            ExitCode::SUCCESS
        }
        Err(why) => {
            eprintln!("nereid import: {why}");
            ExitCode::FAILURE
        }
    }
}

fn import(config: &Config, args: &ImportArgs) -> Result<LoadStatus, String> {
    let format = InputFormat::from_name(&args.format)
        .ok_or_else(|| format!("unknown format `{}`", args.format))?;
    if args.nodes.is_empty() && args.relationships.is_empty() {
        return Err("nothing to import: give --nodes and/or --relationships files".into());
    }
    let files: Vec<_> = args
        .nodes
        .iter()
        .chain(&args.relationships)
        .cloned()
        .collect();
    let db_config = DbConfig {
        import_dir: config.import_dir.clone(),
        s3_endpoint: config.s3_endpoint.clone(),
        s3_region: config.s3_region.clone(),
        ..DbConfig::new(config.data_dir.clone(), config.partitions)
    };
    let db = Database::open_with(&db_config, &config.durable).map_err(|e| {
        format!(
            "cannot open the database in {}: {e:#}",
            config.data_dir.display()
        )
    })?;
    let request = LoadRequest {
        source: format!("nereid import ({} files)", files.len()),
        format,
        fail_on_error: !args.skip_bad_rows,
        mode: LoadMode::New,
    };
    let terminal = std::io::stderr().is_terminal();
    // A terminal gets one line redrawn often; a log gets a line now and then.
    let every = Duration::from_millis(if terminal { 200 } else { 5000 });
    let mut show = |status: &LoadStatus| {
        let line = progress(status);
        let mut err = std::io::stderr();
        let _ = match terminal {
            true => write!(err, "\r\x1b[2K{line}"),
            false => writeln!(err, "{line}"),
        };
    };
    let outcome = db
        .loader()
        .and_then(|loader| loader.run_files(files, request, every, &mut show))
        .map_err(|e| e.message);
    if terminal {
        eprintln!();
    }
    db.shutdown();
    let status = outcome?;
    match (status.state, &status.failure) {
        (LoadState::Completed, _) => Ok(status),
        (_, Some(failure)) => Err(format!("{}: {}", failure.status.code(), failure.message)),
        (state, None) => Err(format!("the load ended {}", state.name())),
    }
}

/// `[reading] 3/8 files, 120000 records, 41% of 52 MB, about 4 s left`.
fn progress(s: &LoadStatus) -> String {
    let mut line = format!(
        "[{}] {}/{} files, {} records",
        s.phase.name(),
        s.files_done,
        s.files_total,
        s.records
    );
    if let Some(percent) = (s.bytes * 100).checked_div(s.bytes_total) {
        line += &format!(
            ", {}% of {} MB",
            percent.min(100),
            s.bytes_total.div_ceil(1 << 20)
        );
    }
    if let Some(left) = s.reading_time_left() {
        line += &format!(", about {} s left", left.as_secs() + 1);
    }
    if s.error_count > 0 {
        line += &format!(", {} bad rows", s.error_count);
    }
    line
}

fn summary(s: &LoadStatus) -> String {
    let mut text = format!(
        "imported {} records ({} property values) from {} files in {:.2} s",
        s.records - s.error_count.min(s.records),
        s.property_values,
        s.files_total,
        s.elapsed.as_secs_f64()
    );
    if s.error_count > 0 {
        text += &format!("; {} bad rows skipped:", s.error_count);
        for e in &s.errors {
            text += &format!("\n  {}:{}:{}: {}", e.file, e.line, e.column, e.message);
        }
    }
    text
}
