//! Neo4j's HTTP Query API (`POST /db/{name}/query/v2`, and explicit
//! transactions under `/db/{name}/query/v2/tx`), so curl users and tools
//! that speak it reach the same engine as Bolt clients: one statement per
//! request, its rows as plain or typed JSON (`values_out.rs`), parameters
//! likewise (`values_in.rs`), counters, notifications and plans
//! (`summary_json.rs`), errors as `{"errors": [{code, message}]}` with
//! Neo4j's HTTP statuses. The shapes were checked against the reference
//! Neo4j 5.26's own Query API.
//!
//! Statements run on tokio's blocking threads under the server's default
//! transaction timeout; an answer is held in memory whole (as Neo4j's is),
//! so its size is charged against the per-query memory limit.

mod open_transactions;
mod summary_json;
mod values_in;
mod values_out;

use crate::bolt::{Backend, ResultStream};
use axum::body::Bytes;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use nereid_dfe::{Deadline, TimeoutOrigin};
use nereid_engine::{Client, DbError, Params};
use nereid_errors::{Classification, Status};
use open_transactions::OpenTransactions;
use serde_json::{json, Map, Value as Json};
use std::net::SocketAddr;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant, SystemTime};
use values_out::Format;

/// The media type of typed JSON (with or without Neo4j's `.v1.1` suffix).
const TYPED: &str = "application/vnd.neo4j.query";

/// What the Query API routes serve from.
struct Api<B: Backend> {
    backend: Arc<B>,
    open: OpenTransactions<B::Tx>,
    timeout: Option<Duration>,
    /// Requests from other origins are refused, as the admin endpoints
    /// refuse them, so a web page cannot query through a visitor's browser.
    own_origins: Vec<String>,
}

