//! The Bolt server: handshake, framing, messages and the per-connection
//! state machine, over any [`Backend`] (the real [`nereid_engine::Database`] or
//! a test double).
//!
//! Threading: one tokio task per connection (plus a reader task); all
//! database work runs on an [`ExecPool`].

pub mod backend;
pub mod bookmarks;
pub mod budget;
pub(crate) mod connection;
pub mod failure;
pub mod framing;
pub mod handshake;
mod notifications;
pub mod pool;
pub mod request;
pub mod response;
pub mod session;
pub mod slots;
pub mod version;

#[cfg(test)]
mod tests;
/// The in-memory backend of the Bolt tests, for the other modules' tests.
#[cfg(test)]
pub(crate) use tests::fake as tests_support;

pub use backend::{Backend, ResultStream};
pub use connection::serve_connection;
pub use pool::ExecPool;
pub use version::BoltVersion;

use crate::auth::Authenticator;
use budget::BufferBudget;
use slots::Slots;
use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio_rustls::TlsAcceptor;

/// What HELLO SUCCESS reports as `server`. Drivers (Java, cypher-shell)
/// refuse servers whose agent does not start with `Neo4j/`.
pub const SERVER_AGENT: &str = "Neo4j/5.26.0";

/// Settings of the Bolt listener.
#[derive(Clone, Debug)]
pub struct BoltConfig {
    /// The address ROUTE advertises when the client sent no routing address.
    pub advertised_address: String,
    /// Larger messages close the connection.
    pub max_message_size: usize,
    /// Bytes of received but unhandled messages across all connections
    /// (see [`budget`]).
    pub max_buffered_bytes: usize,
    /// A client must finish the handshake within this time, and
    /// authenticate within this time of connecting.
    pub handshake_timeout: Duration,
    /// Connections served at once; one more is refused with a transient
    /// `NoThreadsAvailable` failure (drivers retry it later).
    pub max_connections: usize,
    /// Slots that unauthenticated connections cannot take (see [`slots`]).
    pub reserved_connections: usize,
    /// A connection silent for this long between requests is closed.
    pub idle_timeout: Option<Duration>,
    /// A client that does not accept our bytes within this time is dropped.
    pub write_timeout: Duration,
    /// How long BEGIN/RUN wait for a bookmark's commit to become visible
    /// (Neo4j's `bookmark_ready_timeout` default: 30 s).
    pub bookmark_timeout: Duration,
    /// Advertised in HELLO as `connection.recv_timeout_seconds`: drivers
    /// use it as their read timeout.
    pub recv_timeout_hint: Duration,
    /// While a query is busy without output, a NOOP chunk goes out this
    /// often (well within the hint).
    pub noop_interval: Duration,
    /// How long a transaction may run when its client gives no timeout of
    /// its own (`None`: no limit; `--transaction-timeout`).
    pub transaction_timeout: Option<Duration>,
}

impl BoltConfig {
    pub fn new(advertised_address: impl Into<String>) -> Self {
        BoltConfig {
            advertised_address: advertised_address.into(),
            max_message_size: framing::DEFAULT_MAX_MESSAGE_SIZE,
            max_buffered_bytes: budget::default_budget(framing::DEFAULT_MAX_MESSAGE_SIZE),
            handshake_timeout: Duration::from_secs(30),
            max_connections: crate::config::BoltLimits::default().max_connections,
            reserved_connections: crate::config::BoltLimits::default().reserved_connections,
            idle_timeout: crate::config::BoltLimits::default().idle_timeout,
            write_timeout: Duration::from_secs(300),
            bookmark_timeout: Duration::from_secs(30),
            recv_timeout_hint: Duration::from_secs(120),
            noop_interval: Duration::from_secs(30),
            transaction_timeout: None,
        }
    }
}

