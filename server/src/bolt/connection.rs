//! One client connection: handshake, then a reader task feeding parsed
//! requests to the session, which answers them in order.
//!
//! The reader runs ahead of the session so that a RESET queued behind
//! other requests is seen early (it interrupts them), and so that pipelined
//! requests are answered in one flush.
//!
//! Until the client has authenticated, the connection is cheap to hold and
//! short-lived: its messages may be at most [`PRE_AUTH_MAX_MESSAGE_SIZE`]
//! bytes, it must authenticate within the handshake timeout of being
//! accepted (the *authentication deadline*), and a newer connection may
//! displace it (see [`super::slots`]). Every buffered chunk is charged to
//! the server-wide [`super::budget`].

use super::backend::Backend;
use super::budget::Charge;
use super::failure::Failure;
use super::framing::{read_message, read_message_charged, FrameError};
use super::handshake::{negotiate, HandshakeError};
use super::request::{Request, RequestError};
use super::session::{Flow, Interrupts, Session};
use super::slots::Slot;
use super::{BoltContext, BoltVersion};
use nereid_errors::Status;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, watch, Notify, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

/// Requests read ahead of the session at most.
const READ_AHEAD: usize = 64;

/// The largest message accepted before authentication: HELLO and LOGON
/// (agent strings, routing context, credentials) fit in a few KiB, and a
/// client that has not proven who it is must not make the server buffer
/// megabytes.
pub const PRE_AUTH_MAX_MESSAGE_SIZE: usize = 64 * 1024;

/// What the reader hands to the session.
enum Incoming {
    /// A request, with the read-ahead budget and the server-wide buffer
    /// charge its bytes hold until handled.
    Request(Request, OwnedSemaphorePermit, Charge),
    /// A well-framed message that is not a valid request.
    Invalid(RequestError),
    /// A message over the size limit or the server-wide budget (the rest
    /// of it is not read).
    Refused(FrameError),
}

/// How far authentication got, published by the session after each
/// request for the reader.
#[derive(Clone, Copy, Debug, Default)]
struct AuthProgress {
    /// Authentication attempts (LOGON, HELLO before 5.1) handled so far.
    decided: u64,
    authenticated: bool,
}

/// Serves one connection until the client leaves or breaks the protocol.
/// `peer` is the client's address, for rate limiting failed logins (by
/// its IP) and for `SHOW TRANSACTIONS` (`ip:port`, as Neo4j shows it).
/// Never panics on input; every error ends only this connection.
pub async fn serve_connection<B, S>(stream: S, peer: Option<SocketAddr>, ctx: Arc<BoltContext<B>>)
where
    B: Backend,
    S: AsyncRead + AsyncWrite + Send + 'static,
{
    serve_accepted(stream, peer, ctx, Instant::now()).await
}

