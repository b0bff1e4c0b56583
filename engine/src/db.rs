//! The database facade: parse → plan → execute → commit through the log.
//! Front ends (the server's Bolt and HTTP layers, tests) call only this
//! module. All methods are blocking: a front end calls them off its I/O
//! threads (the server, on its execution pool).
//!
//! Commit protocol (see ARCHITECTURE.md): the store stamps the transaction
//! and hands its logical changes to the log under its commit lock; the
//! session waits until the log says the record is durable (group commit);
//! only then is the commit published to new readers and acknowledged. A log
//! failure after stamping makes the database refuse further commits rather
//! than risk exposing a non-durable commit.

use crate::durable::{self, Checkpoints, DurableConfig};
use crate::metrics::{EngineMetrics, Metrics, TxTally};
use crate::notification::Notification;
use crate::plan_cache::{CachedPlan, PlanCache};
use crate::query_options::{self, Replan};
use crate::statistics::{self, StatisticsMaintainer};
use crate::status;
use crate::transactions::Client;
use nereid_dfe::{ProcedureRegistry, TableProcedure};
use nereid_errors::Status;
use nereid_storage::stats::{DistinctEstimate, Staleness};
use nereid_storage::{
    CommitError, GraphLoaded, GraphNode, GraphRel, Store, StoreConfig, Txn, WriteStats,
};
use nereid_values::{EntityResolver, Value};
use nereid_wal::{CheckpointInfo, Lsn, Wal};
use parking_lot::Mutex;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

pub use nereid_planner::{ProcedureField, ProcedureSignature, ProcedureType};

/// Query parameters.
pub type Params = BTreeMap<String, Value>;

/// Bytes the parse tree, analysis and plan take per byte of query text at
/// most (a list literal of one-digit numbers, measured: about 45; a text
/// of patterns or long strings far less). Charged against the query
/// memory budget before parsing, so a 64 MiB query text cannot make the
/// server build gigabytes of syntax tree; data belongs in parameters.
pub const PLANNING_BYTES_PER_TEXT_BYTE: usize = 64;

/// A failure, already mapped to its Neo4j status (see `status.rs`).
#[derive(Debug, Clone, PartialEq)]
pub struct DbError {
    pub status: Status,
    pub message: String,
}

impl DbError {
    /// The message as Neo4j words it, which clients match: without the
    /// openCypher detail prefix the engine's messages carry.
    pub fn client_message(&self) -> &str {
        crate::error_detail::split(&self.message).1
    }

    /// The openCypher detail (`UndefinedVariable`, ...) the error stands
    /// for, if any: sent in the GQL status description.
    pub fn detail(&self) -> Option<&'static str> {
        crate::error_detail::split(&self.message).0
    }
}

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.status.code(), self.message)
    }
}
impl std::error::Error for DbError {}

/// The default of [`DbConfig::statistics_update_percent`].
pub const DEFAULT_STATISTICS_UPDATE_PERCENT: u32 = 10;
/// 1 GiB: one query near it on each of two exec threads, plus the copies
/// the budget does not follow (a batch column in flight, allocator slack),
/// stays inside a 3 GiB machine; the queries real clients send hold far
/// less (docs/adr/0084-per-query-memory-budget.md).
pub const DEFAULT_QUERY_MAX_MEMORY: u64 = 1 << 30;

/// Settings of the database (not of the network listeners).
#[derive(Clone, Debug)]
pub struct DbConfig {
    pub data_dir: PathBuf,
    pub partitions: usize,
    /// The optimizer statistics are rebuilt in the background once this
    /// many percent of what their sketches count was deleted since the
    /// last build (0: never; see `statistics.rs`).
    pub statistics_update_percent: u32,
    /// Bytes one query may hold (0: no limit): its parameters, the values
    /// it builds and the rows its operators buffer (`nereid_dfe::MemoryBudget`).
    pub query_max_memory: usize,
    /// Threads one read-only query may run its operators on when the
    /// planner's estimate says it pays (1: every query on its calling
    /// thread; docs/adr/0139-morsel-driven-parallel-segments.md).
    pub query_threads: usize,
    /// Where `LOAD CSV` reads `file:///` URLs (Neo4j's
    /// `server.directories.import`).
    pub import_dir: PathBuf,
    /// The S3-compatible endpoint `s3://` load sources are read from
    /// (`None`: AWS itself), the server's `--s3-endpoint`.
    pub s3_endpoint: Option<String>,
    /// The region of `s3://` load sources (`--s3-region`).
    pub s3_region: String,
    /// The query log (none by default).
    pub query_log: Option<crate::query_log::QueryLogConfig>,
    /// What `SHOW SETTINGS` lists: the embedding server's settings (the
    /// engine does not know the listeners' or the log's).
    pub settings: Vec<nereid_dfe::Setting>,
    /// OneGraph prefixes `(name, iri)` declared for every query, as if each
    /// began with `PREFIX name: <iri>` lines (its own declarations win):
    /// set once rather than repeated by every client in every query.
    pub prefixes: Vec<(String, String)>,
}

impl DbConfig {
    /// `partitions` per dimension in `data_dir`, the other settings at
    /// their defaults.
    pub fn new(data_dir: PathBuf, partitions: usize) -> Self {
        DbConfig {
            partitions,
            statistics_update_percent: DEFAULT_STATISTICS_UPDATE_PERCENT,
            query_max_memory: DEFAULT_QUERY_MAX_MEMORY as usize,
            query_threads: 1,
            import_dir: data_dir.join("import"),
            s3_endpoint: None,
            s3_region: crate::durable::DEFAULT_S3_REGION.to_string(),
            query_log: None,
            settings: Vec::new(),
            prefixes: Vec::new(),
            data_dir,
        }
    }
}

/// What a finished query did, for the PULL/DISCARD SUCCESS metadata.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    pub stats: WriteStats,
    /// Changes to the users and roles (Neo4j's `system-updates`), which
    /// are not the store's.
    pub system_updates: u64,
    /// `"r"`, `"w"`, `"rw"` or `"s"`.
    pub query_type: &'static str,
    /// Set for auto-commit queries that committed a write.
    pub bookmark: Option<String>,
    /// The plan of an EXPLAIN statement.
    pub plan: Option<Arc<nereid_planner::PlanNode>>,
    /// The plan of a PROFILE statement with what each operator did.
    pub profile: Option<Arc<crate::profile::Profile>>,
    /// Warnings and information about the query (see `notification.rs`).
    pub notifications: Arc<[Notification]>,
}

/// Distinct query texts whose plans are kept (see `plan_cache.rs`).
const PLAN_CACHE_CAPACITY: usize = 1000;

