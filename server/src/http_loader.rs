//! The bulk-load endpoint, shaped after Neptune's loader: `POST /loader`
//! queues a load and answers its id at once, `GET /loader/{id}` reports
//! its state, `GET /loader` lists loads, `DELETE /loader/{id}` cancels;
//! `GET /export?format=ntriples|nquads` writes the graph back as RDF (`http_export.rs`).
//! The loads themselves (files, transaction, import-directory checks) are
//! the engine's [`Loader`]; this module only maps JSON and HTTP statuses.
//!
//! Like the admin endpoint it has no authentication yet and refuses
//! cross-origin requests that change state (see `http.rs`).

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::routing::get;
use axum::{Json, Router};
use nereid_engine::{
    DbError, InputFormat, LoadMode, LoadRequest, LoadStatus, Loader, FORMAT_NAMES,
};
use nereid_errors::{Classification, Status};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::http::cross_origin;

struct LoaderState {
    loader: Arc<Loader>,
    own_origins: Vec<String>,
}

/// `router` plus the `/loader` routes.
pub fn with_loader(router: Router, loader: Arc<Loader>, own_origins: Vec<String>) -> Router {
    let export_loader = loader.clone();
    let state = Arc::new(LoaderState {
        loader,
        own_origins,
    });
    router
        .merge(
            Router::new()
                .route("/loader", get(list).post(submit))
                .route("/loader/{id}", get(status).delete(cancel))
                .with_state(state),
        )
        .merge(
            Router::new()
                .route("/export", get(crate::http_export::export))
                .with_state(export_loader),
        )
}

/// The request body; unknown fields (Neptune's `region`, `iamRoleArn`,
/// `parallelism`, ...) are accepted and ignored. `mode` is Neptune's: a
/// load in `AUTO` (the default) or `RESUME` skips the files an earlier
/// load of the same source has loaded (`nereid_engine::LoadMode`).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Body {
    source: String,
    format: String,
    #[serde(default = "fail_on_error_default")]
    fail_on_error: FlexBool,
    /// `NEW`, `AUTO` (Neptune's default) or `RESUME`.
    mode: Option<String>,
}

/// Neptune's examples write `"failOnError": "TRUE"`; JSON booleans work too.
#[derive(Deserialize)]
#[serde(untagged)]
enum FlexBool {
    Bool(bool),
    Text(String),
}

fn fail_on_error_default() -> FlexBool {
    FlexBool::Bool(true)
}

type Answer = (StatusCode, Json<Value>);

fn error(code: StatusCode, e: &DbError) -> Answer {
    (
        code,
        Json(json!({ "code": e.status.code(), "message": e.message })),
    )
}

fn bad_request(message: String) -> Answer {
    let e = DbError {
        status: Status::RequestInvalid,
        message,
    };
    error(StatusCode::BAD_REQUEST, &e)
}

fn refused_cross_origin(headers: &HeaderMap, state: &LoaderState) -> Option<Answer> {
    let reason = cross_origin(headers, &state.own_origins)?;
    tracing::warn!("loader request refused: {reason}");
    Some((StatusCode::FORBIDDEN, Json(json!({ "error": reason }))))
}

