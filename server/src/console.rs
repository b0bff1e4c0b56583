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

/// One file of the console.
struct Asset {
    path: &'static str,
    content_type: &'static str,
    body: &'static [u8],
}

const HTML: &str = "text/html; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";

macro_rules! asset {
    ($path:literal, $file:literal, $type:expr) => {
        Asset {
            path: $path,
            content_type: $type,
            body: include_bytes!(concat!("../console/", $file)),
        }
    };
}

const ASSETS: &[Asset] = &[
    asset!("/", "index.html", HTML),
    asset!("/console/console.css", "console.css", CSS),
    asset!("/console/main.js", "main.js", JS),
    asset!("/console/api.js", "api.js", JS),
    asset!("/console/login.js", "login.js", JS),
    asset!("/console/editor.js", "editor.js", JS),
    asset!("/console/values.js", "values.js", JS),
    asset!("/console/table.js", "table.js", JS),
    asset!("/console/graph.js", "graph.js", JS),
    asset!("/console/layout.js", "layout.js", JS),
    asset!("/console/plan.js", "plan.js", JS),
    asset!("/console/sidebar.js", "sidebar.js", JS),
];

/// What the page may load and call: this origin only, nothing inline.
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; \
     frame-ancestors 'none'";

/// The console's routes (unauthenticated: see the module comment).
pub(crate) fn routes() -> Router {
    ASSETS.iter().fold(Router::new(), |router, asset| {
        router.route(asset.path, get(move || async move { serve(asset) }))
    })
}

fn serve(asset: &'static Asset) -> Response {
    let headers = [
        (header::CONTENT_TYPE, asset.content_type),
        (header::CONTENT_SECURITY_POLICY, POLICY),
        (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        (header::REFERRER_POLICY, "no-referrer"),
        // A new binary's files replace the old ones at once.
        (header::CACHE_CONTROL, "no-cache"),
    ]
    .map(|(name, value)| (name, HeaderValue::from_static(value)));
    (headers, asset.body).into_response()
}

#[cfg(test)]
#[path = "console_tests.rs"]
mod tests;
