//! What the executor reaches through the engine for imports written in
//! Cypher: files for `LOAD CSV`, confined to the import directory as the
//! HTTP loader's sources are, and the inner transactions of `CALL { } IN
//! TRANSACTIONS`, each committed through the log as a client's commit is.

use crate::db::{Database, DbError};
use crate::metrics::TxTally;
use nereid_dfe::{ExecError, ExecResult, Txn};
use nereid_storage::WriteStats;
use std::collections::HashMap;
use std::fs::File;
use std::io::Read;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

/// `LOAD CSV`'s files: `file:///x.csv` is `x.csv` in the import directory
/// (or that absolute path when it lies inside it), as in Neo4j;
/// `s3://bucket/key` is that object, read through the loader's S3
/// settings (`loader::s3_source`) as it streams.
pub(crate) struct ImportFiles {
    pub(crate) dir: PathBuf,
    pub(crate) s3: crate::loader::S3Settings,
}

impl nereid_dfe::FileSource for ImportFiles {
    fn open(&self, url: &str) -> Result<(String, Box<dyn Read + Send>), String> {
        if crate::loader::is_s3(url) {
            let (name, object) = crate::loader::open_object(url, &self.s3)?;
            return Ok((name, object));
        }
        let path = crate::loader::resolve_source(url, &self.dir).map_err(|e| e.message)?;
        if !path.is_file() {
            return Err(format!("{} is not a file", path.display()));
        }
        let file = File::open(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok((path.display().to_string(), Box::new(file)))
    }
}

/// The inner transactions of one auto-commit query, and what they wrote
/// (the query's summary counts it with the outer transaction's writes).
pub(crate) struct BatchTransactions {
    db: Arc<Database>,
    written: Mutex<WriteStats>,
    /// Inner transactions committed (for the summary's bookmark).
    committed: AtomicU64,
    /// The metrics tally of each inner transaction still open, keyed by
    /// its address (the executor hands back the transaction it was given).
    open: Mutex<HashMap<usize, TxTally>>,
}

/// Ids shown by `REPORT STATUS`, unique in the process.
static NEXT_ID: AtomicU64 = AtomicU64::new(1);

impl BatchTransactions {
    pub(crate) fn new(db: Arc<Database>) -> BatchTransactions {
        BatchTransactions {
            db,
            written: Mutex::new(WriteStats::default()),
            committed: AtomicU64::new(0),
            open: Mutex::new(HashMap::new()),
        }
    }

    /// What the committed inner transactions wrote.
    pub(crate) fn written(&self) -> WriteStats {
        self.written
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    pub(crate) fn any_committed(&self) -> bool {
        self.committed.load(Ordering::Relaxed) > 0
    }
}

impl nereid_dfe::InnerTransactions for BatchTransactions {
    fn begin(&self) -> (Arc<Txn>, String) {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let (txn, tally) = self.db.begin_inner();
        self.open_tallies().insert(key(&txn), tally);
        (txn, format!("nereid-transaction-{id}"))
    }

    fn commit(&self, txn: &Txn) -> ExecResult<()> {
        let stats = txn.stats();
        let tally = self.open_tallies().remove(&key(txn));
        self.db
            .commit_inner(txn, tally)
            .map_err(|DbError { status, message }| ExecError::Commit { status, message })?;
        self.committed.fetch_add(1, Ordering::Relaxed);
        let mut written = self.written.lock().unwrap_or_else(PoisonError::into_inner);
        *written = &*written + &stats;
        Ok(())
    }

    fn rollback(&self, txn: &Txn) {
        txn.rollback();
        // Dropping the tally counts the transaction as rolled back.
        self.open_tallies().remove(&key(txn));
    }
}

impl BatchTransactions {
    fn open_tallies(&self) -> std::sync::MutexGuard<'_, HashMap<usize, TxTally>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// An inner transaction's identity while it is open.
fn key(txn: &Txn) -> usize {
    txn as *const Txn as usize
}
