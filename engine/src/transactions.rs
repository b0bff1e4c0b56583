//! The transactions running now, for `SHOW TRANSACTIONS` and `TERMINATE
//! TRANSACTIONS`: each one listed from its beginning to its end with who
//! runs it ([`Client`], as the front end describes its connection), its
//! metadata, and the query it runs now. Terminating one marks it (its next
//! statement or commit fails with `Transaction.Terminated`) and cancels its
//! running query at the next batch, as a RESET would.
//!
//! Listing is by weak reference and ends when the transaction's owner
//! drops its [`Listed`], so every way a transaction ends unlists it.

use nereid_dfe::{RunningQuery, RunningTransaction, TxMetadata};
use nereid_values::Value;
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Instant, SystemTime};

/// Who runs a transaction, as its front end describes the connection.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Client {
    /// `bolt-17`, `http-3`, or empty in process.
    pub connection_id: String,
    /// The peer's `ip:port`.
    pub address: String,
    /// The authenticated user; empty without authentication.
    pub username: String,
    /// `bolt`, `http` or `embedded`.
    pub protocol: &'static str,
    /// The server address the client connected to.
    pub request_uri: String,
    /// What the client may run (`privileges.rs`).
    pub access: Access,
    /// The session is in read access mode: a statement that writes is
    /// refused before it runs.
    pub read_only: bool,
}

/// What an authenticated client may run, as the front end found it when
/// the statement arrived.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Access {
    /// Authentication is off (or the caller is in the same process).
    #[default]
    Unrestricted,
    /// A user with these granted roles (`PUBLIC` is implied).
    Roles(Vec<String>),
    /// A user whose password must be changed before anything else.
    PasswordChangeRequired,
}

impl Client {
    /// A caller in the same process (tests, tools, the offline import).
    pub fn embedded() -> Client {
        Client {
            protocol: "embedded",
            ..Client::default()
        }
    }
}

/// Every transaction of the database that has not ended.
#[derive(Default)]
pub(crate) struct Registry {
    next: AtomicU64,
    next_query: AtomicU64,
    running: Mutex<BTreeMap<u64, Weak<Running>>>,
}

/// One listed transaction.
pub(crate) struct Running {
    seq: u64,
    client: Client,
    metadata: Arc<TxMetadata>,
    started_at: SystemTime,
    started: Instant,
    query: Mutex<Option<Current>>,
    terminated: AtomicBool,
}

struct Current {
    seq: u64,
    text: Arc<str>,
    parameters: Arc<BTreeMap<String, Value>>,
    started_at: SystemTime,
    started: Instant,
    cancel: Option<Arc<AtomicBool>>,
}

/// Keeps a transaction listed while it lives (owned by the transaction's
/// owner: an explicit `Transaction` or an auto-commit `QueryResult`).
pub(crate) struct Listed {
    registry: Weak<Registry>,
    running: Arc<Running>,
}

/// Parameter values larger than this are shown by their size only, so
/// listing a query never copies a large parameter.
const SHOWN_VALUE_BYTES: usize = 4096;

/// The parameters as `SHOW TRANSACTIONS` and the query log show them.
/// Applied when they are shown, not when a query starts: a running query's
/// entry shares the executor's parameters instead of copying them.
pub(crate) fn shown(params: &BTreeMap<String, Value>) -> BTreeMap<String, Value> {
    params
        .iter()
        .map(|(k, v)| {
            let shown = match v.footprint() {
                n if n <= SHOWN_VALUE_BYTES => v.clone(),
                n => Value::String(format!("<{n} bytes, not shown>")),
            };
            (k.clone(), shown)
        })
        .collect()
}

/// The prefix of transaction ids (one database).
const ID_PREFIX: &str = "neo4j-transaction-";

impl Registry {
    pub(crate) fn list(self: &Arc<Self>, client: Client, metadata: Arc<TxMetadata>) -> Listed {
        let seq = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let running = Arc::new(Running {
            seq,
            client,
            metadata,
            started_at: SystemTime::now(),
            started: Instant::now(),
            query: Mutex::new(None),
            terminated: AtomicBool::new(false),
        });
        self.running.lock().insert(seq, Arc::downgrade(&running));
        Listed {
            registry: Arc::downgrade(self),
            running,
        }
    }

