//! Why a kernel could not run on the graph it was given.

/// The algorithms crate's errors; the engine maps them to a Neo4j status.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AlgorithmError {
    #[error("edge weight property `{property}` is missing on relationship {rel}")]
    WeightMissing { property: String, rel: i64 },
    #[error("edge weight property `{property}` of relationship {rel} is a {found}, not a number")]
    WeightNotNumeric {
        property: String,
        rel: i64,
        found: String,
    },
    #[error("edge weight property `{property}` of relationship {rel} is negative or NaN")]
    NegativeWeight { property: String, rel: i64 },
    #[error("no personalization source node is in the graph the call covers")]
    NoSourceInView,
    #[error("the query was stopped")]
    Stopped,
    #[error("could not start {threads} worker threads: {reason}")]
    ThreadPool { threads: usize, reason: String },
}
