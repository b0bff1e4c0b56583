//! The dataflow executor (DFE): runs a [`PhysicalPlan`] as a pipeline of
//! operators exchanging columnar batches (default 1,024 rows).
//!
//! CONTRACT NOTE (temporary, removed when the dfe helper lands): signatures
//! below are the agreed contract.

use nereid_planner::PhysicalPlan;
use nereid_storage::{StorageError, Txn};
use nereid_values::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Default number of rows in a batch.
pub const BATCH_SIZE: usize = 1024;

/// Query parameters by name.
pub type Params = BTreeMap<String, Value>;

/// Errors raised while executing a plan.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum ExecError {
    #[error("{0}")]
    Type(String),
    #[error("{0}")]
    Argument(String),
    #[error("{0}")]
    Arithmetic(String),
    #[error("Expected parameter(s): {0}")]
    ParameterMissing(String),
    #[error("There is no procedure with the name `{0}` registered for this database instance. Please ensure you've spelled the procedure name correctly and that the procedure is properly deployed.")]
    ProcedureNotFound(String),
    #[error(transparent)]
    Storage(#[from] StorageError),
}

/// A running query: pulls rows lazily from the operator pipeline.
pub struct Cursor {
    _private: (),
}

impl Cursor {
    /// Starts executing `plan` inside `txn`. Nothing is computed until rows
    /// are pulled.
    pub fn new(_plan: Arc<PhysicalPlan>, _txn: Arc<Txn>, _params: Params) -> Cursor {
        unimplemented!("dfe helper")
    }

    /// Result column names.
    pub fn columns(&self) -> Vec<String> {
        unimplemented!("dfe helper")
    }

    /// The next result row (values of the plan's output slots, in order), or
    /// `None` when the query is exhausted. Computes at most one batch ahead.
    pub fn next_row(&mut self) -> Result<Option<Vec<Value>>, ExecError> {
        unimplemented!("dfe helper")
    }
}