/// The database.
pub struct Database {
    /// Held open for the process lifetime: an exclusive lock on
    /// `<data_dir>/LOCK` keeps a second server off the same files (the OS
    /// drops it when the process dies, even by kill -9).
    _lock: std::fs::File,
    store: Arc<Store>,
    wal: Wal,
    /// Transaction handles written into log records.
    next_handle: AtomicU64,
    /// Checkpoint settings and state (see `durable.rs`).
    checkpoints: Arc<Checkpoints>,
    /// This database's procedures: the built-ins plus any registered with
    /// [`Database::register_procedure`] (not persisted).
    procedures: Arc<ProcedureRegistry>,
    /// Where loads read files from (`LOAD CSV`, the loader).
    import_dir: PathBuf,
    /// How the loader reaches `s3://` sources.
    s3: crate::loader::S3Settings,
    /// The bulk loader, started at its first use (see [`Database::loader`]).
    loader: Mutex<Option<Arc<crate::loader::Loader>>>,
    /// The transactions running now (`SHOW`/`TERMINATE TRANSACTIONS`).
    transactions: Arc<crate::transactions::Registry>,
    /// The query log, when configured.
    query_log: Option<Arc<crate::query_log::QueryLog>>,
    /// `SHOW SETTINGS` (see [`DbConfig::settings`]).
    pub(crate) settings: Arc<[nereid_dfe::Setting]>,
    /// Plans by query text (see `plan_cache.rs`).
    plans: PlanCache,
    /// The background statistics rebuilder's stop signal.
    statistics: Arc<StatisticsMaintainer>,
    /// Bytes one query may hold (0: no limit).
    query_max_memory: usize,
    /// Where the loader saves ended loads (`<data_dir>/loads`).
    loads_dir: PathBuf,
    /// Prefixes declared for every query (see [`DbConfig::prefixes`]).
    /// They do not change while the database is open, so a cached plan,
    /// keyed by the query's text, stays what the text means.
    prefixes: Arc<[(String, String)]>,
    /// See [`DbConfig::query_threads`].
    query_threads: usize,
    /// Queries, transactions and conflicts counted (see `metrics.rs`).
    metrics: Arc<EngineMetrics>,
    /// Where `LOAD CSV` opens files.
    files: Arc<crate::batches::ImportFiles>,
    /// The server's users, once it registers them (`users.rs`).
    users: std::sync::OnceLock<Arc<dyn crate::users::UserDirectory>>,
}

/// An explicit transaction (BEGIN ... COMMIT/ROLLBACK).
pub struct Transaction {
    txn: Arc<Txn>,
    /// The client's `tx_metadata`, which `tx.setMetaData` may replace and
    /// every statement of the transaction reads.
    metadata: Arc<nereid_dfe::TxMetadata>,
    /// Counts it active until it ends (see `metrics.rs`).
    tally: TxTally,
    /// Listed for `SHOW TRANSACTIONS` until it ends.
    listed: crate::transactions::Listed,
    /// Statements begun in it (see `rerun.rs`).
    statements: Arc<AtomicU64>,
}

impl Transaction {
    /// The store transaction, for the engine's own writers that bypass
    /// Cypher (the bulk loader).
    pub(crate) fn store_txn(&self) -> &Txn {
        &self.txn
    }
}

/// The result stream of one RUN. `Send`: it moves between pool threads.
pub struct QueryResult {
    /// An auto-commit query's transaction, listed until the result is
    /// dropped (held for its `Drop`).
    _listed: Option<crate::transactions::Listed>,
    /// The query's place as its transaction's current query.
    mark: Option<crate::transactions::QueryMark>,
    /// Where the query is logged when it ends (see `query_log.rs`).
    query_log: Option<Arc<crate::query_log::QueryLog>>,
    /// Rows streamed so far.
    rows: u64,
    fields: Vec<String>,
    cursor: Option<nereid_dfe::Cursor>,
    /// How to run the statement again on a newer snapshot (`rerun.rs`).
    rerun: Option<crate::rerun::Rerun>,
    /// A row computed ahead to know whether more rows exist.
    peeked: Option<Vec<Value>>,
    txn: Arc<Txn>,
    /// The database, for auto-commit queries (which commit at the end).
    auto_commit: Option<Arc<Database>>,
    stats_before: WriteStats,
    query_type: &'static str,
    /// The plan, for EXPLAIN and PROFILE (reported in the summary).
    explained: Option<Arc<nereid_planner::PlanNode>>,
    /// PROFILE: the summary pairs the plan with the cursor's figures.
    profiling: bool,
    notifications: Arc<[Notification]>,
    summary: Option<Summary>,
    /// The auto-commit transaction's place in the counts.
    tally: Option<TxTally>,
    /// `CALL { } IN TRANSACTIONS`: its committed batches' writes.
    batches: Option<Arc<crate::batches::BatchTransactions>>,
    /// When `run` was called; `None` once the query's end was counted.
    started: Option<Instant>,
    metrics: Arc<EngineMetrics>,
    /// What the query's user commands changed (shared with its hook).
    system_updates: Arc<AtomicU64>,
}

/// The planner's view of the database.
struct DbCatalog<'a> {
    store: &'a Store,
    procedures: &'a ProcedureRegistry,
    query_threads: usize,
}

impl nereid_planner::Catalog for DbCatalog<'_> {
    fn estimate_nodes(&self, label: Option<&str>) -> u64 {
        self.store.estimate_nodes(label)
    }

    fn procedure_signature(&self, name: &str) -> Option<ProcedureSignature> {
        self.procedures.signature(name)
    }

    fn query_threads(&self) -> usize {
        self.query_threads
    }

    fn estimate_nodes_having(&self, labels: &[String], keys: &[String]) -> Option<u64> {
        use nereid_storage::stats::StatMember;
        let members: Vec<StatMember> = (labels.iter().cloned().map(StatMember::Label))
            .chain(keys.iter().cloned().map(StatMember::Key))
            .collect();
        Some(self.store.estimate_nodes_having(&members))
    }

    fn distinct_node_values(&self, key: &str) -> Option<u64> {
        let distinct = self.store.distinct_node_values(key)?;
        Some(distinct.estimate.round() as u64)
    }

    fn indexes(&self) -> Vec<nereid_planner::IndexDescriptor> {
        use nereid_storage::{ConstraintKind, EntityKind, IndexKind, IndexState};
        let schema = self.store.schema();
        let unique = |name: &str| {
            schema.constraints.iter().any(|c| {
                c.owned_index.as_deref() == Some(name)
                    && matches!(c.def.kind, ConstraintKind::Unique | ConstraintKind::Key)
            })
        };
        schema
            .indexes
            .iter()
            .filter(|i| i.state == IndexState::Online)
            .filter_map(|i| {
                // Vector and full-text indexes answer only their
                // procedures, never a property predicate.
                let kind = match i.def.kind {
                    IndexKind::Range => nereid_planner::IndexKind::Range,
                    IndexKind::Text => nereid_planner::IndexKind::Text,
                    IndexKind::Vector { .. } | IndexKind::Fulltext { .. } => return None,
                };
                Some((i, kind))
            })
            .map(|(i, kind)| nereid_planner::IndexDescriptor {
                name: i.def.name.clone(),
                kind,
                entity: match i.def.entity {
                    EntityKind::Node => nereid_planner::IndexEntity::Node,
                    EntityKind::Relationship => nereid_planner::IndexEntity::Relationship,
                },
                label: i.def.label.clone(),
                keys: i.def.keys.clone(),
                unique: unique(&i.def.name),
            })
            .collect()
    }

    fn relationship_statistics(&self, rel_type: &str) -> Option<nereid_planner::RelStatistics> {
        let s = self.store.rel_type_statistics(rel_type)?;
        Some(nereid_planner::RelStatistics {
            count: s.count,
            distinct_sources: s.distinct_sources.estimate.round() as u64,
            distinct_targets: s.distinct_targets.estimate.round() as u64,
        })
    }

    fn count_node_index_entries(&self, index: &str, values: &[Value], cap: u64) -> Option<u64> {
        let seek = nereid_storage::IndexSeek::equal(values.to_vec());
        self.store
            .estimate_index_entries(index, nereid_storage::EntityKind::Node, &seek, cap)
    }
}