impl BoltConfig {
    /// Applies the configured connection, timeout and size limits.
    pub fn with_limits(mut self, limits: &crate::config::BoltLimits) -> Self {
        self.max_connections = limits.max_connections;
        self.reserved_connections = limits.reserved_connections;
        self.max_buffered_bytes = limits.max_buffered_bytes;
        self.handshake_timeout = limits.handshake_timeout;
        self.idle_timeout = limits.idle_timeout;
        self.max_message_size = limits.max_message_size;
        self
    }
}

/// Everything connections share.
pub struct BoltContext<B: Backend> {
    pub backend: Arc<B>,
    pub pool: ExecPool,
    pub config: BoltConfig,
    pub auth: Arc<Authenticator>,
    next_connection: AtomicU64,
    /// Connections currently served (including those in the handshake).
    slots: Arc<Slots>,
    /// Bytes of incoming messages held by all connections.
    buffers: Arc<BufferBudget>,
}

impl<B: Backend> BoltContext<B> {
    /// A context that accepts every client (authentication disabled).
    pub fn new(backend: Arc<B>, pool: ExecPool, config: BoltConfig) -> Arc<Self> {
        Self::with_auth(backend, pool, config, Arc::new(Authenticator::disabled()))
    }

    pub fn with_auth(
        backend: Arc<B>,
        pool: ExecPool,
        config: BoltConfig,
        auth: Arc<Authenticator>,
    ) -> Arc<Self> {
        let slots = Slots::new(config.max_connections, config.reserved_connections);
        let buffers = BufferBudget::new(config.max_buffered_bytes);
        Arc::new(BoltContext {
            backend,
            pool,
            config,
            auth,
            next_connection: AtomicU64::new(1),
            slots,
            buffers,
        })
    }

    /// Bytes of incoming messages buffered right now, all connections.
    pub fn buffered_bytes(&self) -> usize {
        self.buffers.used()
    }

    /// Connections holding a slot, and how many are unauthenticated.
    pub fn connection_counts(&self) -> (usize, usize) {
        self.slots.counts()
    }

    /// Connections accepted since start (those refused for the limit too).
    pub fn connections_accepted(&self) -> u64 {
        self.next_connection
            .load(std::sync::atomic::Ordering::Relaxed)
            - 1
    }
}

/// The TLS handshake (bounded by the handshake timeout), then Bolt.
async fn serve_tls_connection<B: Backend>(
    acceptor: TlsAcceptor,
    stream: tokio::net::TcpStream,
    peer: std::net::SocketAddr,
    ctx: Arc<BoltContext<B>>,
) {
    let accepted = tokio::time::Instant::now();
    match tokio::time::timeout(ctx.config.handshake_timeout, acceptor.accept(stream)).await {
        Ok(Ok(tls_stream)) => {
            connection::serve_accepted(tls_stream, Some(peer), ctx, accepted).await
        }
        Ok(Err(e)) => tracing::debug!(%peer, "TLS handshake failed: {e}"),
        Err(_) => tracing::debug!(%peer, "TLS handshake timed out"),
    }
}

/// Accepts connections until `shutdown` turns true; each connection runs
/// in its own task.
pub async fn serve<B: Backend>(
    listener: TcpListener,
    ctx: Arc<BoltContext<B>>,
    tls: Option<TlsAcceptor>,
    mut shutdown: watch::Receiver<bool>,
) {
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => {
                    let _ = stream.set_nodelay(true);
                    tracing::trace!(%peer, "bolt connection");
                    match &tls {
                        None => {
                            tokio::spawn(serve_connection(stream, Some(peer), ctx.clone()));
                        }
                        Some(acceptor) => {
                            tokio::spawn(serve_tls_connection(
                                acceptor.clone(),
                                stream,
                                peer,
                                ctx.clone(),
                            ));
                        }
                    }
                }
                Err(e) => {
                    // Out of file descriptors and the like: back off briefly.
                    tracing::warn!("bolt accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            _ = shutdown.changed() => return,
        }
        if *shutdown.borrow() {
            return;
        }
    }
}
