//! Starting and stopping the listeners around a backend.

use crate::auth::{AuthSetupError, Authenticator};
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
    #[error("authentication: {0}")]
    Auth(#[from] AuthSetupError),
    #[error("TLS: {0}")]
    Tls(#[from] crate::tls::TlsError),
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
    start_with_loader(backend, config, None).await
}

/// [`start`] plus the `/loader` endpoints of `loader`.
pub async fn start_with_loader<B: Backend>(
    backend: Arc<B>,
    config: &Config,
    loader: Option<Arc<nereid_engine::Loader>>,
) -> Result<RunningServer, StartError> {
    let pool = ExecPool::new(config.exec_threads).map_err(StartError::Pool)?;
    // Before binding: a server that would be open to the network refuses
    // to start without ever listening.
    let auth = configure_auth(config).await?;
    let tls = match (&config.tls_cert, &config.tls_key) {
        (Some(cert), Some(key)) => Some(crate::tls::acceptor(cert, key)?),
        _ => None,
    };
    let (bolt_listener, bolt_address) = bind("Bolt", &config.bolt_address).await?;
    let (http_listener, http_address) = bind("HTTP", &config.http_address).await?;
    // Advertise what the operator configured, unless it named port 0.
    let advertised = if config.bolt_address.ends_with(":0") {
        bolt_address.to_string()
    } else {
        config.bolt_address.clone()
    };
    nereid_dfe::set_advertised_address(&advertised);
    let (shutdown, watcher) = watch::channel(false);
    let admin = backend.clone();
    let watched = backend.clone();
    let query_backend = backend.clone();
    let problem: http::ProblemFn = Arc::new(move || watched.problem());
    let checkpoint: http::CheckpointFn =
        Arc::new(move || admin.checkpoint().map_err(|e| e.to_string()));
    let bolt_config = BoltConfig {
        transaction_timeout: config.transaction_timeout,
        ..BoltConfig::new(advertised.clone()).with_limits(&config.bolt_limits)
    };
    backend.administer_users_with(Arc::new(crate::auth::admin::UserAdmin::new(auth.clone())));
    let ctx = BoltContext::with_auth(backend, pool, bolt_config, auth.clone());
    let scraped = ctx.clone();
    let metrics: http::MetricsFn = Arc::new(move || crate::metrics_text::render(&scraped));
    let http_tls = match config.http_tls {
        true => tls.clone(),
        false => None,
    };
    let bolt_task = tokio::spawn(bolt::serve(bolt_listener, ctx, tls, watcher.clone()));
    let bound_http = http_address.to_string();
    let own_origins = http::origins_of([config.http_address.as_str(), bound_http.as_str()]);
    let admin = http::Admin {
        checkpoint,
        own_origins: own_origins.clone(),
    };
    // What acts on the database takes the Bolt users' credentials.
    let protected = http::admin_routes(admin).merge(crate::query_api::routes(
        query_backend,
        config.transaction_timeout,
        own_origins.clone(),
    ));
    let protected = match loader {
        Some(loader) => crate::http_loader::with_loader(protected, loader, own_origins),
        None => protected,
    };
    let protected = http::with_metrics(protected, metrics);
    let router = http::router(http::HealthInfo {
        bolt_address: advertised,
        problem: Some(problem),
    })
    .merge(crate::console::routes())
    .merge(crate::http_auth::require_user(protected, auth));
    let http_task = tokio::spawn(async move {
        if let Err(e) = http::serve(http_listener, router, http_tls, watcher).await {
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

/// Applies the authentication settings for the configured Bolt address
/// (hashing and file I/O: off the async threads).
async fn configure_auth(config: &Config) -> Result<Arc<Authenticator>, StartError> {
    let resolved: Vec<SocketAddr> = tokio::net::lookup_host(&config.bolt_address)
        .await
        .map_err(|source| StartError::Bind {
            what: "Bolt",
            address: config.bolt_address.clone(),
            source,
        })?
        .collect();
    let data_dir = config.data_dir.clone();
    let spec = config.auth.clone();
    let no_auth = config.no_auth;
    let bolt = config.bolt_address.clone();
    let hashing = crate::auth::hashing::HashBudget::new(
        config.auth_hashing.concurrency,
        config.auth_hashing.per_second,
        crate::auth::hashing::DEFAULT_MAX_WAIT,
    );
    let configured = tokio::task::spawn_blocking(move || {
        Authenticator::configure(
            &data_dir,
            spec.as_ref().map(|s| s.expose()),
            no_auth,
            &bolt,
            &resolved,
        )
    })
    .await
    .map_err(|e| StartError::Pool(std::io::Error::other(e)))??;
    Ok(Arc::new(configured.with_hash_budget(hashing)))
}

#[cfg(test)]
#[path = "app_tests.rs"]
mod tests;
