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
//! name no paths. The web console (`console.rs`, served at `/`) is such a
//! page of the server's own origin.

use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
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

/// `router` plus `GET /metrics`; the caller puts it behind the users'
/// credentials when the server has users (any user may scrape: it shows
/// counts, never data; docs/adr/0117-metrics-behind-credentials.md).
/// Rendering reads atomics, so it runs right on the async worker.
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
        let listed = own_origins
            .iter()
            .any(|own| own.eq_ignore_ascii_case(origin));
        if !listed && !named_by_its_address(origin, headers) {
            return Some("cross-origin requests are refused".into());
        }
    }
    match headers.get("sec-fetch-site").map(|v| v.to_str()) {
        None | Some(Ok("same-origin" | "none")) => None,
        Some(_) => Some("cross-site requests are refused".into()),
    }
}

/// Whether `origin` is the page the request's `Host` names, when that host
/// is an address (an IP literal) or `localhost`: the web console opened as
/// `http://localhost:7474` or `http://10.0.0.5:7474` while the server
/// listens on `0.0.0.0:7474`. Such an origin is a page this very listener
/// served (an address resolves only to itself), so it may call the API. A
/// host *name* is not enough: a DNS-rebinding page is served under its own
/// name and would match its own `Host`.
fn named_by_its_address(origin: &str, headers: &HeaderMap) -> bool {
    let Some(host) = headers.get(header::HOST).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    let page = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"));
    if !page.is_some_and(|page| page.eq_ignore_ascii_case(host)) {
        return false;
    }
    let name = match host.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or_default(),
        None => host.rsplit_once(':').map_or(host, |(name, _port)| name),
    };
    name.eq_ignore_ascii_case("localhost") || name.parse::<std::net::IpAddr>().is_ok()
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

#[cfg(test)]
mod tests {
    use super::cross_origin;
    use axum::http::{HeaderMap, HeaderValue};

    fn request(origin: &str, host: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert("origin", HeaderValue::from_str(origin).unwrap());
        headers.insert("host", HeaderValue::from_str(host).unwrap());
        headers
    }

    #[test]
    fn a_page_served_under_an_address_or_localhost_is_its_own_origin() {
        let listed = vec!["http://0.0.0.0:7474".to_string()];
        for (origin, host) in [
            ("http://localhost:7474", "localhost:7474"),
            ("http://127.0.0.1:7474", "127.0.0.1:7474"),
            ("https://10.0.0.5:7474", "10.0.0.5:7474"),
            ("http://[::1]:7474", "[::1]:7474"),
            ("http://0.0.0.0:7474", "elsewhere:1"),
        ] {
            assert_eq!(
                cross_origin(&request(origin, host), &listed),
                None,
                "{origin}"
            );
        }
        for (origin, host) in [
            // DNS rebinding: the attacker's name, pointed at this server.
            ("http://rebound.example:7474", "rebound.example:7474"),
            // Another service on the same machine.
            ("http://localhost:8080", "localhost:7474"),
            ("http://evil.example", "localhost:7474"),
            ("null", "localhost:7474"),
            ("ftp://localhost:7474", "localhost:7474"),
        ] {
            assert!(
                cross_origin(&request(origin, host), &listed).is_some(),
                "{origin}"
            );
        }
    }
}
