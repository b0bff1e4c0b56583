//! One client connection: handshake, then a reader task feeding parsed
//! requests to the session, which answers them in order.
//!
//! The reader runs ahead of the session so that a RESET queued behind
//! other requests is seen early (it interrupts them), and so that pipelined
//! requests are answered in one flush.

use super::backend::Backend;
use super::failure::Failure;
use super::framing::{read_message, FrameError};
use super::handshake::{negotiate, HandshakeError};
use super::request::{Request, RequestError};
use super::session::{Flow, Session};
use super::BoltContext;
use nereid_errors::Status;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, Notify, OwnedSemaphorePermit, Semaphore};

/// Requests read ahead of the session at most.
const READ_AHEAD: usize = 64;

/// What the reader hands to the session.
enum Incoming {
    /// A request, with the read-ahead budget its bytes hold until handled.
    Request(Request, OwnedSemaphorePermit),
    /// A well-framed message that is not a valid request.
    Invalid(RequestError),
    /// A message over the size limit (the rest of it is not read).
    Oversized(FrameError),
}

/// Holds one place in the connection count while a connection lives.
struct ConnectionSlot {
    open: Arc<AtomicUsize>,
    /// The count including this connection.
    count: usize,
}

impl ConnectionSlot {
    fn enter(open: &Arc<AtomicUsize>) -> Self {
        let count = open.fetch_add(1, Ordering::AcqRel) + 1;
        ConnectionSlot {
            open: open.clone(),
            count,
        }
    }
}

impl Drop for ConnectionSlot {
    fn drop(&mut self) {
        self.open.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Serves one connection until the client leaves or breaks the protocol.
/// `peer` is the client's address, for rate limiting failed logins.
/// Never panics on input; every error ends only this connection.
pub async fn serve_connection<B, S>(stream: S, peer: Option<IpAddr>, ctx: Arc<BoltContext<B>>)
where
    B: Backend,
    S: AsyncRead + AsyncWrite + Send + 'static,
{
    let connection_id = format!(
        "bolt-{}",
        ctx.next_connection.fetch_add(1, Ordering::Relaxed)
    );
    let slot = ConnectionSlot::enter(&ctx.open_connections);
    let (reader, mut writer) = tokio::io::split(stream);
    let mut reader = BufReader::new(reader);

    let negotiated = match tokio::time::timeout(
        ctx.config.handshake_timeout,
        negotiate(&mut reader, &mut writer),
    )
    .await
    {
        Ok(Ok(negotiated)) => negotiated,
        Ok(Err(e)) => {
            log_handshake_error(&connection_id, &e);
            return;
        }
        Err(_) => {
            tracing::debug!(connection = %connection_id, "handshake timed out");
            return;
        }
    };
    tracing::debug!(connection = %connection_id, version = %negotiated.version, "handshake done");
    if slot.count > ctx.config.max_connections {
        refuse_over_limit(
            &mut reader,
            &mut writer,
            negotiated.version,
            &ctx,
            &connection_id,
        )
        .await;
        return;
    }

    let pending_resets = Arc::new(AtomicUsize::new(0));
    let reset_signal = Arc::new(Notify::new());
    let (requests, mut incoming) = mpsc::channel(READ_AHEAD);
    let reader_task = tokio::spawn(read_requests(
        reader,
        requests,
        pending_resets.clone(),
        reset_signal.clone(),
        ctx.config.max_message_size,
        connection_id.clone(),
    ));

    let mut session = Session::new(
        ctx.clone(),
        negotiated.version,
        negotiated.manifest,
        connection_id.clone(),
        pending_resets,
        reset_signal,
        peer,
    );
    loop {
        // Flush only when nothing else is queued: pipelined requests get
        // their replies in one write.
        let next = match incoming.try_recv() {
            Ok(item) => Some(item),
            Err(mpsc::error::TryRecvError::Empty) => {
                if session.has_output() && session.flush(&mut writer).await.is_err() {
                    break;
                }
                match ctx.config.idle_timeout {
                    None => incoming.recv().await,
                    Some(idle) => match tokio::time::timeout(idle, incoming.recv()).await {
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
        let flow = match next {
            None => break,
            Some(Incoming::Request(request, _budget)) => session.handle(request, &mut writer).await,
            Some(Incoming::Invalid(e)) => session.fail_protocol(e.to_string()).map(|_| Flow::Close),
            Some(Incoming::Oversized(e)) => {
                session.fail_protocol(e.to_string()).map(|_| Flow::Close)
            }
        };
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

async fn read_requests<R: AsyncRead + Unpin>(
    mut reader: R,
    requests: mpsc::Sender<Incoming>,
    pending_resets: Arc<AtomicUsize>,
    reset_signal: Arc<Notify>,
    max_message_size: usize,
    connection_id: String,
) {
    // Bytes of requests read but not yet handled are limited to one
    // maximal message, so reading ahead cannot multiply the memory limit.
    let budget_bytes = u32::try_from(max_message_size).unwrap_or(u32::MAX);
    let budget = Arc::new(Semaphore::new(budget_bytes as usize));
    loop {
        let body = match read_message(&mut reader, max_message_size).await {
            Ok(Some(body)) => body,
            Ok(None) => return,
            Err(e @ FrameError::TooLarge { .. }) => {
                tracing::debug!(connection = %connection_id, "framing error: {e}");
                let _ = requests.send(Incoming::Oversized(e)).await;
                return;
            }
            Err(_) => return,
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
                    pending_resets.fetch_add(1, Ordering::AcqRel);
                    // Wakes a session busy with a query, which cancels it.
                    reset_signal.notify_one();
                }
                Incoming::Request(request, permit)
            }
            Err(e) => Incoming::Invalid(e),
        };
        drop(body);
        let stop = matches!(
            item,
            Incoming::Invalid(_) | Incoming::Request(Request::Goodbye, _)
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
    version: super::BoltVersion,
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
        read_message(reader, ctx.config.max_message_size)
            .await
            .ok()?;
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