/// [`serve_connection`] for a connection accepted at `accepted` (before a
/// TLS handshake, which counts against the same deadlines).
pub(super) async fn serve_accepted<B, S>(
    stream: S,
    peer: Option<SocketAddr>,
    ctx: Arc<BoltContext<B>>,
    accepted: Instant,
) where
    B: Backend,
    S: AsyncRead + AsyncWrite + Send + 'static,
{
    let connection_id = format!(
        "bolt-{}",
        ctx.next_connection.fetch_add(1, Ordering::Relaxed)
    );
    let slot = ctx.slots.enter();
    let (reader, mut writer) = tokio::io::split(stream);
    let mut reader = BufReader::new(reader);
    let timeout = ctx.config.handshake_timeout;

    let handshake = before_deadline(
        negotiate(&mut reader, &mut writer),
        Some(accepted + timeout),
        slot.as_ref(),
    );
    let negotiated = match handshake.await {
        Some(Ok(negotiated)) => negotiated,
        Some(Err(e)) => {
            log_handshake_error(&connection_id, &e);
            return;
        }
        None => {
            tracing::debug!(connection = %connection_id, "handshake timed out or displaced");
            return;
        }
    };
    tracing::debug!(connection = %connection_id, version = %negotiated.version, "handshake done");
    let Some(slot) = slot else {
        refuse_over_limit(
            &mut reader,
            &mut writer,
            negotiated.version,
            &ctx,
            &connection_id,
        )
        .await;
        return;
    };

    let pending_resets = Arc::new(AtomicUsize::new(0));
    let reset_signal = Arc::new(Notify::new());
    let client_left = Arc::new(AtomicBool::new(false));
    let (requests, mut incoming) = mpsc::channel(READ_AHEAD);
    let (auth_progress, auth_seen) = watch::channel(AuthProgress::default());
    let reader_task = tokio::spawn(read_requests(
        reader,
        requests,
        ReaderShared {
            pending_resets: pending_resets.clone(),
            reset_signal: reset_signal.clone(),
            client_left: client_left.clone(),
            auth: auth_seen,
        },
        ReaderLimits {
            version: negotiated.version,
            max_message_size: ctx.config.max_message_size,
            budget: ctx.buffers.clone(),
        },
        connection_id.clone(),
    ));

    let mut session = Session::new(
        ctx.clone(),
        negotiated.version,
        negotiated.manifest,
        connection_id.clone(),
        Interrupts {
            pending_resets,
            reset_signal,
            client_left,
        },
        peer,
    );
    // `Some` while unauthenticated: when the connection is closed.
    let mut auth_deadline = Some(accepted + timeout);
    // A request read ahead of the one being handled: the PULL behind a RUN.
    let mut peeked: Option<Incoming> = None;
    loop {
        // Flush only when nothing else is queued: pipelined requests get
        // their replies in one write.
        let next = match peeked.take().map_or_else(|| incoming.try_recv(), Ok) {
            Ok(item) => Some(item),
            Err(mpsc::error::TryRecvError::Empty) => {
                if session.has_output() && session.flush(&mut writer).await.is_err() {
                    break;
                }
                match (auth_deadline, ctx.config.idle_timeout) {
                    (Some(deadline), _) => {
                        match before_deadline(incoming.recv(), Some(deadline), Some(&slot)).await {
                            Some(next) => next,
                            None => {
                                tracing::debug!(connection = %connection_id, "closing: not authenticated in time, or displaced");
                                break;
                            }
                        }
                    }
                    (None, None) => incoming.recv().await,
                    (None, Some(idle)) => match tokio::time::timeout(idle, incoming.recv()).await {
                        Ok(next) => next,
                        Err(_) => {
                            tracing::debug!(connection = %connection_id, "closing an idle connection");
                            break;
                        }
                    },
                }
            }
            Err(mpsc::error::TryRecvError::Disconnected) => None,
        };
        let mut attempt = false;
        let flow = match next {
            None => break,
            Some(Incoming::Request(request, _budget, _charge)) => {
                attempt = request.is_auth_attempt(negotiated.version);
                if matches!(request, Request::Run { .. }) {
                    // Drivers send RUN and PULL together: the session may
                    // then run the query and pull its first records in one
                    // pool job.
                    peeked = incoming.try_recv().ok();
                    if let Some(Incoming::Request(Request::Pull { n, qid: -1 }, ..)) = &peeked {
                        session.expect_pull(*n);
                    }
                }
                let handled = session.handle(request, &mut writer);
                // An unauthenticated client cannot stretch its deadline by
                // a login that waits for the hashing budget.
                match before_deadline(handled, auth_deadline, Some(&slot)).await {
                    Some(flow) => flow,
                    None => {
                        tracing::debug!(connection = %connection_id, "closing: authentication did not finish in time");
                        break;
                    }
                }
            }
            Some(Incoming::Invalid(e)) => session.fail_protocol(e.to_string()).map(|_| Flow::Close),
            Some(Incoming::Refused(e @ FrameError::Busy(_))) => session
                .fail_busy(format!("{e}; try again later."))
                .map(|_| Flow::Close),
            Some(Incoming::Refused(e)) => session.fail_protocol(e.to_string()).map(|_| Flow::Close),
        };
        let authenticated = session.is_authenticated();
        match (authenticated, auth_deadline) {
            (true, Some(_)) => {
                slot.authenticated();
                auth_deadline = None;
            }
            (false, None) => {
                // Logged off: the same rules as a new connection.
                slot.unauthenticated();
                auth_deadline = Some(Instant::now() + timeout);
            }
            _ => {}
        }
        auth_progress.send_if_modified(|progress| {
            let before = (progress.decided, progress.authenticated);
            progress.decided += u64::from(attempt);
            progress.authenticated = authenticated;
            before != (progress.decided, progress.authenticated)
        });
        match flow {
            Ok(Flow::Continue) => {}
            Ok(Flow::Close) => break,
            Err(e) => {
                tracing::debug!(connection = %connection_id, "closing: {e}");
                break;
            }
        }
    }
    let _ = session.flush(&mut writer).await;
    reader_task.abort();
    session.abandon_work().await;
    tracing::debug!(connection = %connection_id, "closed");
}

/// Runs `work` until it completes (`Some`), `deadline` passes or `slot` is
/// displaced (`None`); without a deadline only displacement ends it early.
async fn before_deadline<F: Future>(
    work: F,
    deadline: Option<Instant>,
    slot: Option<&Slot>,
) -> Option<F::Output> {
    let Some(deadline) = deadline else {
        return Some(work.await);
    };
    let displaced = async {
        match slot {
            Some(slot) => slot.displaced().await,
            None => std::future::pending().await,
        }
    };
    tokio::select! {
        output = work => Some(output),
        _ = tokio::time::sleep_until(deadline) => None,
        _ = displaced => None,
    }
}

