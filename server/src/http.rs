//! The HTTP front end (axum): health now, admin and bulk load later.

use axum::extract::State;
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{json, Value};
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio::sync::watch;

/// Facts the health endpoint reports.
#[derive(Clone, Debug)]
pub struct HealthInfo {
    pub bolt_address: String,
}

pub fn router(info: HealthInfo) -> Router {
    Router::new()
        .route("/health", get(health))
        .with_state(Arc::new(info))
}

async fn health(State(info): State<Arc<HealthInfo>>) -> Json<Value> {
    Json(json!({
        "status": "ok",
        "version": env!("CARGO_PKG_VERSION"),
        "bolt_address": info.bolt_address,
    }))
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
