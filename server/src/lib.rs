//! The nereid server: Bolt and HTTP front ends, configuration, and the
//! database facade that ties the layers together.
//!
//! Invariant: no other crate depends on this one.

pub mod app;
pub mod auth;
pub mod bolt;
pub mod config;
pub mod db;
pub mod durable;
pub mod http;
pub mod notification;
mod plan_cache;
mod query_options;
mod query_type;
mod statistics;
mod status;
pub mod tls;

#[cfg(test)]
mod memory_tests;
#[cfg(test)]
mod timeout_tests;
