//! The executor's error type and helpers that phrase errors the way Neo4j
//! does, so clients see familiar messages.

use nereid_storage::StorageError;
use nereid_values::Value;

/// Errors raised while executing a plan.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum ExecError {
    #[error("{0}")]
    Type(String),
    #[error("{0}")]
    Argument(String),
    #[error("{0}")]
    Arithmetic(String),
    /// A semantic error only detectable at run time (e.g. MERGE with a null
    /// property: `MergeReadOwnWrites`); Neo4j reports these as
    /// `Neo.ClientError.Statement.SemanticError`.
    #[error("{0}")]
    Semantic(String),
    /// A query the engine cannot run to the end for a reason that is not
    /// the client's mistake in the query text, e.g. a shortest path asked
    /// between a node and itself (Neo4j: `Neo.DatabaseError.Statement.
    /// ExecutionFailed`).
    #[error("{0}")]
    ExecutionFailed(String),
    /// Reading the properties or labels of a node or relationship this
    /// transaction has deleted (its identity and type stay readable).
    #[error("DeletedEntityAccess: {0}")]
    DeletedEntity(String),
    #[error("MissingParameter: Expected parameter(s): {0}")]
    ParameterMissing(String),
    #[error("ProcedureNotFound: There is no procedure with the name `{0}` registered for this database instance. Please ensure you've spelled the procedure name correctly and that the procedure is properly deployed.")]
    ProcedureNotFound(String),
    /// `db.awaitIndex` of a name that is no index.
    #[error("{0}")]
    IndexNotFound(String),
    /// `db.awaitIndex` of an index whose population failed.
    #[error("{0}")]
    IndexFailed(String),
    /// A procedure waited longer than its caller allowed
    /// (`db.awaitIndexes(timeOutSeconds)`).
    #[error("{0}")]
    ProcedureTimedOut(String),
    /// A procedure refused its arguments (a graph algorithm's unknown or
    /// ill-typed option) or could not finish (a missing edge weight).
    #[error("{0}")]
    ProcedureCallFailed(String),
    /// A store error; its message gets the openCypher detail it stands for
    /// (see [`storage_message`]), the storage crate knowing nothing of Cypher.
    #[error("{}", storage_message(.0))]
    Storage(#[from] StorageError),
    /// `LOAD CSV` could not read its source: not found, outside the import
    /// directory, or not CSV (the message names file, line and column).
    #[error("{0}")]
    ExternalResource(String),
    /// A label, type or property name that cannot be one (empty, or with
    /// a null byte), e.g. computed by `:$(expr)`.
    #[error("{0}")]
    TokenName(String),
    /// An inner transaction of `CALL { } IN TRANSACTIONS` could not be
    /// committed; the engine, which committed it, has already decided the
    /// status (from the store's or the log's error).
    #[error("{message}")]
    Commit {
        status: nereid_errors::Status,
        message: String,
    },
    /// A value that cannot serve as a vector where one is required (the
    /// vector functions, vector indexes and their procedures).
    #[error("{0}")]
    Vector(#[from] nereid_vector::VectorError),
    /// The query was cancelled through [`crate::Cursor::cancel_handle`].
    #[error("The transaction has been terminated. Retry your operation in a new transaction, and you should see a successful result. Explicitly terminated by the user.")]
    Cancelled,
    /// The transaction's deadline passed while the query ran (see
    /// [`crate::Deadline`]); the server names the setting or the client.
    #[error("The transaction has been terminated. Retry your operation in a new transaction, and you should see a successful result. The transaction has not completed within its timeout of {} ms.", .limit.as_millis())]
    TimedOut {
        limit: std::time::Duration,
        origin: crate::TimeoutOrigin,
    },
    /// The query would hold more than its memory budget
    /// (see [`crate::MemoryBudget`]); the server names the setting.
    #[error("The allocation of an extra {} would use more than the limit {} of the query's memory. Currently using {}.", human_bytes(*.requested), human_bytes(*.limit), human_bytes(*.used))]
    MemoryLimit {
        requested: usize,
        used: usize,
        limit: usize,
    },
}

/// `1.5 GiB`, `12.0 MiB`, `512 B`: a byte count as Neo4j writes it in its
/// memory errors.
fn human_bytes(bytes: usize) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// The message of a store error as a Cypher client sees it: errors that are
/// openCypher rules (deleting a node that still has relationships is
/// `DeleteConnectedNode`) start with that detail (docs/adr/0010-tck-verdicts.md).
fn storage_message(error: &StorageError) -> String {
    match error {
        StorageError::DeleteConnectedNode(_) => format!("DeleteConnectedNode: {error}"),
        other => other.to_string(),
    }
}

/// Result alias used throughout the executor.
pub type ExecResult<T> = Result<T, ExecError>;

/// `InvalidArgumentType: Type mismatch: expected <expected> but was <actual type>`. The
/// prefix is the openCypher error detail (see docs/adr/0010-tck-verdicts.md).
pub(crate) fn type_mismatch(expected: &str, actual: &Value) -> ExecError {
    type_mismatch_as("InvalidArgumentType", expected, actual)
}

/// A function given an argument outside its domain while running:
/// `InvalidArgumentValue: Type mismatch: ...`. openCypher keeps
/// `InvalidArgumentType` for what analysis can prove before running; a value
/// only known at run time (a list element, a parameter) that a function cannot
/// take is an invalid argument *value* (TCK `toBoolean([])`, `type(list[1])`).
pub(crate) fn invalid_argument_value(expected: &str, actual: &Value) -> ExecError {
    type_mismatch_as("InvalidArgumentValue", expected, actual)
}

/// [`type_mismatch`] named as another openCypher `detail` (e.g. `MapElementAccessByNonString`).
pub(crate) fn type_mismatch_as(detail: &str, expected: &str, actual: &Value) -> ExecError {
    // A virtual entity is a Node or Relationship by type, but none of the
    // store's: say so, or "expected Node but was Node" would puzzle.
    let virtual_entity = match actual {
        Value::VirtualNode(_) | Value::VirtualRelationship(_) => "a virtual ",
        _ => "",
    };
    ExecError::Type(format!(
        "{detail}: Type mismatch: expected {expected} but was {virtual_entity}{}",
        actual.type_name()
    ))
}

/// The error for reading `what` (properties, labels) of an entity deleted by
/// this transaction.
pub(crate) fn deleted_entity(what: &str, entity: &Value) -> ExecError {
    ExecError::DeletedEntity(format!(
        "cannot read the {what} of {} {}: it was deleted in this transaction",
        entity.type_name(),
        match entity {
            Value::Node(id) => id.external(),
            Value::Relationship(id) => id.external(),
            _ => 0,
        }
    ))
}

/// The error for an integer operation whose result does not fit in 64 bits.
pub(crate) fn overflow() -> ExecError {
    ExecError::Arithmetic("integer overflow".to_string())
}