impl Database {
    /// Opens (and recovers) the database in `config.data_dir` with the
    /// default durability settings.
    pub fn open(config: &DbConfig) -> anyhow::Result<Arc<Database>> {
        Database::open_with(config, &DurableConfig::default())
    }

    /// Opens the database: loads the newest checkpoint, replays the log
    /// after it, and starts the background checkpointer.
    pub fn open_with(
        config: &DbConfig,
        durable_config: &DurableConfig,
    ) -> anyhow::Result<Arc<Database>> {
        std::fs::create_dir_all(&config.data_dir)?;
        let lock = lock_data_dir(&config.data_dir)?;
        let partitions = partitions_of(&config.data_dir, config.partitions)?;
        let store = Store::new(StoreConfig { partitions });
        let (wal, checkpoints) = durable::recover(&store, &config.data_dir, durable_config)?;
        let query_log = match &config.query_log {
            Some(log) => Some(Arc::new(
                crate::query_log::QueryLog::open(log.clone()).map_err(|e| {
                    anyhow::anyhow!("cannot open the query log {}: {e}", log.path.display())
                })?,
            )),
            None => None,
        };
        let db = Arc::new(Database {
            _lock: lock,
            store,
            wal,
            next_handle: AtomicU64::new(1),
            checkpoints: Arc::new(checkpoints),
            procedures: Arc::new(ProcedureRegistry::new()),
            import_dir: config.import_dir.clone(),
            s3: crate::loader::S3Settings {
                endpoint: config.s3_endpoint.clone(),
                region: config.s3_region.clone(),
            },
            loader: Mutex::new(None),
            transactions: Arc::default(),
            query_log,
            settings: Arc::from(config.settings.clone()),
            plans: PlanCache::new(PLAN_CACHE_CAPACITY),
            statistics: Arc::new(StatisticsMaintainer::new(config.statistics_update_percent)),
            query_max_memory: config.query_max_memory,
            prefixes: Arc::from(config.prefixes.clone()),
            loads_dir: config.data_dir.join("loads"),
            query_threads: config.query_threads.max(1),
            metrics: EngineMetrics::new(),
            users: std::sync::OnceLock::new(),
            files: Arc::new(crate::batches::ImportFiles {
                dir: config.import_dir.clone(),
                s3: crate::loader::S3Settings {
                    endpoint: config.s3_endpoint.clone(),
                    region: config.s3_region.clone(),
                },
            }),
        });
        durable::spawn_background(
            Arc::downgrade(&db),
            db.checkpoints.clone(),
            db.wal.progress(),
        )?;
        statistics::spawn_background(Arc::downgrade(&db), db.statistics.clone())?;
        Ok(db)
    }

    /// How far the optimizer statistics' sketches have drifted since they
    /// were built (what the background rebuild watches).
    pub fn statistics_staleness(&self) -> Staleness {
        self.store.statistics_staleness()
    }

    /// The estimated number of distinct values of node property `key`.
    pub fn distinct_node_values(&self, key: &str) -> Option<DistinctEstimate> {
        self.store.distinct_node_values(key)
    }

    /// Rebuilds the optimizer statistics from the current data now, then
    /// forgets the cached plans (they were costed with the old figures).
    /// Commits continue meanwhile.
    pub fn rebuild_statistics(&self) {
        self.store.rebuild_statistics();
        self.plans.clear();
    }

    /// Registers a table-backed procedure (see `nereid_dfe::TableProcedure`)
    /// for this database instance only; it lasts until the process ends.
    /// Each row holds the input values followed by the output values.
    pub fn register_procedure(
        &self,
        signature: ProcedureSignature,
        rows: Vec<Vec<Value>>,
    ) -> Result<(), DbError> {
        let argument_error = |message: String| DbError {
            status: Status::ArgumentError,
            message,
        };
        let name = signature.name.clone();
        // Cached plans embed the signatures they were planned against.
        self.plans.clear();
        let procedure = TableProcedure::new(signature, rows).map_err(|row| {
            argument_error(format!(
                "row {row} of procedure `{name}` does not have one value per input and output"
            ))
        })?;
        self.procedures
            .register_table(procedure)
            .map_err(|e| argument_error(e.to_string()))
    }

    /// Takes a checkpoint now (`CALL db.checkpoint()`, `POST
    /// /admin/checkpoint`), without stopping transactions.
    pub fn checkpoint(&self) -> Result<CheckpointInfo, DbError> {
        self.checkpoints
            .take(&self.store, &self.wal, "on demand")
            .map_err(status::from_wal)
    }

    /// Applies a whole load through the store's unlogged bulk path as one
    /// published commit and makes it durable by a checkpoint taken before
    /// any later commit can be logged (docs/adr/0096-bulk-load-by-checkpoint.md).
    pub(crate) fn bulk_load_graph<K, N, B, T, P, R>(
        &self,
        nodes: Vec<B>,
        rels: Vec<R>,
    ) -> Result<GraphLoaded, DbError>
    where
        K: AsRef<str> + Sync,
        N: GraphNode<K>,
        B: AsRef<[N]> + Send,
        T: AsRef<str> + Sync,
        P: AsRef<[(K, Value)]> + Sync,
        R: AsRef<[GraphRel<T, P>]> + Sync,
    {
        let started = Instant::now();
        let outcome = self
            .store
            .bulk_load_graph(nodes, rels, |commit_ts| {
                let applied = started.elapsed();
                let taken = self.checkpoints.take(&self.store, &self.wal, "bulk load");
                tracing::info!(
                    commit_ts,
                    applied_ms = applied.as_millis() as u64,
                    checkpoint_ms = (started.elapsed() - applied).as_millis() as u64,
                    "bulk load applied and checkpointed"
                );
                taken.map(drop)
            })
            .map_err(status::from_storage)?;
        outcome.map_err(|e| {
            let mut error = status::from_wal(e);
            error.message = format!(
                "the load is applied but not durable (a restart loses it): its checkpoint failed: {}",
                error.message
            );
            error
        })
    }

    /// Clean shutdown: stops the background checkpointer and takes a final
    /// checkpoint (unless disabled), so the next start replays little.
    pub fn shutdown(&self) {
        self.store.release_waiters();
        self.statistics.stop();
        self.checkpoints.stop();
        if self.wal.failure().is_none() {
            self.checkpoints.at_shutdown(&self.store, &self.wal);
        }
    }

    pub fn begin(self: &Arc<Self>) -> Transaction {
        self.begin_with_metadata(Params::new())
    }

    /// Begins a transaction carrying the client's `tx_metadata`
    /// (`CALL tx.getMetaData()` returns it).
    pub fn begin_with_metadata(self: &Arc<Self>, metadata: Params) -> Transaction {
        self.begin_as(metadata, Client::embedded())
    }

