//! Starting and stopping the listeners around a backend.

use crate::bolt::{self, Backend, BoltConfig, BoltContext, ExecPool};
use crate::config::Config;
use crate::http;
use std::net::SocketAddr;
use std::sync::Arc;
use thiserror::Error;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::JoinHandle;

#[derive(Debug, Error)]
pub enum StartError {
    #[error("cannot listen for {what} on {address}: {source}")]
    Bind {
        what: &'static str,
        address: String,
        source: std::io::Error,
    },
    #[error("cannot start the execution pool: {0}")]
    Pool(std::io::Error),
}

/// The running listeners.
pub struct RunningServer {
    pub bolt_address: SocketAddr,
    pub http_address: SocketAddr,
    shutdown: watch::Sender<bool>,
    tasks: Vec<JoinHandle<()>>,
}

impl RunningServer {
    /// Stops accepting connections and waits for the listeners to end.
    pub async fn shutdown(self) {
        let _ = self.shutdown.send(true);
        for task in self.tasks {
            let _ = task.await;
        }
    }
}

async fn bind(what: &'static str, address: &str) -> Result<(TcpListener, SocketAddr), StartError> {
    let error = |source| StartError::Bind {
        what,
        address: address.to_string(),
        source,
    };
    let listener = TcpListener::bind(address).await.map_err(error)?;
    let local = listener.local_addr().map_err(error)?;
    Ok((listener, local))
}

/// Binds the Bolt and HTTP listeners and serves `backend` on them.
pub async fn start<B: Backend>(
    backend: Arc<B>,
    config: &Config,
) -> Result<RunningServer, StartError> {
    let pool = ExecPool::new(config.exec_threads).map_err(StartError::Pool)?;
    let (bolt_listener, bolt_address) = bind("Bolt", &config.bolt_address).await?;
    let (http_listener, http_address) = bind("HTTP", &config.http_address).await?;
    // Advertise what the operator configured, unless it named port 0.
    let advertised = if config.bolt_address.ends_with(":0") {
        bolt_address.to_string()
    } else {
        config.bolt_address.clone()
    };
    let (shutdown, watcher) = watch::channel(false);
    let admin = backend.clone();
    let checkpoint: http::CheckpointFn =
        Arc::new(move || admin.checkpoint().map_err(|e| e.to_string()));
    let ctx = BoltContext::new(backend, pool, BoltConfig::new(advertised.clone()));
    let bolt_task = tokio::spawn(bolt::serve(bolt_listener, ctx, watcher.clone()));
    let router = http::router_with_admin(
        http::HealthInfo {
            bolt_address: advertised,
        },
        Some(checkpoint),
    );
    let http_task = tokio::spawn(async move {
        if let Err(e) = http::serve(http_listener, router, watcher).await {
            tracing::error!("HTTP server failed: {e}");
        }
    });
    Ok(RunningServer {
        bolt_address,
        http_address,
        shutdown,
        tasks: vec![bolt_task, http_task],
    })
}

#[cfg(test)]
#[path = "app_tests.rs"]
mod tests;