/// What the reader shares with the session.
struct ReaderShared {
    pending_resets: Arc<AtomicUsize>,
    reset_signal: Arc<Notify>,
    /// Set when the client closed its side or the socket failed: a
    /// running query is stopped like on RESET.
    client_left: Arc<AtomicBool>,
    auth: watch::Receiver<AuthProgress>,
}

impl ReaderShared {
    /// The client is gone: wake a session busy with a query, which stops it.
    fn left(&self) {
        self.client_left.store(true, Ordering::Release);
        self.reset_signal.notify_one();
    }
}

/// What bounds the reader's buffering.
struct ReaderLimits {
    version: BoltVersion,
    max_message_size: usize,
    budget: Arc<super::budget::BufferBudget>,
}

async fn read_requests<R: AsyncRead + Unpin>(
    mut reader: R,
    requests: mpsc::Sender<Incoming>,
    mut shared: ReaderShared,
    limits: ReaderLimits,
    connection_id: String,
) {
    // Bytes of requests read but not yet handled are limited to one
    // maximal message, so reading ahead cannot multiply the memory limit.
    let max_message_size = limits.max_message_size;
    let budget_bytes = u32::try_from(max_message_size).unwrap_or(u32::MAX);
    let budget = Arc::new(Semaphore::new(budget_bytes as usize));
    let mut attempts_sent = 0u64;
    loop {
        // The size allowed depends on whether the client is authenticated,
        // so a pipelined message behind a LOGON waits for its verdict.
        let authenticated = match shared
            .auth
            .wait_for(|p| p.authenticated || p.decided >= attempts_sent)
            .await
        {
            Ok(progress) => progress.authenticated,
            Err(_) => return,
        };
        let limit = if authenticated {
            max_message_size
        } else {
            PRE_AUTH_MAX_MESSAGE_SIZE.min(max_message_size)
        };
        let mut charge = Charge::new(&limits.budget);
        let body = match read_message_charged(&mut reader, limit, &mut charge).await {
            Ok(Some(body)) => body,
            Ok(None) => return shared.left(),
            Err(e @ (FrameError::TooLarge { .. } | FrameError::Busy(_))) => {
                tracing::debug!(connection = %connection_id, authenticated, "framing error: {e}");
                drop(charge);
                let _ = requests.send(Incoming::Refused(e)).await;
                return;
            }
            Err(_) => return shared.left(),
        };
        let cost = u32::try_from(body.len())
            .unwrap_or(u32::MAX)
            .min(budget_bytes);
        let Ok(permit) = budget.clone().acquire_many_owned(cost).await else {
            return;
        };
        let item = match Request::parse(&body) {
            Ok(request) => {
                if request == Request::Reset {
                    shared.pending_resets.fetch_add(1, Ordering::AcqRel);
                    // Wakes a session busy with a query, which cancels it.
                    shared.reset_signal.notify_one();
                }
                if request.is_auth_attempt(limits.version) {
                    attempts_sent += 1;
                }
                Incoming::Request(request, permit, charge)
            }
            Err(e) => Incoming::Invalid(e),
        };
        drop(body);
        let stop = matches!(
            item,
            Incoming::Invalid(_) | Incoming::Request(Request::Goodbye, _, _)
        );
        if requests.send(item).await.is_err() || stop {
            return;
        }
    }
}

/// The answer to a connection over the limit: its first request gets a
/// transient failure (drivers retry those later), then the connection
/// closes. Bounded by the handshake timeout, so a silent client cannot hold
/// the extra place.
async fn refuse_over_limit<B, R, W>(
    reader: &mut R,
    writer: &mut W,
    version: BoltVersion,
    ctx: &BoltContext<B>,
    connection_id: &str,
) where
    B: Backend,
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let limit = ctx.config.max_connections;
    tracing::info!(connection = %connection_id, "refused: already serving {limit} connections");
    let refuse = async {
        // Not authenticated: the small pre-authentication limit applies.
        let limit = PRE_AUTH_MAX_MESSAGE_SIZE.min(ctx.config.max_message_size);
        read_message(reader, limit).await.ok()?;
        let failure = Failure::new(
            Status::NoThreadsAvailable,
            format!("The server is serving its maximum of {limit} connections; try again later."),
        );
        let mut out = Vec::new();
        super::response::failure(&mut out, failure.metadata(version)).ok()?;
        writer.write_all(&out).await.ok()?;
        writer.flush().await.ok()
    };
    let _ = tokio::time::timeout(ctx.config.handshake_timeout, refuse).await;
}

fn log_handshake_error(connection_id: &str, e: &HandshakeError) {
    match e {
        // Port scanners and stray HTTP clients are not worth an info line.
        HandshakeError::Io(_) | HandshakeError::BadMagic(_) | HandshakeError::Http => {
            tracing::debug!(connection = %connection_id, "handshake: {e}")
        }
        _ => tracing::info!(connection = %connection_id, "handshake refused: {e}"),
    }
}
