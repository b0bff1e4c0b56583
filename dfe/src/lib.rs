//! The dataflow executor (DFE): runs a [`PhysicalPlan`] as a pipeline of
//! operators exchanging columnar batches (default 1,024 rows).

mod batch;
mod error;
mod eval;
mod graph;

pub use batch::Batch;
pub use error::{ExecError, ExecResult};
pub use eval::{Evaluator, RegexCache};
pub use graph::GraphRead;

use nereid_planner::PhysicalPlan;
use nereid_storage::Txn;
use nereid_values::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Default number of rows in a batch.
pub const BATCH_SIZE: usize = 1024;

/// Query parameters by name.
pub type Params = BTreeMap<String, Value>;

/// A running query: pulls rows lazily from the operator pipeline.
pub struct Cursor {
    _private: (),
}

impl Cursor {
    pub fn new(_plan: Arc<PhysicalPlan>, _txn: Arc<Txn>, _params: Params) -> Cursor {
        unimplemented!("dfe helper")
    }
    pub fn columns(&self) -> Vec<String> {
        unimplemented!("dfe helper")
    }
    pub fn next_row(&mut self) -> Result<Option<Vec<Value>>, ExecError> {
        unimplemented!("dfe helper")
    }
}