    /// [`Database::begin_with_metadata`] for `client` (shown by `SHOW
    /// TRANSACTIONS`).
    pub fn begin_as(self: &Arc<Self>, metadata: Params, client: Client) -> Transaction {
        let metadata = Arc::new(nereid_dfe::TxMetadata::new(metadata));
        Transaction {
            txn: Arc::new(self.store.begin()),
            listed: self.transactions.list(client, Arc::clone(&metadata)),
            metadata,
            tally: self.metrics.transaction(),
            statements: Arc::default(),
        }
    }

    /// Runs `query` in `tx`, or in its own auto-commit transaction when `tx`
    /// is `None` (committed when the result is fully pulled or discarded).
    pub fn run(
        self: &Arc<Self>,
        tx: Option<&Transaction>,
        query: &str,
        params: Params,
    ) -> Result<QueryResult, DbError> {
        self.run_until(tx, query, params, None)
    }

    /// [`Database::run`] under the transaction's deadline: past it, the
    /// query stops at its next batch with a timeout status (the
    /// auto-commit transaction rolled back as after any failure).
    pub fn run_until(
        self: &Arc<Self>,
        tx: Option<&Transaction>,
        query: &str,
        params: Params,
        deadline: Option<nereid_dfe::Deadline>,
    ) -> Result<QueryResult, DbError> {
        self.run_with_metadata(tx, query, params, deadline, Params::new())
    }

    /// [`Database::run_until`]; an auto-commit query's transaction carries
    /// `metadata` (the client's `tx_metadata` on RUN; inside `tx` the
    /// transaction's own is used and `metadata` is ignored).
    pub fn run_with_metadata(
        self: &Arc<Self>,
        tx: Option<&Transaction>,
        query: &str,
        params: Params,
        deadline: Option<nereid_dfe::Deadline>,
        metadata: Params,
    ) -> Result<QueryResult, DbError> {
        let client = Client::embedded();
        self.run_as(tx, query, params, deadline, metadata, &client)
    }

    /// [`Database::run_with_metadata`] for `client`: an auto-commit query's
    /// transaction is listed as `client`'s (an explicit one was listed by
    /// [`Database::begin_as`]).
    pub fn run_as(
        self: &Arc<Self>,
        tx: Option<&Transaction>,
        query: &str,
        params: Params,
        deadline: Option<nereid_dfe::Deadline>,
        metadata: Params,
        client: &Client,
    ) -> Result<QueryResult, DbError> {
        let started = Instant::now();
        // A query that fails before its result exists ends here.
        // What the log shows of a query that fails here (copied only when
        // a log is kept: the parameters move into the executor).
        let logged = self
            .query_log
            .as_ref()
            .map(|log| (log, crate::transactions::shown(&params), metadata.clone()));
        let failed = |e: DbError| {
            self.metrics.query_ended(started, Some(e.status));
            if let Some((log, parameters, metadata)) = &logged {
                log.record(&crate::query_log::Entry {
                    query_id: "-",
                    transaction_id: "-",
                    elapsed: started.elapsed(),
                    rows: 0,
                    client,
                    text: query,
                    parameters,
                    metadata,
                    failure: Some((e.status, &e.message)),
                });
            }
            e
        };
        let CachedPlan {
            plan,
            explain,
            profile,
            notifications,
            names_read,
            checked_parameters,
            ..
        } = self.plan(query, &params).map_err(failed)?;
        nereid_dfe::check_parameters(&plan, &params).map_err(|e| failed(status::from_exec(e)))?;
        crate::parameter_types::check_parameters(&checked_parameters, &params, query)
            .map_err(failed)?;
        if tx.is_some_and(|t| t.listed.is_terminated()) {
            return Err(failed(terminated()));
        }
        let batched = plan.commits_in_batches();
        if tx.is_some() {
            if plan.calls_procedure(nereid_dfe::NEPTUNE_LOAD) {
                let load = format!("calling '{}'", nereid_dfe::NEPTUNE_LOAD);
                return Err(failed(implicit_only(
                    &load,
                    " (the load commits by itself)",
                )));
            }

            if batched {
                return Err(failed(implicit_only(
                    "with 'CALL { ... } IN TRANSACTIONS'",
                    "",
                )));
            }
        }
        let batches =
            batched.then(|| Arc::new(crate::batches::BatchTransactions::new(self.clone())));
        let (txn, auto_commit, metadata, tally) = match tx {
            Some(t) => (t.txn.clone(), None, Arc::clone(&t.metadata), None),
            None => (
                Arc::new(self.store.begin()),
                Some(self.clone()),
                Arc::new(nereid_dfe::TxMetadata::new(metadata)),
                Some(self.metrics.transaction()),
            ),
        };
        let notifications =
            crate::unknown_names::with_unknown(&notifications, &names_read, &txn, query);
        let listed = match tx {
            Some(_) => None,
            None => Some(
                self.transactions
                    .list(client.clone(), Arc::clone(&metadata)),
            ),
        };
        // Shared with the executor: listing the query copies nothing.
        let params = Arc::new(params);
        // `EXPLAIN PROFILE` explains: nothing runs, so nothing is measured.
        let profile = profile && !explain;
        let query_type = crate::query_type::of(&plan);
        crate::privileges::check(&plan, query_type, client).map_err(failed)?;
        let system_updates = Arc::new(AtomicU64::new(0));
        let fields: Vec<String> = if explain {
            Vec::new()
        } else {
            plan.outputs.iter().map(|(n, _)| n.clone()).collect()
        };
        let explained = (explain || profile).then(|| {
            let values = |name: &str| params.get(name);
            let catalog = self.catalog();
            let catalog = nereid_planner::with_parameters(&catalog, &values);
            Arc::new(nereid_planner::plan_tree(&plan, &catalog))
        });
        let statements = match tx {
            Some(t) => {
                t.statements.fetch_add(1, Ordering::AcqRel);
                Arc::clone(&t.statements)
            }
            None => Arc::new(AtomicU64::new(1)),
        };
        let (cursor, rerun) = if explain {
            (None, None)
        } else {
            let build = {
                let (params, batches) = (Arc::clone(&params), batches.clone());
                let reach = self.reach(client.clone(), Arc::clone(&system_updates));
                move |txn: &Arc<Txn>| {
                    let cursor = nereid_dfe::Cursor::new(
                        Arc::clone(&plan),
                        txn.clone(),
                        Arc::clone(&params),
                    );
                    let cursor = if profile {
                        cursor.with_profiling()
                    } else {
                        cursor
                    };
                    let cursor = match &batches {
                        Some(batches) => cursor.with_inner_transactions(batches.clone()),
                        None => cursor,
                    };
                    reach.configure(cursor).map(|c| {
                        c.with_tx_metadata(Arc::clone(&metadata))
                            .with_deadline(deadline)
                    })
                }
            };
            let rerun = crate::rerun::Rerun::new(Box::new(build), statements);
            let cursor = rerun
                .first(&txn)
                .map_err(|e| failed(status::from_exec(e)))?;
            // Inner batches commit on their own: never run them again.
            (Some(cursor), (!batched).then_some(rerun))
        };
        let lister = match (tx, &listed) {
            (Some(t), _) => Some(&t.listed),
            (None, listed) => listed.as_ref(),
        };
        let mark = lister.map(|l| {
            let cancel = cursor.as_ref().map(nereid_dfe::Cursor::cancel_handle);
            l.query_started(query, Arc::clone(&params), cancel)
        });
        Ok(QueryResult {
            _listed: listed,
            mark,
            query_log: self.query_log.clone(),
            rows: 0,
            fields,
            cursor,
            rerun,
            peeked: None,
            stats_before: txn.stats(),
            txn,
            auto_commit,
            query_type,
            explained,
            profiling: profile,
            notifications,
            summary: None,
            tally,
            batches,
            started: Some(started),
            metrics: Arc::clone(&self.metrics),
            system_updates,
        })
    }

