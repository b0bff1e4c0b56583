//! The nereid server: the Bolt and HTTP front ends, authentication, TLS
//! and configuration around the engine (`nereid-engine`), which runs the
//! queries.
//!
//! Invariant: no other crate depends on this one.

pub mod app;
pub mod auth;
pub mod bolt;
pub mod config;
mod console;
pub mod healthcheck;
pub mod http;
mod http_auth;
mod http_export;
mod http_loader;
mod https;
pub mod import;
mod metrics_text;
mod protocol_status;
pub mod query_api;
pub mod settings;
pub mod tls;
