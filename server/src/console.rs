//! The web console: a page at `/` and its scripts and styles under
//! `/console/`, compiled into the binary (`server/console/`, plain ES
//! modules and CSS with no build step: docs/adr/0116-console-without-a-build-step.md).
//!
//! The files hold no data, so they are served without credentials: the
//! page itself asks for them (its login form) and sends them with each
//! Query API request it makes. Every answer carries a Content-Security-Policy
//! that allows only this origin's scripts, styles and requests (no inline
//! code, no framing), so text from the database that reached the page could
//! never run as script there.

use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;

macro_rules! files {
    ($($name:literal),* $(,)?) => {
        &[$(($name, include_bytes!(concat!("../console/", $name)))),*]
    };
}

/// The console's files by name: `index.html` is served at `/`, the others
/// under `/console/`.
const FILES: &[(&str, &[u8])] = files![
    "index.html",
    "console.css",
    "main.js",
    "api.js",
    "login.js",
    "editor.js",
    "values.js",
    "table.js",
    "graph.js",
    "layout.js",
    "plan.js",
    "sidebar.js",
];

/// Where a file is served.
fn path_of(name: &str) -> String {
    match name {
        "index.html" => "/".into(),
        _ => format!("/console/{name}"),
    }
}

/// A file's content type, by its extension.
fn content_type(name: &str) -> &'static str {
    match name.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        _ => "text/javascript; charset=utf-8",
    }
}

/// What the page may load and call: this origin only, nothing inline.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; \
     frame-ancestors 'none'";

/// The console's routes (unauthenticated: see the module comment).
pub(crate) fn routes() -> Router {
    FILES.iter().fold(Router::new(), |router, &(name, body)| {
        let kind = content_type(name);
        router.route(
            &path_of(name),
            get(move || async move { serve(kind, body) }),
        )
    })
}

fn serve(content_type: &'static str, body: &'static [u8]) -> Response {
    let headers = [
        (header::CONTENT_TYPE, content_type),
        (header::CONTENT_SECURITY_POLICY, POLICY),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        // A new binary's files replace the old ones at once.
        (header::CACHE_CONTROL, "no-cache"),
    ]
    .map(|(name, value)| (name, HeaderValue::from_static(value)));
    (headers, body).into_response()
}

#[cfg(test)]
#[path = "console_tests.rs"]
mod tests;