    /// What every statement's executor reaches, for `client`: the
    /// procedures, this database (how `CALL db.checkpoint()`,
    /// `neptune.load()`, the user commands and nested queries reach it,
    /// weakly: running queries never keep it open; user commands count into
    /// `system_updates`), the import files and the memory limit.
    fn reach(self: &Arc<Self>, client: Client, system_updates: Arc<AtomicU64>) -> Reach {
        Reach {
            procedures: Arc::clone(&self.procedures),
            database: Arc::downgrade(self),
            client,
            system_updates,
            files: self.files.clone(),
            memory: self.query_max_memory,
        }
    }

    /// A cursor of `plan` in `txn` for a query run inside another's call
    /// (module `nested`), configured as a statement's.
    pub(crate) fn configured_cursor(
        self: &Arc<Self>,
        plan: Arc<nereid_planner::PhysicalPlan>,
        txn: Arc<nereid_dfe::Txn>,
        params: Arc<Params>,
        client: &Client,
    ) -> Result<nereid_dfe::Cursor, nereid_dfe::ExecError> {
        let cursor = nereid_dfe::Cursor::new(plan, txn, params);
        self.reach(client.clone(), Arc::new(AtomicU64::new(0)))
            .configure(cursor)
    }

    /// Registers the server's users, which user commands administer
    /// (once; a second directory is ignored and returned).
    pub fn set_user_directory(
        &self,
        directory: Arc<dyn crate::users::UserDirectory>,
    ) -> Result<(), Arc<dyn crate::users::UserDirectory>> {
        self.users.set(directory)
    }

    pub(crate) fn user_directory(&self) -> Option<Arc<dyn crate::users::UserDirectory>> {
        self.users.get().cloned()
    }

    /// Bytes one query may hold (0: no limit): what decoding its
    /// parameters may take too.
    pub fn query_max_memory(&self) -> usize {
        self.query_max_memory
    }

