//! The database facade: parse → plan → execute → commit through the log.
//! The Bolt and HTTP layers call only this module. All methods are blocking
//! and run on the execution pool, never on the I/O threads.
//!
//! CONTRACT NOTE (temporary): bodies are being implemented; signatures are
//! the contract the Bolt layer codes against.

use nereid_errors::Status;
use nereid_storage::WriteStats;
use nereid_values::{EntityResolver, Value};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// Query parameters.
pub type Params = BTreeMap<String, Value>;

/// A failure, already mapped to its Neo4j status (see `status.rs`).
#[derive(Debug, Clone, PartialEq)]
pub struct DbError {
    pub status: Status,
    pub message: String,
}

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.status.code(), self.message)
    }
}
impl std::error::Error for DbError {}

/// Settings of the database (not of the network listeners).
#[derive(Clone, Debug)]
pub struct DbConfig {
    pub data_dir: PathBuf,
    pub partitions: usize,
}

/// What a finished query did, for the PULL/DISCARD SUCCESS metadata.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    pub stats: WriteStats,
    /// `"r"`, `"w"`, `"rw"` or `"s"`.
    pub query_type: &'static str,
    /// Set for auto-commit queries that committed a write.
    pub bookmark: Option<String>,
}

/// The database.
pub struct Database {
    _private: (),
}

/// An explicit transaction (BEGIN ... COMMIT/ROLLBACK).
pub struct Transaction {
    _private: (),
}

/// The result stream of one RUN. `Send`: it moves between pool threads.
pub struct QueryResult {
    _private: (),
}

impl Database {
    /// Opens (and recovers) the database in `config.data_dir`.
    pub fn open(_config: &DbConfig) -> anyhow::Result<Arc<Database>> {
        unimplemented!("db facade")
    }

    pub fn begin(self: &Arc<Self>) -> Transaction {
        unimplemented!("db facade")
    }

    /// Runs `query` in `tx`, or in its own auto-commit transaction when `tx`
    /// is `None` (committed when the result is fully pulled or discarded).
    pub fn run(
        self: &Arc<Self>,
        _tx: Option<&Transaction>,
        _query: &str,
        _params: Params,
    ) -> Result<QueryResult, DbError> {
        unimplemented!("db facade")
    }

    /// Commits; returns the bookmark.
    pub fn commit(&self, _tx: Transaction) -> Result<String, DbError> {
        unimplemented!("db facade")
    }

    pub fn rollback(&self, _tx: Transaction) {
        unimplemented!("db facade")
    }
}

impl QueryResult {
    pub fn fields(&self) -> &[String] {
        unimplemented!("db facade")
    }

    /// Streams up to `n` rows (all when `n < 0`) to `sink`, which also gets a
    /// resolver for materialising nodes and relationships. Returns `has_more`.
    /// When the stream ends, an auto-commit query commits (durably).
    pub fn pull(
        &mut self,
        _n: i64,
        _sink: &mut dyn FnMut(&[Value], &dyn EntityResolver),
    ) -> Result<bool, DbError> {
        unimplemented!("db facade")
    }

    /// Like `pull`, but drops the rows.
    pub fn discard(&mut self, _n: i64) -> Result<bool, DbError> {
        unimplemented!("db facade")
    }

    /// Valid once `pull`/`discard` returned `has_more == false`.
    pub fn summary(&self) -> Summary {
        unimplemented!("db facade")
    }
}
