//! The shared scenario list (the same names, in the same order, as the other
//! clients of tests/drivers/, so tests/sidebyside/run lines them up).

mod connection;
mod graph_values;
mod results;
mod temporal;
mod transactions;

use neo4rs::Graph;

use crate::support::{Checked, Settings};

pub const NAMES: &[&str] = &[
    "connect and authenticate",
    "bad password refused",
    "auto-commit",
    "explicit transaction commit and rollback",
    "managed transactions",
    "managed transaction retried on a TransientError",
    "several results open in one transaction (qid)",
    "PULL paging with has_more",
    "DISCARD",
    "RESET in the middle of a long stream",
    "errors and session recovery",
    "primitive values round trip",
    "temporal values round trip",
    "spatial values round trip",
    "nodes, relationships and paths",
    "bookmarks across sessions",
    "neo4j:// routing",
    "TLS (bolt+ssc, self-signed certificate)",
];

/// Runs one scenario of `NAMES` on `graph` (empty when it starts).
pub async fn run(name: &str, graph: &Graph, settings: &Settings) -> Checked {
    match name {
        "connect and authenticate" => connection::authenticate(graph).await,
        "bad password refused" => connection::bad_password(settings).await,
        "auto-commit" => transactions::auto_commit(graph).await,
        "explicit transaction commit and rollback" => transactions::explicit(graph).await,
        "managed transactions" => transactions::managed(),
        "managed transaction retried on a TransientError" => {
            transactions::transient_retry(graph).await
        }
        "several results open in one transaction (qid)" => results::several_open(graph).await,
        "PULL paging with has_more" => results::paging(graph).await,
        "DISCARD" => results::discard(graph).await,
        "RESET in the middle of a long stream" => results::reset_mid_stream(settings).await,
        "errors and session recovery" => transactions::errors(graph).await,
        "primitive values round trip" => graph_values::primitives(graph).await,
        "temporal values round trip" => temporal::round_trip(graph).await,
        "spatial values round trip" => graph_values::spatial(graph).await,
        "nodes, relationships and paths" => graph_values::entities(graph).await,
        "bookmarks across sessions" => connection::bookmarks(),
        "neo4j:// routing" => connection::routing(settings).await,
        "TLS (bolt+ssc, self-signed certificate)" => connection::tls(settings).await,
        other => Err(format!("no such scenario: {other}")),
    }
}
