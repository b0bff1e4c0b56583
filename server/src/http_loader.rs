//! The bulk-load endpoint, shaped after Neptune's loader: `POST /loader`
//! queues a load and answers its id at once, `GET /loader/{id}` reports
//! its state, `GET /loader` lists loads, `DELETE /loader/{id}` cancels;
//! `GET /export?format=ntriples|nquads` writes the graph back as RDF.
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
    DbError, InputFormat, LoadRequest, LoadStatus, Loader, RdfSyntax, FORMAT_NAMES,
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
    let state = Arc::new(LoaderState {
        loader,
        own_origins,
    });
    router.merge(
        Router::new()
            .route("/loader", get(list).post(submit))
            .route("/loader/{id}", get(status).delete(cancel))
            .route("/export", get(export))
            .with_state(state),
    )
}

/// The request body; unknown fields (Neptune's `region`, `iamRoleArn`,
/// `parallelism`, ...) are accepted and ignored.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Body {
    source: String,
    format: String,
    #[serde(default = "fail_on_error_default")]
    fail_on_error: FlexBool,
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

/// `GET /export?format=ntriples|nquads` (default `nquads`): the graph as
/// RDF (docs/adr/0108-onegraph-rdf.md), written on a blocking thread.
async fn export(
    State(state): State<Arc<LoaderState>>,
    uri: axum::http::Uri,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    let asked = uri.query().unwrap_or("").split('&');
    let name = asked
        .filter_map(|pair| pair.strip_prefix("format="))
        .next_back();
    let name = name.unwrap_or("nquads").to_owned();
    let (syntax, content_type) = match InputFormat::from_name(&name) {
        Some(InputFormat::Rdf(RdfSyntax::NTriples)) => {
            (RdfSyntax::NTriples, "application/n-triples")
        }
        Some(InputFormat::Rdf(RdfSyntax::NQuads)) => (RdfSyntax::NQuads, "application/n-quads"),
        _ => {
            let message = format!("format `{name}`: expected ntriples or nquads");
            return bad_request(message).into_response();
        }
    };
    let loader = state.loader.clone();
    let written = tokio::task::spawn_blocking(move || {
        let mut out = Vec::new();
        loader.export_rdf(syntax, &mut out).map(|_| out)
    })
    .await;
    match written {
        Ok(Ok(body)) => ([(axum::http::header::CONTENT_TYPE, content_type)], body).into_response(),
        Ok(Err(e)) => error(StatusCode::INTERNAL_SERVER_ERROR, &e).into_response(),
        Err(e) => {
            let e = DbError {
                status: Status::General,
                message: format!("export: {e}"),
            };
            error(StatusCode::INTERNAL_SERVER_ERROR, &e).into_response()
        }
    }
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
    let request = LoadRequest {
        source: body.source,
        format,
        fail_on_error,
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
