//! The HTTP front end (axum): health, Prometheus metrics, admin, and the
//! bulk-load routes of `http_loader.rs`.
//!
//! The admin and loader endpoints take the Bolt users' credentials when
//! the server has users (`http_auth.rs`). Without users the server only
//! listens on loopback, and they are guarded against the one caller a
//! loopback listener cannot keep out, a web page in the operator's
//! browser: a
//! request that carries an `Origin` other than this server's own (every
//! browser sends one with a POST, even a "simple" `text/plain` form), or
//! that a browser marks as cross-site, is refused with 403. Its answers
//! name no paths.

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio::sync::watch;

/// Why the server cannot do its job now (`None`: healthy).
pub type ProblemFn = Arc<dyn Fn() -> Option<String> + Send + Sync>;

/// Facts the health endpoint reports.
#[derive(Clone)]
pub struct HealthInfo {
    pub bolt_address: String,
    /// Asked on every `/health`: a problem makes the answer 503 with the
    /// reason (e.g. the transaction log cannot be written), so a load
    /// balancer or operator sees a server that refuses writes.
    pub problem: Option<ProblemFn>,
}

pub fn router(info: HealthInfo) -> Router {
    router_with_admin(info, None)
}

/// Takes a checkpoint (blocking); returns its description or an error text.
pub type CheckpointFn = Arc<dyn Fn() -> Result<Value, String> + Send + Sync>;

/// The admin endpoints and what guards them.
#[derive(Clone)]
pub struct Admin {
    pub checkpoint: CheckpointFn,
    /// The origins (`http://host:port`) of this server's own HTTP address:
    /// the configured one and the bound one.
    pub own_origins: Vec<String>,
}

/// The router plus `POST /admin/checkpoint` when `admin` is given.
pub fn router_with_admin(info: HealthInfo, admin: Option<Admin>) -> Router {
    let router = Router::new()
        .route("/health", get(health))
        .with_state(Arc::new(info));
    match admin {
        Some(admin) => router.merge(admin_routes(admin)),
        None => router,
    }
}

/// `POST /admin/checkpoint` alone (to put behind authentication).
pub fn admin_routes(admin: Admin) -> Router {
    Router::new().route(
        "/admin/checkpoint",
        post(admin_checkpoint).with_state(Arc::new(admin)),
    )
}

/// Renders the metrics text (see `metrics_text.rs`).
pub type MetricsFn = Arc<dyn Fn() -> String + Send + Sync>;

/// `router` plus `GET /metrics`. Unauthenticated like `/health` (it shows
/// counts, never data); rendering reads atomics, so it runs right on the
/// async worker.
pub fn with_metrics(router: Router, metrics: MetricsFn) -> Router {
    let scrape = move || {
        let body = metrics();
        async move {
            (
                [(
                    axum::http::header::CONTENT_TYPE,
                    crate::metrics_text::CONTENT_TYPE,
                )],
                body,
            )
        }
    };
    router.route("/metrics", get(scrape))
}

/// Why a request may not use the admin endpoints, if it may not.
pub(crate) fn cross_origin(headers: &HeaderMap, own_origins: &[String]) -> Option<String> {
    if let Some(origin) = headers.get("origin") {
        let origin = origin.to_str().unwrap_or_default();
        if !own_origins
            .iter()
            .any(|own| own.eq_ignore_ascii_case(origin))
        {
            return Some("cross-origin requests are refused".into());
        }
    }
    match headers.get("sec-fetch-site").map(|v| v.to_str()) {
        None | Some(Ok("same-origin" | "none")) => None,
        Some(_) => Some("cross-site requests are refused".into()),
    }
}

/// `POST /admin/checkpoint`: 200 with the checkpoint's description, 403
/// from another origin, 500 when it fails (the reason goes to the log).
async fn admin_checkpoint(
    State(admin): State<Arc<Admin>>,
    headers: HeaderMap,
) -> (StatusCode, Json<Value>) {
    if let Some(reason) = cross_origin(&headers, &admin.own_origins) {
        tracing::warn!("POST /admin/checkpoint refused: {reason}");
        return (StatusCode::FORBIDDEN, Json(json!({ "error": reason })));
    }
    let f = admin.checkpoint.clone();
    let failed = |e: String| {
        tracing::error!("checkpoint requested over HTTP failed: {e}");
        (
            StatusCode::INTERNAL_SERVER_ERROR,
            Json(json!({ "error": "the checkpoint failed; the server log has the reason" })),
        )
    };
    match tokio::task::spawn_blocking(move || f()).await {
        Ok(Ok(done)) => (StatusCode::OK, Json(json!({ "checkpoint": done }))),
        Ok(Err(e)) => failed(e),
        Err(e) => failed(e.to_string()),
    }
}

/// `http://address` for each address, for [`Admin::own_origins`].
pub fn origins_of<'a>(addresses: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    addresses
        .into_iter()
        .map(|address| format!("http://{address}"))
        .collect()
}

/// `GET /health`: 200 `{"status": "ok"}`, or 503 `{"status": "unhealthy",
/// "reason": ...}` while the server has a problem.
async fn health(State(info): State<Arc<HealthInfo>>) -> (StatusCode, Json<Value>) {
    // Asking may touch the disk (a failed log tries to resume): off the
    // async workers.
    let problem = match info.problem.clone() {
        None => None,
        Some(problem) => tokio::task::spawn_blocking(move || problem())
            .await
            .unwrap_or_else(|e| Some(format!("the health check failed: {e}"))),
    };
    let (code, status) = match problem {
        None => (StatusCode::OK, "ok"),
        Some(_) => (StatusCode::SERVICE_UNAVAILABLE, "unhealthy"),
    };
    let mut body = json!({
        "status": status,
        "version": env!("CARGO_PKG_VERSION"),
        "bolt_address": info.bolt_address,
    });
    if let Some(reason) = problem {
        body["reason"] = Value::String(reason);
    }
    (code, Json(body))
}

/// Serves until `shutdown` turns true; over TLS when `tls` is given
/// (`--http-tls`).
pub async fn serve(
    listener: TcpListener,
    router: Router,
    tls: Option<tokio_rustls::TlsAcceptor>,
    mut shutdown: watch::Receiver<bool>,
) -> std::io::Result<()> {
    // The peer address reaches handlers (the credential check's per-address
    // lock-out reads it).
    let service = router.into_make_service_with_connect_info::<std::net::SocketAddr>();
    let stopped = async move {
        while !*shutdown.borrow() {
            if shutdown.changed().await.is_err() {
                return;
            }
        }
    };
    match tls {
        None => {
            axum::serve(listener, service)
                .with_graceful_shutdown(stopped)
                .await
        }
        Some(acceptor) => {
            use axum::serve::ListenerExt;
            // `tap_io` gives the TLS listener the peer address extractor.
            let listener = crate::https::TlsListener::new(listener, acceptor)?.tap_io(|_| {});
            axum::serve(listener, service)
                .with_graceful_shutdown(stopped)
                .await
        }
    }
}
