//! `tx.getMetaData()` and `tx.setMetaData(data)`: the metadata of the
//! running transaction, as in Neo4j. Drivers send it with BEGIN (or with an
//! auto-commit RUN) as `tx_metadata`, and testkit reads it back.
//!
//! The metadata belongs to the server's transaction, which dfe does not
//! know; the server hands the cursor a shared [`TxMetadata`]
//! (`Cursor::with_tx_metadata`), one per transaction, so a replacement made
//! by one statement is what the next statement of the transaction reads.
//! As with the checkpoint hook, the procedure-call operator makes it
//! current for the duration of a call (`with_metadata`), keeping procedure
//! bodies' plain signature.

use super::Procedure;
use crate::error::{ExecError, ExecResult};
use nereid_planner::ProcedureType;
use nereid_storage::Txn;
use nereid_values::Value;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// One transaction's metadata map, shared by its statements.
#[derive(Debug, Default)]
pub struct TxMetadata(Mutex<BTreeMap<String, Value>>);

impl TxMetadata {
    pub fn new(metadata: BTreeMap<String, Value>) -> TxMetadata {
        TxMetadata(Mutex::new(metadata))
    }

    /// A copy of the current map.
    pub fn get(&self) -> BTreeMap<String, Value> {
        self.lock().clone()
    }

    /// Replaces the map.
    pub fn set(&self, metadata: BTreeMap<String, Value>) {
        *self.lock() = metadata;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Value>> {
        // A panic while holding it cannot leave a half-written map.
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

pub(super) const PROCEDURES: &[Procedure] = &[
    Procedure {
        name: "tx.getMetaData",
        inputs: &[],
        outputs: &["metadata"],
        description: "Provides attached transaction metadata.",
        mode: "DBMS",
        body: get_metadata,
    },
    Procedure {
        name: "tx.setMetaData",
        inputs: &[("data", ProcedureType::Map)],
        outputs: &[],
        description: "Attaches a map of data to the transaction. The data will be printed \
                      when listing queries, and inserted into the query log.",
        mode: "DBMS",
        body: set_metadata,
    },
];

thread_local! {
    /// The metadata of the cursor whose procedure call is running on this
    /// thread (set only inside [`with_metadata`]).
    static CURRENT: RefCell<Option<Arc<TxMetadata>>> = const { RefCell::new(None) };
}

/// Runs `call` with `metadata` as this thread's current transaction
/// metadata, restoring the previous one afterwards (calls may nest).
pub(crate) fn with_metadata<R>(metadata: Option<&Arc<TxMetadata>>, call: impl FnOnce() -> R) -> R {
    /// Restores the previous metadata even when `call` unwinds.
    struct Restore(Option<Arc<TxMetadata>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            CURRENT.with(|current| *current.borrow_mut() = previous);
        }
    }
    let _restore = Restore(CURRENT.with(|current| current.replace(metadata.cloned())));
    call()
}

fn current() -> ExecResult<Arc<TxMetadata>> {
    CURRENT
        .with(|current| current.borrow().clone())
        .ok_or_else(|| {
            ExecError::ExecutionFailed(
                "this query runs without a transaction that carries metadata".into(),
            )
        })
}

fn get_metadata(_txn: &Txn, _args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    Ok(vec![vec![Value::Map(current()?.get())]])
}

fn set_metadata(_txn: &Txn, args: &[Value]) -> ExecResult<Vec<Vec<Value>>> {
    let metadata = match args.first() {
        Some(Value::Map(map)) => map.clone(),
        Some(Value::Null) | None => BTreeMap::new(),
        Some(other) => {
            return Err(ExecError::Type(format!(
                "InvalidArgumentType: tx.setMetaData expects a map, got {}",
                other.type_name()
            )))
        }
    };
    current()?.set(metadata);
    Ok(Vec::new())
}
