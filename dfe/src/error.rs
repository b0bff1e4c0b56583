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
    #[error("MissingParameter: Expected parameter(s): {0}")]
    ParameterMissing(String),
    #[error("ProcedureNotFound: There is no procedure with the name `{0}` registered for this database instance. Please ensure you've spelled the procedure name correctly and that the procedure is properly deployed.")]
    ProcedureNotFound(String),
    #[error(transparent)]
    Storage(#[from] StorageError),
    /// The query was cancelled through [`crate::Cursor::cancel_handle`].
    #[error("The transaction has been terminated. Retry your operation in a new transaction, and you should see a successful result. Explicitly terminated by the user.")]
    Cancelled,
}

/// Result alias used throughout the executor.
pub type ExecResult<T> = Result<T, ExecError>;

/// `InvalidArgumentType: Type mismatch: expected <expected> but was <actual type>`. The
/// prefix is the openCypher error detail (see docs/adr/0010-tck-verdicts.md).
pub(crate) fn type_mismatch(expected: &str, actual: &Value) -> ExecError {
    type_mismatch_as("InvalidArgumentType", expected, actual)
}

/// [`type_mismatch`] named as another openCypher `detail` (e.g. `MapElementAccessByNonString`).
pub(crate) fn type_mismatch_as(detail: &str, expected: &str, actual: &Value) -> ExecError {
    ExecError::Type(format!(
        "{detail}: Type mismatch: expected {expected} but was {}",
        actual.type_name()
    ))
}

/// The error for an integer operation whose result does not fit in 64 bits.
pub(crate) fn overflow() -> ExecError {
    ExecError::Arithmetic("integer overflow".to_string())
}