    /// The query type `query` would report (`r`, `w`, `rw`, `s`; an
    /// EXPLAIN reports that of the statement it explains), decided from its
    /// plan without running it: a front end holding a read-only session
    /// refuses a writing statement before it runs.
    pub fn statement_type(&self, query: &str) -> Result<&'static str, DbError> {
        Ok(crate::query_type::of(
            &self.plan(query, &Params::new())?.plan,
        ))
    }

    /// The plan of `query` for a run with `params`: from the plan cache, or
    /// parsed, analysed and planned now with `params` informing its
    /// estimates (and cached when that succeeds).
    pub(crate) fn plan(&self, query: &str, params: &Params) -> Result<CachedPlan, DbError> {
        let nodes = self.store.estimate_nodes(None);
        // Read before planning: an index that comes online while this
        // query is planned makes the plan older than the version, never
        // newer, so it is replanned next time rather than kept too long.
        let schema = self.store.schema_version();
        let values = |name: &str| params.get(name);
        let catalog = self.catalog();
        let with_values = nereid_planner::with_parameters(&catalog, &values);
        // A plan whose estimates read parameter values is reused only for
        // values that estimate alike (ADR 0152).
        let fits =
            |cached: &CachedPlan| nereid_planner::probes_fit(&cached.plan.probes, &with_values);
        if let Some(cached) = self.plans.get(query, nodes, schema, fits) {
            return Ok(cached);
        }
        let needed = query.len().saturating_mul(PLANNING_BYTES_PER_TEXT_BYTE);
        if self.query_max_memory > 0 && needed > self.query_max_memory {
            return Err(status::query_text_over_budget(
                query.len(),
                needed,
                self.query_max_memory,
            ));
        }
        let stmt = nereid_cypher::parse_with_prefixes(query, &self.prefixes)
            .map_err(status::from_cypher)?;
        let mut options = query_options::decide(&stmt, query).map_err(status::from_option)?;
        nereid_cypher::analyze(&stmt).map_err(status::from_cypher)?;
        options
            .notifications
            .extend(crate::cartesian::notifications(&stmt, query));
        let plan = nereid_planner::plan_with_parameters(&stmt, &catalog, &values)
            .map_err(|e| status::from_plan(e, query))?;
        options.notifications.extend(
            plan.missing_hints
                .iter()
                .map(Notification::hinted_index_not_found),
        );
        let cached = CachedPlan::new(Arc::new(plan), stmt.explain, nodes, schema)
            .profiled(stmt.profile)
            .with_options(options.notifications, options.replan == Replan::Skip)
            .warning_of_unknown(stmt.names)
            .with_checked_parameters(stmt.checked_parameters);
        // `replan=force` plans every time: its plan is never cached, so no
        // later run finds it. Nor is a plan made without a value for every
        // parameter (a statement's type asked before its run, a run that
        // fails for a missing parameter): its estimates did not read them.
        let valued = cached
            .plan
            .parameters
            .iter()
            .all(|p| params.contains_key(p));
        if options.replan != Replan::Force && valued {
            self.plans.insert_cached(query, cached.clone());
        }
        Ok(cached)
    }

    /// CSR views the graph algorithms have built since start (a call that
    /// reused a cached view of an unchanged graph built none).
    pub fn algorithm_views_built(&self) -> u64 {
        self.procedures.views_built()
    }

    /// Plan cache `(hits, misses, entries)` since start.
    pub fn plan_cache_counters(&self) -> (u64, u64, usize) {
        self.plans.counters()
    }

    /// The numbers a metrics endpoint shows (see `metrics.rs`). Cheap, and
    /// takes no lock a commit holds: callable at any time from any thread.
    pub fn metrics(&self) -> Metrics {
        let (queries, query_seconds, transactions, write_conflicts) = self.metrics.snapshot();
        let (hits, misses, entries) = self.plans.counters();
        Metrics {
            queries,
            query_seconds,
            transactions,
            write_conflicts,
            log: self.wal.metrics(),
            checkpoints: self.checkpoints.clock().snapshot(),
            plan_cache: crate::metrics::PlanCache {
                hits,
                misses,
                entries: entries as u64,
            },
            loads: self.load_metrics(),
            store_memory: self.store.memory_usage(),
        }
    }

    /// The loader's loads, if it was started (a scrape never starts it).
    fn load_metrics(&self) -> crate::metrics::Loads {
        let mut loads = crate::metrics::Loads::default();
        let loader = self.loader.lock().clone();
        if let Some(loader) = loader {
            for id in loader.list() {
                if let Some(status) = loader.status(&id) {
                    loads.add(&status);
                }
            }
        }
        loads
    }

    /// Why the log cannot take commits, while it cannot (for `/health`).
    /// A failed log is given a chance to resume first, so that `/health`
    /// turns ok again as soon as the disk has room, without waiting for a
    /// write.
    pub fn log_failure(&self) -> Option<String> {
        self.wal.failure()?;
        let why = self.resume_log().err()?;
        Some(format!(
            "the transaction log cannot be written ({why}); writes are refused until it can, \
             reads go on"
        ))
    }

    /// After a log failure, tries to make the log writable again (it cuts
    /// the refused commits and rewinds the commit clock: docs/adr/0083).
    /// Each write attempt and each `/health` request retries, so writes
    /// resume once the disk has room, with no background thread.
    fn resume_log(&self) -> Result<(), String> {
        self.wal
            .resume(|ts| self.store.rewind_commits(ts).map_err(|e| e.to_string()))
            .map(drop)
            .map_err(|e| e.to_string())
    }

    /// Commits; returns the bookmark.
    pub fn commit(&self, mut tx: Transaction) -> Result<String, DbError> {
        if tx.listed.is_terminated() {
            tx.txn.rollback();
            return Err(terminated());
        }
        let committed = self
            .commit_txn(&tx.txn)
            .inspect_err(|e| self.metrics.failed_with(e.status))?;
        tx.tally.committed();
        Ok(committed)
    }

    pub fn rollback(&self, tx: Transaction) {
        tx.txn.rollback();
    }

    /// The database's bulk loader (`POST /loader`, `neptune.load`), which
    /// reads sources only inside the import directory; started, and the
    /// directory created, on first use. One loader per database, so loads
    /// from every front end run one at a time in submission order.
    pub fn loader(self: &Arc<Self>) -> Result<Arc<crate::loader::Loader>, DbError> {
        let mut loader = self.loader.lock();
        if let Some(loader) = &*loader {
            return Ok(loader.clone());
        }
        let unavailable = |what: &str, e: std::io::Error| DbError {
            status: Status::ExternalResourceFailed,
            message: format!("cannot start the loader: {what}: {e}"),
        };
        std::fs::create_dir_all(&self.import_dir).map_err(|e| {
            unavailable(
                &format!("import directory {}", self.import_dir.display()),
                e,
            )
        })?;
        let started = Arc::new(
            crate::loader::Loader::new(self, &self.import_dir, &self.loads_dir)
                .map_err(|e| unavailable("its thread", e))?,
        );
        *loader = Some(started.clone());
        Ok(started)
    }

    /// How the loader reaches `s3://` sources.
    pub(crate) fn s3_settings(&self) -> crate::loader::S3Settings {
        self.s3.clone()
    }

    /// The transactions running now, oldest first (`SHOW TRANSACTIONS`).
    pub fn running_transactions(&self) -> Vec<nereid_dfe::RunningTransaction> {
        self.transactions.views()
    }

    /// Terminates a running transaction (`TERMINATE TRANSACTIONS`): its
    /// query stops at its next batch and its next statement or commit
    /// fails with `Transaction.Terminated`. False when none has that id.
    pub fn terminate_transaction(&self, id: &str) -> bool {
        self.transactions.terminate(id)
    }

    /// A transaction for one batch of `CALL { } IN TRANSACTIONS`, with its
    /// place in the transaction counts (committed once its tally is told
    /// so, else counted as rolled back when dropped).
    pub(crate) fn begin_inner(&self) -> (Arc<Txn>, TxTally) {
        (Arc::new(self.store.begin()), self.metrics.transaction())
    }

    /// Commits an inner transaction as a client's commit is: through the
    /// log, published once durable, counted.
    pub(crate) fn commit_inner(&self, txn: &Txn, tally: Option<TxTally>) -> Result<(), DbError> {
        self.commit_txn(txn)
            .inspect_err(|e| self.metrics.failed_with(e.status))?;
        if let Some(mut tally) = tally {
            tally.committed();
        }
        Ok(())
    }

    /// Commits through the log and publishes once durable.
    fn commit_txn(&self, txn: &Txn) -> Result<String, DbError> {
        if self.wal.failure().is_some() {
            // Reads need no log: a read-only transaction ends as usual.
            if txn.is_read_only() {
                txn.rollback();
                return Ok(bookmark(self.store.visible_ts()));
            }
            if let Err(why) = self.resume_log() {
                txn.rollback();
                return Err(log_failed(&why));
            }
        }
        let handle = self.next_handle.fetch_add(1, Ordering::Relaxed);
        let mut lsn: Option<Lsn> = None;
        let ticket = txn
            .commit(|commit_ts, changes| {
                lsn = Some(self.wal.append(handle, commit_ts, changes)?);
                Ok(())
            })
            .map_err(|e| match e {
                CommitError::Storage(s) => status::from_storage(s),
                CommitError::Log(w) => status::from_wal(w),
            })?;
        let Some(ticket) = ticket else {
            return Ok(bookmark(self.store.visible_ts()));
        };
        let commit_ts = ticket.commit_ts();
        if let Some(lsn) = lsn {
            if let Err(e) = self.wal.wait_durable(lsn) {
                // Refused, never to be published: undo it in memory, so that
                // the log can resume and reuse its timestamp.
                match txn.revoke_commit() {
                    Ok(()) => self.wal.release_refused(lsn),
                    Err(r) => tracing::error!(
                        error = %r,
                        "a refused commit could not be undone; writes stay refused until restart"
                    ),
                }
                tracing::error!(error = %e, "the log failed; refusing writes until it can be written again");
                return Err(status::from_wal(e));
            }
        }
        ticket.publish();
        Ok(bookmark(commit_ts))
    }
}

impl Drop for Database {
    /// Ends the background checkpointer (it holds no reference to us).
    fn drop(&mut self) {
        self.checkpoints.stop();
    }
}

impl durable::Checkpointable for Database {
    fn store_and_wal(&self) -> (&Store, &Wal) {
        (&self.store, &self.wal)
    }
}

/// The partition count is fixed when a data directory is created:
/// relationship ids encode their partition, so the log only replays into the
/// same layout. A different setting on a later start is ignored with a
/// warning.
fn partitions_of(dir: &std::path::Path, requested: usize) -> anyhow::Result<usize> {
    let path = dir.join("partitions");
    match std::fs::read_to_string(&path) {
        Ok(text) => {
            let stored: usize = text
                .trim()
                .parse()
                .map_err(|_| anyhow::anyhow!("{} is damaged: expected a number", path.display()))?;
            if stored != requested {
                tracing::warn!(
                    stored,
                    requested,
                    "the data directory was created with {stored} partitions; keeping {stored}"
                );
            }
            Ok(stored)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::write(&path, format!("{requested}\n"))?;
            Ok(requested)
        }
        Err(e) => Err(e.into()),
    }
}

/// Takes the data directory's exclusive lock, or explains who holds it.
fn lock_data_dir(dir: &std::path::Path) -> anyhow::Result<std::fs::File> {
    let path = dir.join("LOCK");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => anyhow::bail!(
            "the data directory {} is in use by another nereid process",
            dir.display()
        ),
        Err(std::fs::TryLockError::Error(e)) => Err(e.into()),
    }
}

