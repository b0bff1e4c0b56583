//! The query log (`--query-log FILE`): one line per finished query, in the
//! shape of Neo4j's `query.log` — time, level, query id, transaction id,
//! elapsed time, rows, client, user, query text, parameters, transaction
//! metadata, and for a failure its status code and message. With a slow
//! threshold only queries that took at least that long are written.
//!
//! Lines are written whole and flushed under a lock, so `tail -f` sees
//! each as it ends; the log is off unless configured.

use nereid_errors::Status;
use nereid_values::temporal::chrono::{DateTime, Utc};
use nereid_values::Value;
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

/// Where and what to log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QueryLogConfig {
    /// Appended to; created when missing.
    pub path: PathBuf,
    /// Only queries that took at least this long (zero: every query).
    pub threshold: Duration,
    /// Whether parameter values are written (else only their names).
    pub parameters: bool,
}

pub(crate) struct QueryLog {
    config: QueryLogConfig,
    out: Mutex<BufWriter<File>>,
}

/// One finished query.
pub(crate) struct Entry<'a> {
    pub(crate) query_id: &'a str,
    pub(crate) transaction_id: &'a str,
    pub(crate) elapsed: Duration,
    pub(crate) rows: u64,
    pub(crate) client: &'a crate::transactions::Client,
    pub(crate) text: &'a str,
    pub(crate) parameters: &'a BTreeMap<String, Value>,
    pub(crate) metadata: &'a BTreeMap<String, Value>,
    pub(crate) failure: Option<(Status, &'a str)>,
}

impl QueryLog {
    pub(crate) fn open(config: QueryLogConfig) -> std::io::Result<QueryLog> {
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&config.path)?;
        Ok(QueryLog {
            config,
            out: Mutex::new(BufWriter::new(file)),
        })
    }

    pub(crate) fn record(&self, entry: &Entry<'_>) {
        if entry.elapsed < self.config.threshold {
            return;
        }
        let line = self.line(entry);
        let mut out = self.out.lock();
        // A full disk must not fail the query that was logged.
        if let Err(e) = out.write_all(line.as_bytes()).and_then(|()| out.flush()) {
            tracing::warn!("cannot write the query log: {e}");
        }
    }

    fn line(&self, e: &Entry<'_>) -> String {
        let now: DateTime<Utc> = SystemTime::now().into();
        let level = if e.failure.is_some() {
            "ERROR"
        } else {
            "INFO "
        };
        let parameters = if self.config.parameters {
            Value::Map(e.parameters.clone()).to_string()
        } else {
            let names: Vec<&str> = e.parameters.keys().map(String::as_str).collect();
            format!("{{{}}}", names.join(", "))
        };
        let client = match e.client.address.is_empty() {
            true => e.client.protocol.to_string(),
            false => format!(
                "{}\t{}\t{}",
                e.client.protocol, e.client.connection_id, e.client.address
            ),
        };
        let mut line = format!(
            "{} {level} id:{} - transaction id:{} - {} ms: {} rows - {client} - {} - {} - {} - {}",
            now.format("%Y-%m-%d %H:%M:%S%.3f%z"),
            e.query_id,
            e.transaction_id,
            e.elapsed.as_millis(),
            e.rows,
            e.client.username,
            e.text.replace('\n', " "),
            parameters,
            Value::Map(e.metadata.clone()),
        );
        if let Some((status, message)) = e.failure {
            line += &format!(" - {}: {}", status.code(), message.replace('\n', " "));
        }
        line.push('\n');
        line
    }
}
