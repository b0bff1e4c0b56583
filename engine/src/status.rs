//! The one place where the errors of the engine's crates (parser,
//! planner, executor, store, log) become Neo4j statuses. The errors only
//! a front end meets (authentication, protocol decoding) are mapped in
//! the server's `protocol_status.rs` (docs/adr/0088-the-engine-crate.md).
//!
//! Messages keep the crate's wording; positions (byte offsets) become Neo4j's
//! `(line L, column C (offset: O))` suffix, the query line and a caret under
//! the column, as the parser lays out its own errors. A message may start with
//! its openCypher detail (`error_detail.rs`), which the front ends send apart.

use crate::db::DbError;
use nereid_cypher::{CypherError, ErrorKind};
use nereid_dfe::{ExecError, TimeoutOrigin};
use nereid_errors::Status;
use nereid_planner::PlanError;
use nereid_storage::StorageError;
use nereid_vector::VectorError;
use nereid_wal::WalError;

pub(crate) fn from_cypher(e: CypherError) -> DbError {
    // Neo4j reports scoping and other compile-time errors with the
    // SyntaxError code too; drivers surface them as CypherSyntaxError.
    let status = match e.kind {
        ErrorKind::Syntax | ErrorKind::Semantic => Status::SyntaxError,
    };
    DbError {
        status,
        message: e.message,
    }
}

/// A `CYPHER` option Neo4j does not know (`query_options.rs`): Neo4j's
/// `InvalidCypherOption`, an `InvalidArgumentException`.
pub(crate) fn from_option(e: crate::query_options::OptionError) -> DbError {
    DbError {
        status: Status::ArgumentError,
        message: e.to_string(),
    }
}

pub(crate) fn from_plan(e: PlanError, query: &str) -> DbError {
    let status = match &e {
        PlanError::Semantic { .. } => Status::SyntaxError,
        PlanError::Unsupported { .. } => Status::NotSupported,
        PlanError::ProcedureNotFound { .. } => Status::ProcedureNotFound,
    };
    let message = match (&e, e.offset()) {
        // Neo4j names no position for a procedure it does not have.
        (PlanError::ProcedureNotFound { .. }, _) | (_, None) => e.to_string(),
        // The parser's layout: position, the query line, a caret under the column.
        (_, Some(offset)) => {
            CypherError::at(ErrorKind::Semantic, &e.to_string(), query, offset).message
        }
    };
    DbError { status, message }
}

pub fn from_exec(e: ExecError) -> DbError {
    let status = match &e {
        ExecError::Type(_) => Status::TypeError,
        ExecError::Argument(_) => Status::ArgumentError,
        ExecError::Arithmetic(_) => Status::ArithmeticError,
        ExecError::Semantic(_) => Status::SemanticError,
        // Neo.DatabaseError.Statement.ExecutionFailed
        ExecError::ExecutionFailed(_) => Status::NotSupported,
        ExecError::DeletedEntity(_) => Status::EntityNotFound,
        ExecError::ParameterMissing(_) => Status::ParameterMissing,
        ExecError::ProcedureNotFound(_) => Status::ProcedureNotFound,
        ExecError::IndexNotFound(_) => Status::IndexNotFound,
        ExecError::IndexFailed(_) => Status::IndexCreationFailed,
        ExecError::ProcedureTimedOut(_) => Status::ProcedureTimedOut,
        ExecError::ProcedureCallFailed(_) => Status::ProcedureCallFailed,
        ExecError::Vector(VectorError::NotNumeric(_)) => Status::TypeError,
        ExecError::Vector(_) => Status::ArgumentError,
        ExecError::Cancelled => Status::General,
        ExecError::ExternalResource(_) => Status::ExternalResourceFailed,
        ExecError::TokenName(_) => Status::TokenNameError,
        ExecError::Commit { status, .. } => *status,
        ExecError::TimedOut { origin, .. } => return timed_out(*origin, e.to_string()),
        ExecError::MemoryLimit { .. } => return memory_limit(e.to_string()),
        // The store decides the status; the executor's message adds the openCypher
        // detail (`DeleteConnectedNode: ...`).
        ExecError::Storage(s) => {
            return DbError {
                message: e.to_string(),
                ..from_storage(s.clone())
            }
        }
        #[allow(unreachable_patterns)]
        _ => Status::General,
    };
    DbError {
        status,
        message: e.to_string(),
    }
}