/// Writes while the log cannot be written (reads go on; see
/// [`Database::log_failure`]). Not a transient status: drivers would retry a
/// full disk forever.
fn log_failed(why: &str) -> DbError {
    DbError {
        status: Status::TransactionCommitFailed,
        message: format!(
            "the database refuses writes while the transaction log cannot be written \
             (a full disk?): {why}; reads go on, and writes resume once the log can be written"
        ),
    }
}

/// The refusal of a query that commits work of its own (`what` it does)
/// inside an explicit transaction, in Neo4j's words for `IN TRANSACTIONS`;
/// `why` is added before the final period.
fn implicit_only(what: &str, why: &str) -> DbError {
    DbError {
        status: Status::TransactionStartFailed,
        message: format!(
            "A query {what} can only be executed in an implicit transaction, but tried to \
             execute in an explicit transaction{why}."
        ),
    }
}

/// What a statement or commit of a terminated transaction gets (Neo4j's
/// text).
fn terminated() -> DbError {
    DbError {
        status: Status::Terminated,
        message: "The transaction has been terminated. Retry your operation in a new \
                  transaction, and you should see a successful result. Explicitly terminated by \
                  the user. "
            .to_string(),
    }
}

fn bookmark(commit_ts: u64) -> String {
    format!("FB:nereid:{commit_ts}")
}

/// The writes of two transactions together.
impl QueryResult {
    pub fn fields(&self) -> &[String] {
        &self.fields
    }

    /// Streams up to `n` rows (all when `n < 0`) to `sink`, which also gets a
    /// resolver for materialising nodes and relationships. Returns `has_more`.
    /// When the stream ends, an auto-commit query commits (durably).
    pub fn pull(
        &mut self,
        n: i64,
        sink: &mut dyn FnMut(&[Value], &dyn EntityResolver),
    ) -> Result<bool, DbError> {
        let pulled = self.pull_rows(n, sink);
        match &pulled {
            Ok(true) => {}
            Ok(false) => self.ended(None),
            Err(e) => self.ended(Some(e)),
        }
        pulled
    }

    /// Counts the query's end once (see `metrics.rs`) and logs it (see
    /// `query_log.rs`).
    fn ended(&mut self, error: Option<&DbError>) {
        if let Some(started) = self.started.take() {
            self.metrics.query_ended(started, error.map(|e| e.status));
            if let (Some(log), Some(mark)) = (&self.query_log, &self.mark) {
                let failure = error.map(|e| (e.status, e.message.as_str()));
                mark.log(log, started.elapsed(), self.rows, failure);
            }
        }
    }

    fn pull_rows(
        &mut self,
        n: i64,
        sink: &mut dyn FnMut(&[Value], &dyn EntityResolver),
    ) -> Result<bool, DbError> {
        // A query without RETURN yields no records: run it to the end.
        if self.fields.is_empty() {
            while self.next_row()?.is_some() {}
            self.finish()?;
            return Ok(false);
        }
        let mut sent: i64 = 0;
        while n < 0 || sent < n {
            match self.next_row()? {
                Some(row) => {
                    sink(&row, self.txn.as_ref());
                    sent += 1;
                    self.rows += 1;
                }
                None => {
                    self.finish()?;
                    return Ok(false);
                }
            }
        }
        // Look one row ahead so that an exhausted stream ends now.
        match self.next_row()? {
            Some(row) => {
                self.peeked = Some(row);
                Ok(true)
            }
            None => {
                self.finish()?;
                Ok(false)
            }
        }
    }

    /// Like `pull`, but drops the rows.
    pub fn discard(&mut self, n: i64) -> Result<bool, DbError> {
        self.pull(n, &mut |_, _| {})
    }

    /// Valid once `pull`/`discard` returned `has_more == false`.
    pub fn summary(&self) -> Summary {
        self.summary.clone().unwrap_or_default()
    }

    fn next_row(&mut self) -> Result<Option<Vec<Value>>, DbError> {
        if let Some(row) = self.peeked.take() {
            return Ok(Some(row));
        }
        loop {
            let Some(cursor) = self.cursor.as_mut() else {
                return Ok(None);
            };
            let e = match cursor.next_row() {
                Ok(row) => return Ok(row),
                Err(e) => e,
            };
            match self.run_again(&e) {
                Some(Ok(again)) => self.cursor = Some(again),
                Some(Err(e)) => return Err(self.failed(e)),
                None => return Err(self.failed(e)),
            }
        }
    }

    /// A run of the statement on a newer snapshot after `e`, when its
    /// write met a newer commit and nothing has seen its answers yet
    /// (`rerun.rs`).
    fn run_again(
        &mut self,
        e: &nereid_dfe::ExecError,
    ) -> Option<Result<nereid_dfe::Cursor, nereid_dfe::ExecError>> {
        let unseen = self.rows == 0
            && self.peeked.is_none()
            && self.system_updates.load(Ordering::Relaxed) == 0;
        let cancel = self.cursor.as_ref()?.cancel_handle();
        match self.rerun.as_mut() {
            Some(rerun) if unseen => rerun.again(e, &self.txn, cancel),
            _ => None,
        }
    }

    /// Ends the statement after its cursor failed with `e`.
    fn failed(&mut self, e: nereid_dfe::ExecError) -> DbError {
        self.cursor = None;
        self.rerun = None;
        // Statement atomicity: a failed auto-commit query leaves nothing
        // behind. (An explicit transaction is rolled back by the session's
        // RESET.)
        if self.auto_commit.take().is_some() {
            self.txn.rollback();
        }
        // Cancelled (or stopped waiting for another transaction's write)
        // because its transaction was terminated.
        let stopped = matches!(
            e,
            nereid_dfe::ExecError::Cancelled
                | nereid_dfe::ExecError::Storage(nereid_storage::StorageError::LockWaitStopped)
        );
        if stopped && self.mark.as_ref().is_some_and(|m| m.terminated()) {
            return terminated();
        }
        status::from_exec(e)
    }

    fn finish(&mut self) -> Result<(), DbError> {
        if self.summary.is_some() {
            return Ok(());
        }
        let profile = match (self.profiling, &self.explained, &self.cursor) {
            (true, Some(plan), Some(cursor)) => Some(Arc::new(crate::profile::Profile::new(
                Arc::clone(plan),
                cursor.operator_stats(),
            ))),
            _ => None,
        };
        if let Some(cursor) = self.cursor.take() {
            let notices = cursor.take_notices();
            if !notices.is_empty() {
                let notifications = self.notifications.iter().cloned();
                let schema = notices.into_iter().map(Notification::from);
                self.notifications = notifications.chain(schema).collect();
            }
        }
        let mut stats = &self.txn.stats() - &self.stats_before;
        let inner_commits = self.batches.as_ref().is_some_and(|b| b.any_committed());
        if let Some(batches) = &self.batches {
            stats = &stats + &batches.written();
        }
        let mut bookmark = None;
        if let Some(db) = self.auto_commit.take() {
            let writes =
                stats != WriteStats::default() || !self.txn.is_read_only() || inner_commits;
            let b = db.commit_txn(&self.txn)?;
            if let Some(tally) = self.tally.as_mut() {
                tally.committed();
            }
            if writes {
                bookmark = Some(b);
            }
        }
        self.summary = Some(Summary {
            stats,
            system_updates: self.system_updates.load(Ordering::Relaxed),
            query_type: self.query_type,
            bookmark,
            plan: if self.profiling {
                None
            } else {
                self.explained.clone()
            },
            profile,
            notifications: Arc::clone(&self.notifications),
        });
        Ok(())
    }
}

