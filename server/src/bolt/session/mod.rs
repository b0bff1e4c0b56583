//! The per-connection Bolt state machine (bolt-protocol.md §8).
//!
//! Invariants:
//! - requests are answered strictly in arrival order;
//! - after one FAILURE every request but RESET/GOODBYE is IGNORED;
//! - RESET is always answered SUCCESS{} and rolls back the open
//!   transaction and drops every open result;
//! - a RESET that is still queued behind other requests interrupts them:
//!   they are answered IGNORED (the INTERRUPTED state);
//! - database calls run on the execution pool, never on this task.

mod auth;
mod database;
mod metadata;
mod run;
mod stopper;
mod stream;
mod timeout;
mod tx;

use super::backend::Backend;
use super::failure::Failure;
use super::pool::PoolError;
use super::request::Request;
use super::response;
use super::version::BoltVersion;
use super::BoltContext;
use nereid_errors::Status;
use nereid_packstream::{EncodeError, PackMap, StructFormat};
use std::fmt;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use thiserror::Error;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::Notify;

/// Server states; DEFUNCT means the connection is being closed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum State {
    Negotiation,
    Authentication,
    Ready,
    Streaming,
    TxReady,
    TxStreaming,
    Failed,
    Interrupted,
    Defunct,
}

impl fmt::Display for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            State::Negotiation => "NEGOTIATION",
            State::Authentication => "AUTHENTICATION",
            State::Ready => "READY",
            State::Streaming => "STREAMING",
            State::TxReady => "TX_READY",
            State::TxStreaming => "TX_STREAMING",
            State::Failed => "FAILED",
            State::Interrupted => "INTERRUPTED",
            State::Defunct => "DEFUNCT",
        })
    }
}

/// Whether the connection goes on after a request.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Flow {
    Continue,
    Close,
}

/// Errors that end the connection without a reply.
#[derive(Debug, Error)]
pub enum SessionError {
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    #[error("cannot encode a reply: {0}")]
    Encode(#[from] EncodeError),
}

/// How a request handler can fail.
enum HandlerError {
    /// A FAILURE; the session enters FAILED.
    Failure(Failure),
    /// A message invalid for the state: FAILURE, then close.
    Violation(String),
    Fatal(SessionError),
}

impl From<Failure> for HandlerError {
    fn from(f: Failure) -> Self {
        HandlerError::Failure(f)
    }
}
impl From<SessionError> for HandlerError {
    fn from(e: SessionError) -> Self {
        HandlerError::Fatal(e)
    }
}
impl From<EncodeError> for HandlerError {
    fn from(e: EncodeError) -> Self {
        HandlerError::Fatal(e.into())
    }
}
impl From<std::io::Error> for HandlerError {
    fn from(e: std::io::Error) -> Self {
        HandlerError::Fatal(e.into())
    }
}
impl From<PoolError> for HandlerError {
    fn from(e: PoolError) -> Self {
        HandlerError::Failure(Failure::new(Status::General, e.to_string()))
    }
}

type Handled = Result<(), HandlerError>;

/// One open result stream. Auto-commit results use qid 0.
struct OpenStream<R> {
    qid: i64,
    results: R,
    /// Whether a record was sent (the result's GQL status).
    had_record: bool,
    /// The first slice, when the RUN's job pulled it ahead for the PULL
    /// queued behind it (`stream::opened`).
    first: Option<stream::FirstSlice>,
}

/// Flush the output buffer once it holds this much.
const FLUSH_THRESHOLD: usize = 64 * 1024;

pub struct Session<B: Backend> {
    ctx: Arc<BoltContext<B>>,
    version: BoltVersion,
    manifest: bool,
    connection_id: String,
    state: State,
    /// Whether HELLO / authentication happened: where RESET returns to.
    hello_done: bool,
    authenticated: bool,
    format: StructFormat,
    routing_address: Option<String>,
    tx: Option<B::Tx>,
    /// True between BEGIN and COMMIT/ROLLBACK/RESET, even if the
    /// transaction object was lost to an internal error.
    in_tx: bool,
    /// When the explicit transaction's time is up (set at BEGIN).
    tx_deadline: Option<nereid_dfe::Deadline>,
    streams: Vec<OpenStream<B::Results>>,
    next_qid: i64,
    last_qid: i64,
    out: Vec<u8>,
    /// RESETs read from the socket but not yet handled.
    pending_resets: Arc<AtomicUsize>,
    /// Signalled by the reader when a RESET arrives (see `pending_resets`)
    /// or the client leaves (see `client_left`).
    reset_signal: Arc<Notify>,
    /// Set by the reader once the client closed the connection.
    client_left: Arc<AtomicBool>,
    /// The client's address, for rate limiting failed logins.
    peer: Option<SocketAddr>,
    /// The authenticated user (empty without authentication).
    username: String,
    /// The database the current statement runs on: the explicit
    /// transaction's (BEGIN) or the auto-commit RUN's.
    statement_database: &'static str,
    /// Whether that transaction is in read access mode (`mode: "r"`).
    read_only: bool,
    /// The `n` of a PULL (of the latest result) that the connection has
    /// already read behind the request it hands over next; see
    /// [`Session::expect_pull`].
    pull_ahead: Option<i64>,
}

/// How the connection's reader reaches a session busy with a request: it
/// counts RESETs that arrived, notes that the client left, and wakes it.
pub struct Interrupts {
    pub pending_resets: Arc<AtomicUsize>,
    pub reset_signal: Arc<Notify>,
    pub client_left: Arc<AtomicBool>,
}

impl<B: Backend> Session<B> {
    /// Who runs this session's transactions, for `SHOW TRANSACTIONS`.
    fn client(&self) -> nereid_engine::Client {
        nereid_engine::Client {
            connection_id: self.connection_id.clone(),
            address: self.peer.map(|p| p.to_string()).unwrap_or_default(),
            username: self.username.clone(),
            protocol: "bolt",
            request_uri: self.ctx.config.advertised_address.clone(),
            access: self.ctx.auth.access_of(&self.username),
            read_only: self.read_only,
        }
    }