async fn submit(
    State(state): State<Arc<LoaderState>>,
    headers: HeaderMap,
    body: Result<Json<Body>, axum::extract::rejection::JsonRejection>,
) -> Answer {
    if let Some(refused) = refused_cross_origin(&headers, &state) {
        return refused;
    }
    let Json(body) = match body {
        Ok(body) => body,
        Err(e) if e.status() == StatusCode::PAYLOAD_TOO_LARGE => {
            let e = DbError {
                status: Status::RequestInvalid,
                message: e.body_text(),
            };
            return error(StatusCode::PAYLOAD_TOO_LARGE, &e);
        }
        Err(e) => return bad_request(e.body_text()),
    };
    let Some(format) = InputFormat::from_name(&body.format) else {
        return bad_request(format!("format `{}`: expected {FORMAT_NAMES}", body.format));
    };
    let fail_on_error = match body.fail_on_error {
        FlexBool::Bool(b) => b,
        FlexBool::Text(t) if t.eq_ignore_ascii_case("true") => true,
        FlexBool::Text(t) if t.eq_ignore_ascii_case("false") => false,
        FlexBool::Text(t) => return bad_request(format!("failOnError `{t}`: expected a boolean")),
    };
    let mode = match body.mode.as_deref().map(|m| (m, LoadMode::from_name(m))) {
        None => LoadMode::Auto,
        Some((_, Some(mode))) => mode,
        Some((m, None)) => return bad_request(format!("mode `{m}`: expected NEW, AUTO or RESUME")),
    };
    let request = LoadRequest {
        source: body.source,
        format,
        fail_on_error,
        mode,
    };
    // Resolving the source touches the disk: off the async workers.
    let loader = state.loader.clone();
    match tokio::task::spawn_blocking(move || loader.submit(request)).await {
        Ok(Ok(id)) => (
            StatusCode::OK,
            Json(json!({ "status": "200 OK", "payload": { "loadId": id } })),
        ),
        Ok(Err(e)) => {
            let code = match e.status.classification() {
                Classification::ClientError => StatusCode::BAD_REQUEST,
                _ => StatusCode::INTERNAL_SERVER_ERROR,
            };
            error(code, &e)
        }
        Err(e) => bad_request(e.to_string()),
    }
}

async fn list(State(state): State<Arc<LoaderState>>) -> Answer {
    let ids = state.loader.list();
    (
        StatusCode::OK,
        Json(json!({ "status": "200 OK", "payload": { "loadIds": ids } })),
    )
}

fn not_found(id: &str) -> Answer {
    (
        StatusCode::NOT_FOUND,
        Json(json!({ "code": "LoadNotFound", "message": format!("no load with id `{id}`") })),
    )
}

async fn status(State(state): State<Arc<LoaderState>>, Path(id): Path<String>) -> Answer {
    match state.loader.status(&id) {
        Some(status) => (
            StatusCode::OK,
            Json(json!({ "status": "200 OK", "payload": render(&status) })),
        ),
        None => not_found(&id),
    }
}

async fn cancel(
    State(state): State<Arc<LoaderState>>,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Answer {
    if let Some(refused) = refused_cross_origin(&headers, &state) {
        return refused;
    }
    match state.loader.cancel(&id) {
        Some(after) => (
            StatusCode::OK,
            Json(json!({ "status": "200 OK", "payload": { "loadId": id, "state": after.name() } })),
        ),
        None => not_found(&id),
    }
}

/// A load's status in Neptune's shape (`overallStatus`, `errors`).
fn render(s: &LoadStatus) -> Value {
    let seconds = s.elapsed.as_secs_f64();
    let errors: Vec<Value> = s
        .errors
        .iter()
        .map(|e| {
            json!({
                "file": e.file, "line": e.line, "column": e.column,
                "code": e.status.code(), "message": e.message,
            })
        })
        .collect();
    let mut overall = json!({
        "loadId": s.id,
        "status": s.state.name(),
        "source": s.source,
        "filesTotal": s.files_total,
        "filesDone": s.files_done,
        "totalRecords": s.records,
        "bytesRead": s.bytes,
        "bytesTotal": s.bytes_total,
        "phase": s.phase.name(),
        "estimatedReadingTimeLeft": s.reading_time_left().map(|d| d.as_secs_f64()),
        "propertyValues": s.property_values,
        "totalTimeSpent": seconds,
        "recordsPerSecond": if seconds > 0.0 { s.records as f64 / seconds } else { 0.0 },
        "errorCount": s.error_count,
    });
    if let Some(failure) = &s.failure {
        overall["failure"] = json!({ "code": failure.status.code(), "message": failure.message });
    }
    json!({ "overallStatus": overall, "errors": { "errorLogs": errors } })
}