impl Drop for QueryResult {
    /// An auto-commit result dropped before its end (e.g. the client went
    /// away) rolls its transaction back.
    fn drop(&mut self) {
        if self.auto_commit.take().is_some() {
            self.txn.rollback();
        }
    }
}

/// What the Bolt layer needs to honour bookmarks (`bolt::bookmarks`).
impl Database {
    /// Every commit with a timestamp up to this one is visible to new
    /// transactions.
    pub fn visible_commit_ts(&self) -> u64 {
        self.store.visible_ts()
    }

    /// The planner's view of the database now (statistics, procedures,
    /// threads), for planning and for EXPLAIN's estimates.
    fn catalog(&self) -> DbCatalog<'_> {
        DbCatalog {
            store: &self.store,
            procedures: &self.procedures,
            query_threads: self.query_threads,
        }
    }
}

/// What the Bolt layer needs to interrupt a running query (RESET).
impl QueryResult {
    /// Setting the flag stops the query at its next batch (see
    /// `nereid_dfe::Cursor::cancel_handle`); `None` once nothing runs.
    pub fn cancel_handle(&self) -> Option<Arc<AtomicBool>> {
        self.cursor.as_ref().map(nereid_dfe::Cursor::cancel_handle)
    }
}

/// What [`Database::reach`] gives a statement's cursors (kept by a query
/// that may run its statement again: lock waits, ADR 0126).
struct Reach {
    procedures: Arc<ProcedureRegistry>,
    database: std::sync::Weak<Database>,
    client: Client,
    system_updates: Arc<AtomicU64>,
    files: Arc<crate::batches::ImportFiles>,
    memory: usize,
}

impl Reach {
    fn configure(
        &self,
        cursor: nereid_dfe::Cursor,
    ) -> Result<nereid_dfe::Cursor, nereid_dfe::ExecError> {
        cursor
            .with_procedures(Arc::clone(&self.procedures))
            .with_database_hook(Arc::new(crate::database_hook::DatabaseCalls::for_client(
                self.database.clone(),
                self.client.clone(),
                Arc::clone(&self.system_updates),
            )))
            .with_file_source(self.files.clone())
            .with_memory_limit(self.memory)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_open_of_the_same_data_dir_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = DbConfig::new(dir.path().to_path_buf(), 4);
        let first = Database::open(&config).expect("first open");
        let second = Database::open(&config).err().expect("second open fails");
        assert!(second.to_string().contains("in use"), "{second}");
        drop(first);
        Database::open(&config).expect("open again after the first closed");
    }

    #[test]
    fn a_repeated_query_runs_from_the_plan_cache_with_new_parameters() {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = Database::open(&DbConfig::new(dir.path().to_path_buf(), 2)).expect("opens");
        let run = |q: &str, x: i64| {
            let mut r = db
                .run(None, q, Params::from([("x".to_string(), Value::Int(x))]))
                .expect("runs");
            let mut rows = Vec::new();
            r.pull(-1, &mut |row, _| rows.push(row.to_vec()))
                .expect("pulls");
            rows
        };
        let create = "CREATE (n:N {x: $x}) RETURN n.x AS x";
        assert_eq!(run(create, 1), vec![vec![Value::Int(1)]]);
        assert_eq!(run(create, 2), vec![vec![Value::Int(2)]]);
        let (hits, misses, entries) = db.plan_cache_counters();
        assert_eq!((hits, misses, entries), (1, 1, 1));
        let count = "MATCH (n:N) WHERE n.x >= $x RETURN count(n) AS c";
        assert_eq!(run(count, 2), vec![vec![Value::Int(1)]]);
        assert_eq!(run(count, 0), vec![vec![Value::Int(2)]]);
        // A failing query is never cached: it fails again, the same way.
        for _ in 0..2 {
            let err = db
                .run(None, "RETURN $x +", Params::new())
                .err()
                .expect("fails");
            assert_eq!(err.status, Status::SyntaxError);
        }
        assert_eq!(db.plan_cache_counters(), (2, 4, 2));
    }

    #[test]
    fn the_partition_count_of_a_data_dir_survives_a_different_setting() {
        let dir = tempfile::tempdir().expect("tempdir");
        let open = |partitions| {
            Database::open(&DbConfig::new(dir.path().to_path_buf(), partitions)).expect("opens")
        };
        let db = open(4);
        let mut r = db
            .run(None, "CREATE (:A)-[:R]->(:B)", Params::new())
            .expect("runs");
        r.discard(-1).expect("commits");
        drop(r);
        drop(db);
        let db = open(8);
        let mut r = db
            .run(
                None,
                "MATCH (:A)-[r:R]->(:B) RETURN count(r) AS c",
                Params::new(),
            )
            .expect("runs");
        let mut rows = Vec::new();
        r.pull(-1, &mut |row, _| rows.push(row.to_vec()))
            .expect("pulls");
        assert_eq!(rows, vec![vec![Value::Int(1)]]);
    }

    #[test]
    fn a_checkpoint_plus_the_log_after_it_restores_everything() {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = DbConfig::new(dir.path().to_path_buf(), 2);
        let durable = DurableConfig {
            wal_segment_bytes: 4096,
            checkpoint_log_bytes: 0,
            // One partition: the segment count below is partition 0's.
            log_partitions: 1,
            ..DurableConfig::default()
        };
        let run = |db: &Arc<Database>, q: &str| {
            let mut rows = Vec::new();
            let mut r = db.run(None, q, Params::new()).expect("runs");
            r.pull(-1, &mut |row, _| rows.push(row.to_vec()))
                .expect("pulls");
            rows
        };
        let db = Database::open_with(&config, &durable).expect("opens");
        for i in 0..40 {
            run(
                &db,
                &format!("CREATE (:N {{i: {i}, pad: '{}'}})", "x".repeat(100)),
            );
        }
        let info = db.checkpoint().expect("checkpoint");
        assert_eq!((info.commit_ts, info.nodes), (40, 40));
        run(&db, "MATCH (n:N) WHERE n.i < 5 DETACH DELETE n");
        run(&db, "CREATE (:N {i: 100})");
        let segments = std::fs::read_dir(dir.path().join("wal"))
            .expect("wal dir")
            .count();
        drop(db);
        let db = Database::open_with(&config, &durable).expect("reopens");
        let rows = run(&db, "MATCH (n:N) RETURN count(n) AS c, sum(n.i) AS s");
        assert_eq!(rows, vec![vec![Value::Int(36), Value::Int(780 - 10 + 100)]]);
        assert!(
            segments <= 2,
            "segments covered by the checkpoint are deleted"
        );
    }
}