    pub fn new(
        ctx: Arc<BoltContext<B>>,
        version: BoltVersion,
        manifest: bool,
        connection_id: String,
        interrupts: Interrupts,
        peer: Option<SocketAddr>,
    ) -> Self {
        let Interrupts {
            pending_resets,
            reset_signal,
            client_left,
        } = interrupts;
        Session {
            ctx,
            version,
            manifest,
            connection_id,
            state: State::Negotiation,
            hello_done: false,
            authenticated: false,
            format: version.struct_format(false),
            routing_address: None,
            tx: None,
            in_tx: false,
            tx_deadline: None,
            streams: Vec::new(),
            next_qid: 0,
            last_qid: -1,
            out: Vec::new(),
            pending_resets,
            reset_signal,
            client_left,
            peer,
            username: String::new(),
            statement_database: database::DATABASES[0],
            read_only: false,
            pull_ahead: None,
        }
    }

    pub fn state(&self) -> State {
        self.state
    }

    /// Whether the client has authenticated (and not logged off since).
    pub fn is_authenticated(&self) -> bool {
        self.authenticated
    }

    /// Whether replies are waiting in the buffer.
    pub fn has_output(&self) -> bool {
        !self.out.is_empty()
    }

    /// Tells the session that the request handed over next is followed by
    /// a PULL of `n` records of the latest result, already read: a RUN
    /// then pulls its first slice in its own pool job (`stream::opened`).
    /// It holds for that one request only.
    pub fn expect_pull(&mut self, n: i64) {
        self.pull_ahead = Some(n);
    }

    /// Handles one request, appending the reply to the output buffer (and
    /// flushing it to `w` while streaming records).
    pub async fn handle<W>(&mut self, request: Request, w: &mut W) -> Result<Flow, SessionError>
    where
        W: AsyncWrite + Unpin + Send,
    {
        let ahead = self.pull_ahead.take();
        match request {
            Request::Goodbye => {
                self.state = State::Defunct;
                return Ok(Flow::Close);
            }
            Request::Reset => {
                self.reset().await?;
                return Ok(Flow::Continue);
            }
            _ => {}
        }
        if self.pending_resets.load(Ordering::Acquire) > 0 {
            self.state = State::Interrupted;
        }
        match self.state {
            State::Failed | State::Interrupted => {
                response::ignored(&mut self.out);
                return Ok(Flow::Continue);
            }
            State::Defunct => return Ok(Flow::Close),
            _ => {}
        }
        let outcome = self.dispatch(request, ahead, w).await;
        self.conclude(outcome)
    }

    async fn dispatch<W>(&mut self, request: Request, ahead: Option<i64>, w: &mut W) -> Handled
    where
        W: AsyncWrite + Unpin + Send,
    {
        use State::*;
        let name = request.name();
        match (self.state, request) {
            (Negotiation, Request::Hello { extra }) => self.hello(extra).await,
            (Authentication, Request::Logon { auth }) => self.logon(auth).await,
            (Ready, Request::Logoff) if self.version.has_logon() => self.logoff(),
            (Ready, Request::Telemetry { .. }) => self.success(PackMap::new()),
            (Ready, Request::Route { routing, db, .. }) => self.route(&routing, db.as_deref()),
            (
                Ready | TxReady | TxStreaming,
                Request::Run {
                    query,
                    params,
                    extra,
                },
            ) => self.run(query, params, &extra, ahead, w).await,
            (Ready, Request::Begin { extra }) => self.begin(&extra).await,
            (Streaming | TxStreaming, Request::Pull { n, qid }) => {
                self.pull(n, qid, false, w).await
            }
            (Streaming | TxStreaming, Request::Discard { n, qid }) => {
                self.pull(n, qid, true, w).await
            }
            (TxReady | TxStreaming, Request::Commit) => self.commit().await,
            (TxReady | TxStreaming, Request::Rollback) => self.rollback().await,
            (state, _) => Err(HandlerError::Violation(format!(
                "Message '{name}' cannot be handled by a session in the {state} state."
            ))),
        }
    }

