//! What the executor needs from the database around it for bulk imports
//! written in Cypher, and cannot do itself: open a file under the server's
//! file policy (`LOAD CSV`), and begin and durably commit transactions of
//! its own (`CALL { } IN TRANSACTIONS`). The engine implements both; the
//! executor only knows the store and never touches files or the log.

use crate::ExecResult;
use nereid_storage::Txn;
use std::io::Read;
use std::sync::Arc;

/// Opens the files `LOAD CSV` names.
pub trait FileSource: Send + Sync {
    /// The bytes of the file `url` names (`file:///...`), with its path
    /// (which errors name and `file()` answers); refused with a message when the policy forbids it or
    /// the file cannot be read.
    fn open(&self, url: &str) -> Result<(String, Box<dyn Read + Send>), String>;
}

/// Runs the batches of `CALL { } IN TRANSACTIONS`, each in a transaction
/// of its own.
pub trait InnerTransactions: Send + Sync {
    /// A new transaction on the latest committed state, and the id its
    /// `REPORT STATUS` shows.
    fn begin(&self) -> (Arc<Txn>, String);
    /// Commits `txn` durably (through the log, as a client's commit);
    /// the error is the one the query fails with.
    fn commit(&self, txn: &Txn) -> ExecResult<()>;
    /// Drops `txn`'s changes.
    fn rollback(&self, txn: &Txn);
}
