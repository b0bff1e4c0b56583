//! The HTTP front end (axum): health now, admin and bulk load later.

use axum::extract::State;
use axum::http::StatusCode;
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

/// The router plus `POST /admin/checkpoint` when `checkpoint` is given.
pub fn router_with_admin(info: HealthInfo, checkpoint: Option<CheckpointFn>) -> Router {
    let router = Router::new()
        .route("/health", get(health))
        .with_state(Arc::new(info));
    match checkpoint {
        Some(f) => router.route("/admin/checkpoint", post(admin_checkpoint).with_state(f)),
        None => router,
    }
}

/// `POST /admin/checkpoint`: 200 with the checkpoint's description, 500
/// with the error.
async fn admin_checkpoint(State(f): State<CheckpointFn>) -> (StatusCode, Json<Value>) {
    match tokio::task::spawn_blocking(move || f()).await {
        Ok(Ok(done)) => (StatusCode::OK, Json(json!({ "checkpoint": done }))),
        Ok(Err(e)) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            Json(json!({ "error": e })),
        ),
        Err(e) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            Json(json!({ "error": e.to_string() })),
        ),
    }
}

/// `GET /health`: 200 `{"status": "ok"}`, or 503 `{"status": "unhealthy",
/// "reason": ...}` while the server has a problem.
async fn health(State(info): State<Arc<HealthInfo>>) -> (StatusCode, Json<Value>) {
    let problem = info.problem.as_ref().and_then(|problem| problem());
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

/// Serves until `shutdown` turns true.
pub async fn serve(
    listener: TcpListener,
    router: Router,
    mut shutdown: watch::Receiver<bool>,
) -> std::io::Result<()> {
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            while !*shutdown.borrow() {
                if shutdown.changed().await.is_err() {
                    return;
                }
            }
        })
        .await
}
