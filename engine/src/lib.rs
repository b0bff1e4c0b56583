//! The query engine as a library: a [`Database`] that parses, plans and
//! executes openCypher, commits through the log, recovers, checkpoints and
//! keeps its optimizer statistics current.
//!
//! It is a crate of its own so that every front end (the Bolt server, the
//! HTTP endpoints, an offline import command), the tests and the benchmarks
//! drive one embeddable API instead of reaching into the server binary.
//!
//! Invariants: it depends on no protocol (no PackStream, Bolt, HTTP or TLS
//! crate, and never on `nereid-server`), so embedding it costs none of
//! them; errors leave it already mapped to Neo4j statuses ([`DbError`]),
//! by `status.rs`, the one mapping of the engine's crates' errors.
//! `tests/crate_graph.rs` checks the dependency rules.
//!
//! The modules are private; what front ends need is re-exported below.

mod batches;
mod cartesian;
mod database_hook;
mod db;
mod durable;
mod error_detail;
mod loader;
mod metrics;
mod nested;
mod notification;
mod parameter_types;
mod periodic;
mod plan_cache;
mod privileges;
mod profile;
mod query_log;
mod query_options;
mod query_type;
mod rerun;
mod statistics;
mod status;
mod system_database;
mod transactions;
mod unknown_names;
mod users;

#[cfg(test)]
mod memory_tests;
#[cfg(test)]
mod metrics_tests;
#[cfg(test)]
mod parallel_tests;
#[cfg(test)]
mod parameter_plan_tests;
#[cfg(test)]
mod timeout_tests;

/// The database, its settings, and what running a query returns.
pub use db::{
    Database, DbConfig, DbError, Params, QueryResult, Summary, Transaction,
    DEFAULT_QUERY_MAX_MEMORY, DEFAULT_STATISTICS_UPDATE_PERCENT,
};
/// Signatures of table-backed procedures ([`Database::register_procedure`]).
pub use db::{ProcedureField, ProcedureSignature, ProcedureType};
/// Durability and checkpoint settings, which a front end reads from its
/// own configuration (flags, files) and hands to [`Database::open_with`];
/// with the log's types they are made of, so it needs no other crate.
pub use durable::{
    checkpoint_target_from_uri, CheckpointTarget, DurableConfig, DEFAULT_S3_REGION,
    MAX_LOG_PARTITIONS,
};
pub use nereid_wal::{Durability, S3Location};

/// The bulk loader: loads of files by id with their state, and the
/// spelling of loaded user ids (`elementId`; ADR 0094).
pub use loader::{
    user_key, Format, InputFormat, LoadErrorEntry, LoadMode, LoadPhase, LoadRequest, LoadState,
    LoadStatus, Loader, RdfExport, RdfSyntax, FORMAT_NAMES, LOAD_ERRORS_KEPT,
};

/// What [`Database::metrics`] reports, for a front end to render.
pub use metrics::{
    Checkpoints, LastCheckpoint, Loads, LogMetrics, MemoryUsage, Metrics, PlanCache, Queries,
    Transactions,
};
pub use nereid_metrics::HistogramSnapshot;

pub use nereid_dfe::{Password, UserCommand, UserInfo, BUILT_IN_ROLES};
/// The warnings a [`Summary`] carries, which each protocol encodes its way.
pub use notification::{Notification, Position, Severity};
/// PROFILE's figures, which front ends render (Bolt's `profile` summary).
pub use profile::{OperatorProfile, Profile};
pub use query_log::QueryLogConfig;
/// Statuses for engine errors a front end meets outside a query: the
/// executor's deadline check between statements (`from_exec`), and a value
/// refused for the query memory budget while it was being decoded
/// (`memory_limit`, whose message names the setting).
pub use status::{from_exec, memory_limit};
pub use system_database::check as check_for_system_database;
pub use transactions::{Access, Client};
pub use users::UserDirectory;
