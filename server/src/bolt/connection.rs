//! One client connection: handshake, then a reader task feeding parsed
//! requests to the session, which answers them in order.
//!
//! The reader runs ahead of the session so that a RESET queued behind
//! other requests is seen early (it interrupts them), and so that pipelined
//! requests are answered in one flush.

use super::backend::Backend;
use super::framing::{read_message, FrameError};
use super::handshake::{negotiate, HandshakeError};
use super::request::{Request, RequestError};
use super::session::{Flow, Session};
use super::BoltContext;
use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use tokio::io::{AsyncRead, AsyncWrite, BufReader};
use tokio::sync::{mpsc, Notify, OwnedSemaphorePermit, Semaphore};

/// Requests read ahead of the session at most.
const READ_AHEAD: usize = 64;

/// What the reader hands to the session.
enum Incoming {
    /// A request, with the read-ahead budget its bytes hold until handled.
    Request(Request, OwnedSemaphorePermit),
    /// A well-framed message that is not a valid request.
    Invalid(RequestError),
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
                incoming.recv().await
            }
            Err(mpsc::error::TryRecvError::Disconnected) => None,
        };
        let flow = match next {
            None => break,
            Some(Incoming::Request(request, _budget)) => session.handle(request, &mut writer).await,
            Some(Incoming::Invalid(e)) => session.fail_protocol(e.to_string()).map(|_| Flow::Close),
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
            Err(e) => {
                if !matches!(e, FrameError::Io(_) | FrameError::Truncated) {
                    tracing::debug!(connection = %connection_id, "framing error: {e}");
                }
                return;
            }
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

fn log_handshake_error(connection_id: &str, e: &HandshakeError) {
    match e {
        // Port scanners and stray HTTP clients are not worth an info line.
        HandshakeError::Io(_) | HandshakeError::BadMagic(_) | HandshakeError::Http => {
            tracing::debug!(connection = %connection_id, "handshake: {e}")
        }
        _ => tracing::info!(connection = %connection_id, "handshake refused: {e}"),
    }
}