/// A transaction past its deadline: the status tells the client whether
/// its own timeout or the server's default ran out, and the message names
/// what to change.
fn timed_out(origin: TimeoutOrigin, message: String) -> DbError {
    let (status, setting) = match origin {
        TimeoutOrigin::Client => (
            Status::TransactionTimedOutClientConfiguration,
            "The timeout was set by the client at the start of the transaction.",
        ),
        TimeoutOrigin::Server => (
            Status::TransactionTimedOut,
            "The timeout is set by --transaction-timeout (NEREID_TRANSACTION_TIMEOUT; 0: no limit).",
        ),
    };
    DbError {
        status,
        message: format!("{message} {setting}"),
    }
}

/// A query over its memory budget: the message names the setting, which
/// the executor does not know.
pub fn memory_limit(message: String) -> DbError {
    DbError {
        status: Status::MemoryPoolOutOfMemoryError,
        message: format!("{message} {MEMORY_SETTING}"),
    }
}

/// A query text whose parse tree and plan would not fit the query's
/// memory budget (see `db::PLANNING_BYTES_PER_TEXT_BYTE`).
pub fn query_text_over_budget(text_bytes: usize, needed: usize, limit: usize) -> DbError {
    memory_limit(format!(
        "The query text ({text_bytes} bytes) would need about {needed} bytes to parse and plan, \
         more than the query memory limit of {limit} bytes; pass large values as parameters."
    ))
}

const MEMORY_SETTING: &str =
    "The limit is set by --query-max-memory (NEREID_QUERY_MAX_MEMORY; 0: no limit).";

pub(crate) fn from_storage(e: StorageError) -> DbError {
    let status = match &e {
        StorageError::WriteConflict(_) | StorageError::Deadlock(_) => Status::DeadlockDetected,
        StorageError::LockWaitTimedOut(_) => Status::LockClientStopped,
        // Stopped by RESET or the client leaving (nobody reads the answer),
        // or by termination (`db.rs` answers `Terminated` then).
        StorageError::LockWaitStopped => Status::Terminated,
        StorageError::DeleteConnectedNode(_) => Status::ConstraintValidationFailed,
        StorageError::EntityNotFound(_) => Status::EntityNotFound,
        StorageError::UnstorableValue(_) => Status::TypeError,
        StorageError::TxnClosed => Status::TransactionNotFound,
        StorageError::Replay(_) => Status::General,
        StorageError::Revoke(_) => Status::TransactionCommitFailed,
        StorageError::ConstraintViolation(_) => Status::ConstraintValidationFailed,
        StorageError::EquivalentSchemaRuleExists(_) => Status::EquivalentSchemaRuleAlreadyExists,
        StorageError::IndexNameTaken(_) => Status::IndexWithNameAlreadyExists,
        StorageError::ConstraintNameTaken(_) => Status::ConstraintWithNameAlreadyExists,
        StorageError::IndexAlreadyExists(_) => Status::IndexAlreadyExists,
        StorageError::ConstraintAlreadyExists(_) => Status::ConstraintAlreadyExists,
        StorageError::IndexNotFound(_) => Status::IndexDropFailed,
        StorageError::ConstraintNotFound(_) => Status::ConstraintDropFailed,
        StorageError::ConstraintCreationFailed(_) => Status::ConstraintCreationFailed,
        StorageError::SchemaAndDataInOneTransaction(_) => Status::ForbiddenDueToTransactionType,
        StorageError::InvalidVector(_) => Status::ArgumentError,
        StorageError::VectorQueryRefused(_) | StorageError::FulltextQueryRefused(_) => {
            Status::ProcedureCallFailed
        }
        #[allow(unreachable_patterns)]
        _ => Status::General,
    };
    DbError {
        status,
        message: e.to_string(),
    }
}

/// A log failure is `TransactionCommitFailed`, a database error: the common
/// cause is a full disk, which retrying does not cure (a transient status made
/// drivers retry forever).
pub(crate) fn from_wal(e: WalError) -> DbError {
    DbError {
        status: Status::TransactionCommitFailed,
        message: format!("the transaction log failed: {e}"),
    }
}
