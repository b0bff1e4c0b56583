//! The dataflow executor (DFE): runs a [`PhysicalPlan`](nereid_planner::PhysicalPlan)
//! as a pipeline of operators exchanging columnar batches (default 1,024 rows).
//!
//! Following the Poseidon paper (§8.3), operators are RISC-style and
//! pipelined: each pulls batches from its input on demand (single-threaded,
//! depth-first, which minimises time to first row for LIMIT queries), and
//! evaluates expressions a whole batch at a time. Operators that read base
//! graph data (scans, expand, updates) go through the storage [`Txn`];
//! the others only see intermediate batches.
//!
//! Layout: `batch` (columns + selection vector), `eval` (expressions and
//! functions), `accumulator` (aggregate functions), `operators` (one per
//! file), `procedures` (CALL registry), `stop` (cancellation and the
//! transaction's deadline), `cursor` (the public pull API).

mod accumulator;
mod batch;
mod context;
mod cursor;
mod error;
mod eval;
mod external;
mod graph;
mod memory;
mod operators;
mod parameters;
mod procedures;
mod stop;
mod worker_pool;

pub use batch::Batch;
pub use context::OperatorStats;
pub use cursor::Cursor;
pub use error::{ExecError, ExecResult};
pub use eval::{temporal_from_text, Evaluator, IntRange, RegexCache};
pub use external::{FileSource, InnerTransactions};
pub use graph::GraphRead;
pub use memory::{MemoryBudget, Reservation};
pub use parameters::check_parameters;
pub use procedures::{
    is_schema_command, is_self_service, is_user_command, is_write_procedure,
    set_advertised_address, BatchMode, BatchPlan, BatchReport, DatabaseHook, LoadOutcome, Password,
    ProcedureRegistry, RegistryError, RunningQuery, RunningTransaction, SchemaNotice, Setting,
    TableProcedure, TxMetadata, UserCommand, UserInfo, BUILT_IN_ROLES, DEFAULT_DATABASE,
    NEPTUNE_LOAD, PERIODIC_ITERATE, SYSTEM_DATABASE,
};
pub use stop::{Deadline, TimeoutOrigin};

use nereid_values::Value;
use std::collections::BTreeMap;

#[doc(no_inline)]
pub use nereid_storage::Txn;

/// Default number of rows in a batch.
pub const BATCH_SIZE: usize = 1024;

/// Query parameters by name.
pub type Params = BTreeMap<String, Value>;