    /// Every running transaction, oldest first.
    pub(crate) fn views(&self) -> Vec<RunningTransaction> {
        let running: Vec<Arc<Running>> = self
            .running
            .lock()
            .values()
            .filter_map(Weak::upgrade)
            .collect();
        running.iter().map(|r| r.view()).collect()
    }

    /// Terminates transaction `id`; false when no such transaction runs.
    pub(crate) fn terminate(&self, id: &str) -> bool {
        let Some(seq) = id
            .strip_prefix(ID_PREFIX)
            .and_then(|n| n.parse::<u64>().ok())
        else {
            return false;
        };
        let Some(running) = self.running.lock().get(&seq).and_then(Weak::upgrade) else {
            return false;
        };
        running.terminated.store(true, Ordering::Relaxed);
        if let Some(cancel) = running.query.lock().as_ref().and_then(|q| q.cancel.clone()) {
            cancel.store(true, Ordering::Relaxed);
        }
        true
    }
}

impl Listed {
    pub(crate) fn is_terminated(&self) -> bool {
        self.running.terminated.load(Ordering::Relaxed)
    }

    /// Records `text` as the query the transaction runs now; returns its
    /// mark, which `query_ended` takes.
    pub(crate) fn query_started(
        &self,
        text: &str,
        parameters: Arc<BTreeMap<String, Value>>,
        cancel: Option<Arc<AtomicBool>>,
    ) -> QueryMark {
        let registry = self.registry.upgrade();
        let seq = registry.map_or(0, |r| r.next_query.fetch_add(1, Ordering::Relaxed) + 1);
        let text: Arc<str> = Arc::from(text);
        *self.running.query.lock() = Some(Current {
            seq,
            text: Arc::clone(&text),
            parameters: Arc::clone(&parameters),
            started_at: SystemTime::now(),
            started: Instant::now(),
            cancel,
        });
        QueryMark {
            running: Arc::clone(&self.running),
            seq,
            text,
            parameters,
        }
    }
}

impl Drop for Listed {
    fn drop(&mut self) {
        if let Some(registry) = self.registry.upgrade() {
            registry.running.lock().remove(&self.running.seq);
        }
    }
}

/// A query's place as its transaction's current query: cleared when the
/// query's result is dropped (unless a later query replaced it).
pub(crate) struct QueryMark {
    running: Arc<Running>,
    seq: u64,
    text: Arc<str>,
    parameters: Arc<BTreeMap<String, Value>>,
}

impl QueryMark {
    /// Whether the query's transaction was terminated (its cancellation
    /// then reports `Transaction.Terminated`).
    pub(crate) fn terminated(&self) -> bool {
        self.running.terminated.load(Ordering::Relaxed)
    }

    /// Writes the finished query to `log`.
    pub(crate) fn log(
        &self,
        log: &crate::query_log::QueryLog,
        elapsed: std::time::Duration,
        rows: u64,
        failure: Option<(nereid_errors::Status, &str)>,
    ) {
        log.record(&crate::query_log::Entry {
            query_id: &format!("query-{}", self.seq),
            transaction_id: &format!("{ID_PREFIX}{}", self.running.seq),
            elapsed,
            rows,
            client: &self.running.client,
            text: &self.text,
            parameters: &shown(&self.parameters),
            metadata: &self.running.metadata.get(),
            failure,
        });
    }
}

impl Drop for QueryMark {
    fn drop(&mut self) {
        let mut query = self.running.query.lock();
        if query.as_ref().is_some_and(|q| q.seq == self.seq) {
            *query = None;
        }
    }
}

impl Running {
    fn view(&self) -> RunningTransaction {
        let query = self.query.lock().as_ref().map(|q| RunningQuery {
            id: format!("query-{}", q.seq),
            text: q.text.to_string(),
            parameters: shown(&q.parameters),
            started: q.started_at,
            elapsed: q.started.elapsed(),
        });
        RunningTransaction {
            id: format!("{ID_PREFIX}{}", self.seq),
            connection_id: self.client.connection_id.clone(),
            client_address: self.client.address.clone(),
            username: self.client.username.clone(),
            protocol: self.client.protocol.to_string(),
            request_uri: self.client.request_uri.clone(),
            metadata: self.metadata.get(),
            started: self.started_at,
            elapsed: self.started.elapsed(),
            query,
            terminated: self.terminated.load(Ordering::Relaxed),
        }
    }
}
