//! `GET /export?format=ntriples|nquads` (default `nquads`): the graph as
//! RDF (docs/adr/0108-onegraph-rdf.md), streamed; with `&query=<Cypher>`
//! (URL-encoded), only the subgraph that read-only query returns.
//!
//! Why a stream of bounded chunks: a graph's document is larger than the
//! graph, so building it before answering held it all in memory. The
//! engine writes one snapshot on a blocking thread into a [`ChunkWriter`],
//! whose chunks go through a channel of [`CHUNKS_IN_FLIGHT`] to the
//! response body (chunked transfer): a slow client makes the writer wait,
//! so the export holds at most a few chunks whatever the graph's size
//! (ADR 0113). What refuses an export (an unknown format, relationship
//! properties) is decided before the status line; a failure later can
//! only cut the body short, which the client sees as a broken transfer.

use std::io::{self, Write};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes};
use axum::extract::{Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use nereid_engine::{DbError, InputFormat, Loader, RdfSyntax};
use nereid_errors::{Classification, Status};
use serde_json::json;
use tokio::sync::{mpsc, oneshot};

/// Bytes the writer gathers before handing a chunk to the body.
pub(crate) const CHUNK_BYTES: usize = 64 << 10;

/// Chunks written but not yet sent to the client, at most.
const CHUNKS_IN_FLIGHT: usize = 4;

type Chunk = Result<Bytes, io::Error>;

/// What `GET /export` takes from its query string.
#[derive(serde::Deserialize)]
pub(crate) struct ExportAsked {
    format: Option<String>,
    query: Option<String>,
}

/// The export handler, over the loader's database.
pub(crate) async fn export(
    State(loader): State<Arc<Loader>>,
    Query(asked): Query<ExportAsked>,
) -> Response {
    let name = asked.format.unwrap_or_else(|| "nquads".to_owned());
    let query = asked.query;
    let (syntax, content_type) = match InputFormat::from_name(&name) {
        Some(InputFormat::Rdf(RdfSyntax::NTriples)) => {
            (RdfSyntax::NTriples, "application/n-triples")
        }
        Some(InputFormat::Rdf(RdfSyntax::NQuads)) => (RdfSyntax::NQuads, "application/n-quads"),
        _ => {
            let e = DbError {
                status: Status::RequestInvalid,
                message: format!("format `{name}`: expected ntriples or nquads"),
            };
            return refused(&e);
        }
    };
    let (opened, checked) = oneshot::channel();
    let (chunks, body) = mpsc::channel(CHUNKS_IN_FLIGHT);
    tokio::task::spawn_blocking(move || {
        let opened_export = match &query {
            None => loader.export_rdf(syntax),
            Some(query) => loader.export_rdf_subgraph(syntax, query, Default::default()),
        };
        let export = match opened_export {
            Ok(export) => export,
            Err(e) => {
                let _ = opened.send(Err(e));
                return;
            }
        };
        let _ = opened.send(Ok(()));
        let mut out = ChunkWriter::new(chunks);
        if let Err(e) = export.write_to(&mut out) {
            tracing::warn!("export ended early: {}", e.message);
            out.fail(e.message);
        }
    });
    match checked.await {
        Ok(Ok(())) => {
            let body = Body::from_stream(ChunkStream(body));
            ([(header::CONTENT_TYPE, content_type)], body).into_response()
        }
        Ok(Err(e)) => refused(&e),
        Err(_) => refused(&DbError {
            status: Status::General,
            message: "export: the writer stopped before it started".into(),
        }),
    }
}

/// An error answered before the body: 400 for the client's, 500 else.
fn refused(e: &DbError) -> Response {
    let code = match e.status.classification() {
        Classification::ClientError => StatusCode::BAD_REQUEST,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    };
    let body = json!({ "code": e.status.code(), "message": e.message });
    (code, Json(body)).into_response()
}

/// A `Write` that hands [`CHUNK_BYTES`] at a time to the response body,
/// waiting while [`CHUNKS_IN_FLIGHT`] are unsent; a client gone is a
/// broken pipe, which ends the export.
pub(crate) struct ChunkWriter {
    buffer: Vec<u8>,
    chunks: mpsc::Sender<Chunk>,
}

impl ChunkWriter {
    pub(crate) fn new(chunks: mpsc::Sender<Chunk>) -> ChunkWriter {
        ChunkWriter {
            buffer: Vec::with_capacity(CHUNK_BYTES),
            chunks,
        }
    }

    fn send(&mut self, chunk: Chunk) -> io::Result<()> {
        self.chunks
            .blocking_send(chunk)
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the client went away"))
    }

    fn send_buffer(&mut self) -> io::Result<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let full = std::mem::replace(&mut self.buffer, Vec::with_capacity(CHUNK_BYTES));
        self.send(Ok(Bytes::from(full)))
    }

    /// Ends the body with an error: the transfer is cut short.
    fn fail(mut self, message: String) {
        let _ = self.send(Err(io::Error::other(message)));
    }
}

impl Write for ChunkWriter {
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        let room = CHUNK_BYTES - self.buffer.len();
        let taken = bytes.len().min(room);
        self.buffer.extend_from_slice(&bytes[..taken]);
        if self.buffer.len() == CHUNK_BYTES {
            self.send_buffer()?;
        }
        Ok(taken)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.send_buffer()
    }
}

/// The receiving end as the body's stream of chunks.
struct ChunkStream(mpsc::Receiver<Chunk>);

impl futures_core::Stream for ChunkStream {
    type Item = Chunk;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Chunk>> {
        self.0.poll_recv(cx)
    }
}