    /// Turns a handler outcome into the reply and the next state.
    fn conclude(&mut self, outcome: Handled) -> Result<Flow, SessionError> {
        match outcome {
            Ok(()) => Ok(Flow::Continue),
            Err(HandlerError::Failure(failure)) => {
                // A failed HELLO or LOGON ends the connection.
                let closes = matches!(self.state, State::Negotiation | State::Authentication);
                response::failure(&mut self.out, failure.metadata(self.version))?;
                if closes {
                    self.state = State::Defunct;
                    Ok(Flow::Close)
                } else {
                    self.state = State::Failed;
                    Ok(Flow::Continue)
                }
            }
            Err(HandlerError::Violation(message)) => {
                self.fail_protocol(message)?;
                Ok(Flow::Close)
            }
            Err(HandlerError::Fatal(e)) => Err(e),
        }
    }

    /// Answers a protocol violation with FAILURE (Request.Invalid); the
    /// caller closes the connection.
    pub fn fail_protocol(&mut self, message: String) -> Result<(), SessionError> {
        tracing::debug!(connection = %self.connection_id, "protocol violation: {message}");
        let failure = Failure::invalid_request(message);
        response::failure(&mut self.out, failure.metadata(self.version))?;
        self.state = State::Defunct;
        Ok(())
    }

    /// Answers a request the server has no room for with a transient
    /// failure (drivers retry those later); the caller closes the
    /// connection.
    pub fn fail_busy(&mut self, message: String) -> Result<(), SessionError> {
        tracing::info!(connection = %self.connection_id, "refused: {message}");
        let failure = Failure::new(Status::NoThreadsAvailable, message);
        response::failure(&mut self.out, failure.metadata(self.version))?;
        self.state = State::Defunct;
        Ok(())
    }

    /// RESET: roll back, drop results, then READY (or back to where
    /// authentication stands), unless more RESETs are queued.
    async fn reset(&mut self) -> Result<(), SessionError> {
        let remaining = self
            .pending_resets
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                Some(n.saturating_sub(1))
            })
            .unwrap_or(0)
            .saturating_sub(1);
        self.abandon_work().await;
        self.state = if remaining > 0 {
            State::Interrupted
        } else if !self.hello_done {
            State::Negotiation
        } else if !self.authenticated {
            State::Authentication
        } else {
            State::Ready
        };
        response::success(&mut self.out, PackMap::new())?;
        Ok(())
    }

    /// Rolls back the open transaction and drops every open result, on the
    /// pool; waits for it so later requests see a clean slate.
    pub async fn abandon_work(&mut self) {
        let tx = self.tx.take();
        let streams = std::mem::take(&mut self.streams);
        self.in_tx = false;
        self.tx_deadline = None;
        if tx.is_none() && streams.is_empty() {
            return;
        }
        let backend = self.ctx.backend.clone();
        let outcome = self
            .ctx
            .pool
            .run(move || {
                drop(streams);
                if let Some(tx) = tx {
                    backend.rollback(tx);
                }
            })
            .await;
        if let Err(e) = outcome {
            tracing::warn!(connection = %self.connection_id, "rollback failed: {e}");
        }
    }

    /// A reply that cannot be encoded (nested too deeply) leaves the
    /// output untouched and becomes a FAILURE: the session goes on.
    fn success(&mut self, meta: PackMap) -> Handled {
        response::success(&mut self.out, meta)
            .map_err(|e| Failure::new(Status::General, format!("cannot send the reply: {e}")))?;
        Ok(())
    }

    /// Writes the buffered replies to the client, giving up after the
    /// configured write timeout (a client that stops reading must not pin
    /// resources forever).
    pub async fn flush<W>(&mut self, w: &mut W) -> Result<(), SessionError>
    where
        W: AsyncWrite + Unpin + Send,
    {
        if self.out.is_empty() {
            return Ok(());
        }
        let timeout = self.ctx.config.write_timeout;
        let write = async {
            w.write_all(&self.out).await?;
            w.flush().await
        };
        match tokio::time::timeout(timeout, write).await {
            Ok(result) => result?,
            Err(_) => {
                return Err(SessionError::Io(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    "client stopped reading",
                )))
            }
        }
        self.out.clear();
        Ok(())
    }

    async fn flush_if_large<W>(&mut self, w: &mut W) -> Result<(), SessionError>
    where
        W: AsyncWrite + Unpin + Send,
    {
        if self.out.len() >= FLUSH_THRESHOLD {
            self.flush(w).await?;
        }
        Ok(())
    }
}