/// The Query API's routes over `backend`; statements run under `timeout`
/// (the server's default transaction timeout) when set; requests must come
/// from `own_origins` when they name an origin.
pub fn routes<B: Backend>(
    backend: Arc<B>,
    timeout: Option<Duration>,
    own_origins: Vec<String>,
) -> Router {
    let api = Arc::new(Api {
        backend,
        open: OpenTransactions::new(),
        timeout,
        own_origins,
    });
    tokio::spawn(sweep(Arc::downgrade(&api)));
    Router::new()
        .route("/db/{db}/query/v2", post(auto_commit::<B>))
        .route("/db/{db}/query/v2/tx", post(begin::<B>))
        .route(
            "/db/{db}/query/v2/tx/{id}",
            post(run_in::<B>).delete(rollback::<B>),
        )
        .route("/db/{db}/query/v2/tx/{id}/commit", post(commit::<B>))
        .layer(axum::middleware::map_response(too_large_in_neo4j_shape))
        .layer(axum::extract::DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(api)
}

/// The largest request body the Query API reads: room for `UNWIND $rows`
/// batches of parameters, bounded so that a client cannot make the server
/// buffer without end (the parameters then count against the query's
/// memory limit).
pub const MAX_BODY_BYTES: usize = 64 << 20;

/// A body over [`MAX_BODY_BYTES`] is refused by the extractor with a plain
/// text 413; clients of this API parse `{"errors": [...]}`.
async fn too_large_in_neo4j_shape(response: Response) -> Response {
    if response.status() != StatusCode::PAYLOAD_TOO_LARGE {
        return response;
    }
    into_response(refusal(
        StatusCode::PAYLOAD_TOO_LARGE,
        &format!("The request body is larger than {MAX_BODY_BYTES} bytes"),
    ))
}

/// Rolls back transactions left idle, while the routes live.
async fn sweep<B: Backend>(api: Weak<Api<B>>) {
    let mut tick = tokio::time::interval(Duration::from_secs(5));
    loop {
        tick.tick().await;
        let Some(api) = api.upgrade() else { return };
        for tx in api.open.expired() {
            let backend = api.backend.clone();
            tokio::task::spawn_blocking(move || backend.rollback(tx));
        }
    }
}

/// One request's statement and options.
struct Request {
    /// Who sent it, as `SHOW TRANSACTIONS` shows it.
    client: Client,
    statement: Option<String>,
    params: Params,
    counters: bool,
    read_only: bool,
    format: Format,
}

async fn auto_commit<B: Backend>(
    State(api): State<Arc<Api<B>>>,
    Path(db): Path<String>,
    parts: Parts,
    body: Bytes,
) -> Response {
    let request = match parse(&api, &db, &parts, &body, true) {
        Ok(request) => request,
        Err(refused) => return into_response(refused),
    };
    blocking(move || {
        let (answer, _) = api.execute(None, &request);
        answer
    })
    .await
}

async fn begin<B: Backend>(
    State(api): State<Arc<Api<B>>>,
    Path(db): Path<String>,
    parts: Parts,
    body: Bytes,
) -> Response {
    let request = match parse(&api, &db, &parts, &body, false) {
        Ok(request) => request,
        Err(refused) => return into_response(refused),
    };
    blocking(move || {
        let tx = api.backend.begin(Params::new(), &request.client);
        api.continue_in(None, tx, &request)
    })
    .await
}

async fn run_in<B: Backend>(
    State(api): State<Arc<Api<B>>>,
    Path((db, id)): Path<(String, String)>,
    parts: Parts,
    body: Bytes,
) -> Response {
    match in_transaction(&api, &db, &id, &parts, &body, true) {
        Ok((request, tx)) => blocking(move || api.continue_in(Some(id), tx, &request)).await,
        Err(refused) => into_response(refused),
    }
}

async fn commit<B: Backend>(
    State(api): State<Arc<Api<B>>>,
    Path((db, id)): Path<(String, String)>,
    parts: Parts,
    body: Bytes,
) -> Response {
    let (request, tx) = match in_transaction(&api, &db, &id, &parts, &body, false) {
        Ok(found) => found,
        Err(refused) => return into_response(refused),
    };
    blocking(move || {
        let mut answer = match api.statement_in(&tx, &request) {
            Ok(answer) => answer,
            Err(failed) => {
                api.backend.rollback(tx);
                return failed;
            }
        };
        match api.backend.commit(tx) {
            Ok(bookmark) => {
                answer.insert("bookmarks".into(), json!([bookmark]));
                (StatusCode::ACCEPTED, answer)
            }
            Err(e) => failure(&e),
        }
    })
    .await
}

/// A request to an open transaction: its statement and the transaction,
/// taken out for the request.
fn in_transaction<B: Backend>(
    api: &Api<B>,
    db: &str,
    id: &str,
    parts: &Parts,
    body: &[u8],
    needs_statement: bool,
) -> Result<(Request, B::Tx), Answer> {
    let request = parse(api, db, parts, body, needs_statement)?;
    let tx = api.open.take(id).ok_or_else(|| no_transaction(id))?;
    Ok((request, tx))
}

async fn rollback<B: Backend>(
    State(api): State<Arc<Api<B>>>,
    Path((db, id)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    if let Some(reason) = crate::http::cross_origin(&headers, &api.own_origins) {
        return into_response(refusal(StatusCode::FORBIDDEN, &reason));
    }
    if let Err(refused) = check_database(&db) {
        return into_response(refused);
    }
    let Some(tx) = api.open.take(&id) else {
        return into_response(no_transaction(&id));
    };
    let backend = api.backend.clone();
    match tokio::task::spawn_blocking(move || backend.rollback(tx)).await {
        Ok(()) => StatusCode::OK.into_response(),
        Err(e) => internal(&e.to_string()),
    }
}

/// An answer: its HTTP status and JSON object.
type Answer = (StatusCode, Map<String, Json>);

impl<B: Backend> Api<B> {
    /// Runs the request's statement in `tx` (auto-commit when `None`); the
    /// answer, and whether it ran to its end.
    fn execute(&self, tx: Option<&B::Tx>, request: &Request) -> (Answer, bool) {
        let statement = request.statement.as_deref().unwrap_or_default();
        if request.read_only {
            match self.backend.writes(statement) {
                Ok(false) => {}
                Ok(true) => {
                    return (
                        failure(&DbError {
                            status: Status::AccessMode,
                            message: "Writing in read access mode not allowed. Attempted write to \
                                      neo4j"
                                .into(),
                        }),
                        false,
                    )
                }
                Err(e) => return (failure(&e), false),
            }
        }
        let deadline = self
            .timeout
            .map(|limit| Deadline::after(Instant::now(), limit, TimeoutOrigin::Server));
        let params = request.params.clone();
        let mut results = match self.backend.run(
            tx,
            statement,
            params,
            deadline,
            Params::new(),
            &request.client,
        ) {
            Ok(results) => results,
            Err(e) => return (failure(&e), false),
        };
        let fields = results.fields().to_vec();
        // Stops the statement once its answer outgrows the memory limit.
        let cancel = results.cancel_handle();
        let mut values = Vec::new();
        let budget = self.backend.query_max_memory();
        let mut held = 0usize;
        let mut over_budget = false;
        let mut too_deep = false;
        let format = request.format;
        let pulled = results.pull(-1, &mut |row, resolver| {
            if over_budget || too_deep {
                return;
            }
            let row = row
                .iter()
                .map(|v| values_out::to_json(v, resolver, format))
                .collect::<Result<Vec<Json>, _>>();
            let Ok(row) = row else {
                too_deep = true;
                if let Some(cancel) = &cancel {
                    cancel.store(true, std::sync::atomic::Ordering::Relaxed);
                }
                return;
            };
            held += serde_json::to_vec(&row).map_or(0, |bytes| bytes.len());
            if budget > 0 && held > budget {
                over_budget = true;
                if let Some(cancel) = &cancel {
                    cancel.store(true, std::sync::atomic::Ordering::Relaxed);
                }
            }
            values.push(Json::Array(row));
        });
        let mut answer = Map::new();
        answer.insert("data".into(), json!({ "fields": fields, "values": values }));
        let error = match (pulled, over_budget) {
            _ if too_deep => Some(DbError {
                status: Status::ArgumentError,
                message: format!(
                    "A value of the answer nests lists and maps deeper than {} levels, \
                     which the Query API does not write; use Bolt, which streams it.",
                    values_out::MAX_DEPTH
                ),
            }),
            (_, true) => Some(DbError {
                status: Status::MemoryPoolOutOfMemoryError,
                message: format!(
                    "The answer would hold more than the query memory limit ({budget} bytes); \
                     return fewer rows or use Bolt, which streams them."
                ),
            }),
            (Err(e), false) => Some(e),
            (Ok(_), false) => None,
        };
        if let Some(e) = error {
            // Rows before the failure stay in the answer, as Neo4j sends them.
            answer.insert("errors".into(), errors(&e));
            return ((StatusCode::ACCEPTED, answer), false);
        }
        let summary = results.summary();
        summary_json::add(&mut answer, &summary, request.counters);
        if tx.is_none() {
            let bookmarks: Vec<&str> = summary.bookmark.as_deref().into_iter().collect();
            answer.insert("bookmarks".into(), json!(bookmarks));
        }
        ((StatusCode::ACCEPTED, answer), true)
    }

    /// The request's statement (if it has one) run in `tx`: the answer so
    /// far, or the failed answer (the caller rolls `tx` back).
    fn statement_in(&self, tx: &B::Tx, request: &Request) -> Result<Map<String, Json>, Answer> {
        if request.statement.is_none() {
            return Ok(Map::new());
        }
        match self.execute(Some(tx), request) {
            ((_, answer), true) => Ok(answer),
            (failed, false) => Err(failed),
        }
    }

    /// Runs the request (if it has a statement) in `tx` and keeps `tx` open
    /// under `id` (a new one when `None`); a failed statement rolls it back.
    fn continue_in(&self, id: Option<String>, tx: B::Tx, request: &Request) -> Answer {
        let mut answer = match self.statement_in(&tx, request) {
            Ok(answer) => answer,
            Err(failed) => {
                self.backend.rollback(tx);
                return failed;
            }
        };
        match self.open.keep(id, tx) {
            Ok((id, expires)) => {
                answer.insert(
                    "transaction".into(),
                    json!({ "id": id, "expires": iso_utc(expires) }),
                );
                (StatusCode::ACCEPTED, answer)
            }
            Err(tx) => {
                self.backend.rollback(tx);
                failure(&DbError {
                    status: Status::NoThreadsAvailable,
                    message: format!(
                        "{} explicit transactions are open over HTTP; commit or roll back some",
                        open_transactions::MAX_OPEN
                    ),
                })
            }
        }
    }
}

/// The request's statement and options, or the refusal to answer with.
/// `needs_statement`: the statement is required (else the body may be
/// empty or omit it: BEGIN and COMMIT).
fn parse<B: Backend>(
    api: &Api<B>,
    db: &str,
    parts: &Parts,
    body: &[u8],
    needs_statement: bool,
) -> Result<Request, Answer> {
    let headers = &parts.headers;
    if let Some(reason) = crate::http::cross_origin(headers, &api.own_origins) {
        tracing::warn!("Query API request refused: {reason}");
        return Err(refusal(StatusCode::FORBIDDEN, &reason));
    }
    check_database(db)?;
    let content_type = header_text(headers, header::CONTENT_TYPE);
    let typed_in = content_type.starts_with(TYPED);
    if !body.is_empty() && !typed_in && !content_type.starts_with("application/json") {
        return Err(refusal(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            "Send application/json or application/vnd.neo4j.query",
        ));
    }
    let accept = header_text(headers, header::ACCEPT);
    let format = if accept.contains(TYPED) {
        Format::Typed
    } else if accept.is_empty() || accept.contains("application/json") || accept.contains("*/*") {
        Format::Plain
    } else {
        return Err(refusal(
            StatusCode::NOT_ACCEPTABLE,
            "Answers are application/json or application/vnd.neo4j.query",
        ));
    };
    let json: Json = if body.iter().all(u8::is_ascii_whitespace) {
        Json::Object(Map::new())
    } else {
        serde_json::from_slice(body).map_err(|e| invalid(&format!("Bad Request: {e}")))?
    };
    let Json::Object(fields) = json else {
        return Err(invalid("Bad Request: the body must be a JSON object"));
    };
    let mut request = Request {
        client: client_of(parts),
        statement: None,
        params: Params::new(),
        counters: false,
        read_only: false,
        format,
    };
    for (key, value) in &fields {
        match (key.as_str(), value) {
            ("statement", Json::String(s)) => request.statement = Some(s.clone()),
            ("parameters", value) => {
                request.params = values_in::parameters(value, typed_in)
                    .map_err(|why| invalid(&format!("Bad Request: parameters: {why}")))?
            }
            ("includeCounters", Json::Bool(b)) => request.counters = *b,
            ("accessMode", Json::String(mode)) if mode.eq_ignore_ascii_case("READ") => {
                request.read_only = true
            }
            ("accessMode", Json::String(mode)) if mode.eq_ignore_ascii_case("WRITE") => {}
            // Bookmarks need no wait here: one server, every commit visible.
            ("bookmarks", Json::Array(items)) if items.iter().all(Json::is_string) => {}
            _ => {
                return Err(invalid(&format!(
                    "Bad Request: unexpected `{key}`: {value}"
                )))
            }
        }
    }
    if needs_statement && request.statement.is_none() {
        return Err(invalid("Bad Request: `statement` is required"));
    }
    Ok(request)
}

/// The request's sender: its peer address, its user when authenticated.
fn client_of(parts: &Parts) -> Client {
    let peer = parts
        .extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|info| info.0.to_string());
    let user = parts.extensions.get::<crate::http_auth::HttpUser>();
    Client {
        connection_id: "http".into(),
        address: peer.unwrap_or_default(),
        username: user.map(|u| u.name.clone()).unwrap_or_default(),
        protocol: "http",
        request_uri: header_text(&parts.headers, header::HOST),
        access: user.map(|u| u.access.clone()).unwrap_or_default(),
        read_only: false,
    }
}

/// Only the default database exists; `system` is not served here.
fn check_database(db: &str) -> Result<(), Answer> {
    if db == nereid_dfe::DEFAULT_DATABASE {
        return Ok(());
    }
    let e = DbError {
        status: Status::DatabaseNotFound,
        message: format!("Graph not found: {db}"),
    };
    Err(failure(&e))
}

fn header_text(headers: &HeaderMap, name: header::HeaderName) -> String {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_ascii_lowercase()
}

/// Runs `work` on a blocking thread and answers with what it returns.
async fn blocking(work: impl FnOnce() -> Answer + Send + 'static) -> Response {
    match tokio::task::spawn_blocking(work).await {
        Ok(answer) => into_response(answer),
        Err(e) => internal(&e.to_string()),
    }
}

fn into_response((status, body): Answer) -> Response {
    (status, axum::Json(Json::Object(body))).into_response()
}

/// A statement that failed before any row: 400 for the client's errors
/// (404 for a missing database), 500 otherwise.
fn failure(e: &DbError) -> Answer {
    let status = match (e.status, e.status.classification()) {
        (Status::DatabaseNotFound, _) => StatusCode::NOT_FOUND,
        (_, Classification::ClientError) => StatusCode::BAD_REQUEST,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    let mut body = Map::new();
    body.insert("errors".into(), errors(e));
    (status, body)
}

/// Neo4j's Query API error: code and Neo4j's message (no detail prefix).
fn errors(e: &DbError) -> Json {
    json!([{ "code": e.status.code(), "message": e.client_message() }])
}

fn invalid(message: &str) -> Answer {
    refusal(StatusCode::BAD_REQUEST, message)
}

fn refusal(status: StatusCode, message: &str) -> Answer {
    let e = DbError {
        status: Status::RequestInvalid,
        message: message.to_string(),
    };
    (status, failure(&e).1)
}

fn no_transaction(id: &str) -> Answer {
    refusal(
        StatusCode::NOT_FOUND,
        &format!("Transaction with Id: \"{id}\" was not found. It may have timed out and therefore rolled back."),
    )
}

fn internal(why: &str) -> Response {
    tracing::error!("Query API request failed: {why}");
    into_response(refusal(
        StatusCode::INTERNAL_SERVER_ERROR,
        "the request failed inside the server",
    ))
}

/// `2026-11-26T22:37:13Z`.
fn iso_utc(at: SystemTime) -> String {
    let at: nereid_values::temporal::chrono::DateTime<nereid_values::temporal::chrono::Utc> =
        at.into();
    at.format("%Y-%m-%dT%H:%M:%SZ").to_string()
}
