//! Neo4j status codes.
//!
//! Every crate has its own `thiserror` enum; the engine maps each of them onto
//! a [`Status`] in one place (`engine/src/status.rs`), and the server does the
//! same for the errors only it meets (`server/src/protocol_status.rs`). This
//! crate only names the codes clients understand, so that no crate spells
//! them by hand.

use std::fmt;

/// A Neo4j status code such as `Neo.ClientError.Statement.SyntaxError`.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub enum Status {
    SyntaxError,
    SemanticError,
    TypeError,
    ArgumentError,
    ArithmeticError,
    EntityNotFound,
    ParameterMissing,
    ConstraintValidationFailed,
    ProcedureNotFound,
    /// A procedure refused its arguments or failed while running.
    ProcedureCallFailed,
    RequestInvalid,
    Unauthorized,
    /// Too many failed logins from one address in a row.
    AuthenticationRateLimit,
    /// The user's roles do not allow the statement (a reader's write, a
    /// non-administrator's user command).
    Forbidden,
    /// The user logged in with a password that must be changed first.
    CredentialsExpired,
    /// A bookmark that this server did not issue or cannot parse.
    InvalidBookmark,
    /// A request naming a database other than `neo4j` and `system`.
    DatabaseNotFound,
    /// The server is at its connection limit; drivers retry transient errors.
    NoThreadsAvailable,
    /// A write-write conflict, or a wait for another transaction's write
    /// that would close a cycle: drivers retry transient errors.
    DeadlockDetected,
    /// The transaction's time ran out while it waited for another
    /// transaction's write (Neo4j: its lock client was stopped).
    LockClientStopped,
    TransactionNotFound,
    /// The transaction ran past the server's default timeout
    /// (`--transaction-timeout`, Neo4j's `db.transaction.timeout`).
    TransactionTimedOut,
    /// The transaction ran past the timeout its client gave at its start
    /// (Bolt's `tx_timeout`).
    TransactionTimedOutClientConfiguration,
    DatabaseUnavailable,
    /// The transaction log cannot be written (a full disk, an I/O error):
    /// a database error, not a transient one, because retrying does not
    /// help until an operator frees space or replaces the disk, and drivers
    /// retry transient errors for as long as they are allowed to.
    TransactionCommitFailed,
    /// `CALL { } IN TRANSACTIONS` sent in an explicit transaction: the
    /// code and text langchain and LlamaIndex watch for to retry the query
    /// in an auto-commit transaction.
    TransactionStartFailed,
    /// A query would hold more memory than its budget
    /// (`--query-max-memory`); Neo4j's code for its transaction memory limit.
    MemoryPoolOutOfMemoryError,
    /// An index or constraint equivalent to the one being created exists.
    EquivalentSchemaRuleAlreadyExists,
    IndexWithNameAlreadyExists,
    ConstraintWithNameAlreadyExists,
    /// An equivalent index exists under another name, or a constraint
    /// needs an index that exists on its own.
    IndexAlreadyExists,
    /// An equivalent constraint exists under another name, or an index
    /// being created is a constraint's backing index.
    ConstraintAlreadyExists,
    /// `db.awaitIndex` of a name that is no index.
    IndexNotFound,
    /// A label, type or property name that cannot be one (empty, or
    /// with a null byte).
    TokenNameError,
    /// `db.awaitIndex` of an index whose population failed.
    IndexCreationFailed,
    /// A procedure waited longer than allowed (`db.awaitIndexes(t)`).
    ProcedureTimedOut,
    /// `DROP INDEX` of a name that is no (droppable) index.
    IndexDropFailed,
    /// `DROP CONSTRAINT` of a name that is no constraint.
    ConstraintDropFailed,
    /// The data breaks a constraint being created.
    ConstraintCreationFailed,
    /// Schema and data changes in one transaction.
    ForbiddenDueToTransactionType,
    /// A statement that writes, sent in read access mode.
    AccessMode,
    /// A statement or commit of a transaction `TERMINATE TRANSACTIONS`
    /// ended.
    Terminated,
    /// A file a load or `LOAD CSV` reads cannot be opened or read, lies
    /// outside the import directory, or holds a row that cannot be read.
    ExternalResourceFailed,
    /// A valid construct the engine does not execute yet.
    NotSupported,
    General,
}

/// How a driver classifies a status, from the code's second segment.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Classification {
    ClientError,
    TransientError,
    DatabaseError,
}

impl Status {
    pub fn code(self) -> &'static str {
        match self {
            Status::SyntaxError => "Neo.ClientError.Statement.SyntaxError",
            Status::SemanticError => "Neo.ClientError.Statement.SemanticError",
            Status::TypeError => "Neo.ClientError.Statement.TypeError",
            Status::ArgumentError => "Neo.ClientError.Statement.ArgumentError",
            Status::ArithmeticError => "Neo.ClientError.Statement.ArithmeticError",
            Status::EntityNotFound => "Neo.ClientError.Statement.EntityNotFound",
            Status::ParameterMissing => "Neo.ClientError.Statement.ParameterMissing",
            Status::ConstraintValidationFailed => {
                "Neo.ClientError.Schema.ConstraintValidationFailed"
            }
            Status::ProcedureNotFound => "Neo.ClientError.Procedure.ProcedureNotFound",
            Status::ProcedureCallFailed => "Neo.ClientError.Procedure.ProcedureCallFailed",
            Status::RequestInvalid => "Neo.ClientError.Request.Invalid",
            Status::Unauthorized => "Neo.ClientError.Security.Unauthorized",
            Status::AuthenticationRateLimit => "Neo.ClientError.Security.AuthenticationRateLimit",
            Status::Forbidden => "Neo.ClientError.Security.Forbidden",
            Status::CredentialsExpired => "Neo.ClientError.Security.CredentialsExpired",
            Status::InvalidBookmark => "Neo.ClientError.Transaction.InvalidBookmark",
            Status::DatabaseNotFound => "Neo.ClientError.Database.DatabaseNotFound",
            Status::NoThreadsAvailable => "Neo.TransientError.Request.NoThreadsAvailable",
            Status::DeadlockDetected => "Neo.TransientError.Transaction.DeadlockDetected",
            Status::LockClientStopped => "Neo.ClientError.Transaction.LockClientStopped",
            Status::TransactionNotFound => "Neo.ClientError.Transaction.TransactionNotFound",
            Status::TransactionTimedOut => "Neo.ClientError.Transaction.TransactionTimedOut",
            Status::TransactionTimedOutClientConfiguration => {
                "Neo.ClientError.Transaction.TransactionTimedOutClientConfiguration"
            }
            Status::DatabaseUnavailable => "Neo.TransientError.General.DatabaseUnavailable",
            Status::TransactionCommitFailed => {
                "Neo.DatabaseError.Transaction.TransactionCommitFailed"
            }
            Status::TransactionStartFailed => {
                "Neo.DatabaseError.Transaction.TransactionStartFailed"
            }
            Status::MemoryPoolOutOfMemoryError => {
                "Neo.TransientError.General.MemoryPoolOutOfMemoryError"
            }
            Status::EquivalentSchemaRuleAlreadyExists => {
                "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists"
            }
            Status::IndexWithNameAlreadyExists => {
                "Neo.ClientError.Schema.IndexWithNameAlreadyExists"
            }
            Status::ConstraintWithNameAlreadyExists => {
                "Neo.ClientError.Schema.ConstraintWithNameAlreadyExists"
            }
            Status::IndexDropFailed => "Neo.DatabaseError.Schema.IndexDropFailed",
            Status::ConstraintDropFailed => "Neo.DatabaseError.Schema.ConstraintDropFailed",
            Status::ConstraintCreationFailed => "Neo.DatabaseError.Schema.ConstraintCreationFailed",
            Status::IndexAlreadyExists => "Neo.ClientError.Schema.IndexAlreadyExists",
            Status::ConstraintAlreadyExists => "Neo.ClientError.Schema.ConstraintAlreadyExists",
            Status::IndexNotFound => "Neo.ClientError.Schema.IndexNotFound",
            Status::TokenNameError => "Neo.ClientError.Schema.TokenNameError",
            Status::IndexCreationFailed => "Neo.DatabaseError.Schema.IndexCreationFailed",
            Status::ProcedureTimedOut => "Neo.ClientError.Procedure.ProcedureTimedOut",
            Status::AccessMode => "Neo.ClientError.Statement.AccessMode",
            Status::Terminated => "Neo.ClientError.Transaction.Terminated",
            Status::ForbiddenDueToTransactionType => {
                "Neo.ClientError.Transaction.ForbiddenDueToTransactionType"
            }
            Status::ExternalResourceFailed => "Neo.ClientError.Statement.ExternalResourceFailed",
            Status::NotSupported => "Neo.DatabaseError.Statement.ExecutionFailed",
            Status::General => "Neo.DatabaseError.General.UnknownError",
        }
    }

    pub fn classification(self) -> Classification {
        let code = self.code();
        if code.starts_with("Neo.TransientError") {
            Classification::TransientError
        } else if code.starts_with("Neo.DatabaseError") {
            Classification::DatabaseError
        } else {
            Classification::ClientError
        }
    }

    /// The GQLSTATUS sent alongside the code from Bolt 5.7 on.
    pub fn gql_status(self) -> &'static str {
        match self {
            Status::SyntaxError => "42001",
            Status::SemanticError => "42N00",
            Status::TypeError => "22G03",
            Status::ArgumentError => "22N00",
            Status::ArithmeticError => "22000",
            Status::EntityNotFound => "42N00",
            Status::ParameterMissing => "42N51",
            Status::ConstraintValidationFailed => "22N00",
            Status::ProcedureNotFound => "42N08",
            Status::ProcedureCallFailed => "52N37",
            Status::RequestInvalid => "08N06",
            Status::Unauthorized => "42NFF",
            Status::AuthenticationRateLimit => "42NFF",
            // "permission/access denied".
            Status::Forbidden | Status::CredentialsExpired => "42NFF",
            Status::InvalidBookmark => "08N12",
            Status::DatabaseNotFound => "22N51",
            Status::NoThreadsAvailable => "50N00",
            // As Neo4j 5.26 sends it for a deadlock ("deadlock detected").
            Status::DeadlockDetected => "50N05",
            // As Neo4j 5.26 sends it.
            Status::LockClientStopped => "50N42",
            Status::TransactionNotFound => "25N05",
            // No specific GQLSTATUS is known to us for a timeout: the
            // general processing exception, as for other terminations.
            Status::TransactionTimedOut | Status::TransactionTimedOutClientConfiguration => "50N00",
            Status::DatabaseUnavailable => "51N00",
            Status::TransactionCommitFailed => "40N00",
            // "invalid transaction state - implicit transaction required".
            Status::TransactionStartFailed => "25N17",
            Status::MemoryPoolOutOfMemoryError => "50N00",
            // As Neo4j 5.26 sends them (most schema errors: 50N42).
            Status::IndexWithNameAlreadyExists => "22N71",
            Status::ConstraintWithNameAlreadyExists => "22N67",
            Status::EquivalentSchemaRuleAlreadyExists
            | Status::IndexAlreadyExists
            | Status::ConstraintAlreadyExists
            | Status::IndexNotFound
            | Status::TokenNameError
            | Status::IndexDropFailed => "50N42",
            Status::ConstraintDropFailed => "50N12",
            Status::ConstraintCreationFailed => "50N11",
            Status::IndexCreationFailed => "50N00",
            Status::ProcedureTimedOut => "50N00",
            Status::ForbiddenDueToTransactionType => "25N01",
            // What Neo4j 5.26 reports for it (a general processing error).
            Status::AccessMode | Status::Terminated => "50N42",
            Status::ExternalResourceFailed => "42N00",
            Status::NotSupported => "50N00",
            Status::General => "50N00",
        }
    }
}

impl Status {
    /// Every status, for reading a code back ([`Status::from_code`]).
    pub const ALL: [Status; 45] = [
        Status::SyntaxError,
        Status::SemanticError,
        Status::TypeError,
        Status::ArgumentError,
        Status::ArithmeticError,
        Status::EntityNotFound,
        Status::ParameterMissing,
        Status::ConstraintValidationFailed,
        Status::ProcedureNotFound,
        Status::ProcedureCallFailed,
        Status::RequestInvalid,
        Status::Unauthorized,
        Status::AuthenticationRateLimit,
        Status::Forbidden,
        Status::CredentialsExpired,
        Status::InvalidBookmark,
        Status::DatabaseNotFound,
        Status::NoThreadsAvailable,
        Status::DeadlockDetected,
        Status::LockClientStopped,
        Status::TransactionNotFound,
        Status::TransactionTimedOut,
        Status::TransactionTimedOutClientConfiguration,
        Status::DatabaseUnavailable,
        Status::TransactionCommitFailed,
        Status::TransactionStartFailed,
        Status::MemoryPoolOutOfMemoryError,
        Status::EquivalentSchemaRuleAlreadyExists,
        Status::IndexWithNameAlreadyExists,
        Status::ConstraintWithNameAlreadyExists,
        Status::IndexAlreadyExists,
        Status::ConstraintAlreadyExists,
        Status::IndexNotFound,
        Status::TokenNameError,
        Status::IndexCreationFailed,
        Status::ProcedureTimedOut,
        Status::IndexDropFailed,
        Status::ConstraintDropFailed,
        Status::ConstraintCreationFailed,
        Status::ForbiddenDueToTransactionType,
        Status::AccessMode,
        Status::Terminated,
        Status::ExternalResourceFailed,
        Status::NotSupported,
        Status::General,
    ];

    /// The status whose [`Status::code`] is `code` (a status kept as text,
    /// such as a load's errors in its saved record).
    pub fn from_code(code: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|status| status.code() == code)
    }
}

#[cfg(test)]
mod all_tests {
    use super::Status;

    /// Each status's place in [`Status::ALL`]: a new variant fails to
    /// compile here until it is placed, and the test below then fails
    /// until `ALL` holds it there.
    fn position(status: Status) -> usize {
        match status {
            Status::SyntaxError => 0,
            Status::SemanticError => 1,
            Status::TypeError => 2,
            Status::ArgumentError => 3,
            Status::ArithmeticError => 4,
            Status::EntityNotFound => 5,
            Status::ParameterMissing => 6,
            Status::ConstraintValidationFailed => 7,
            Status::ProcedureNotFound => 8,
            Status::ProcedureCallFailed => 9,
            Status::RequestInvalid => 10,
            Status::Unauthorized => 11,
            Status::AuthenticationRateLimit => 12,
            Status::Forbidden => 13,
            Status::CredentialsExpired => 14,
            Status::InvalidBookmark => 15,
            Status::DatabaseNotFound => 16,
            Status::NoThreadsAvailable => 17,
            Status::DeadlockDetected => 18,
            Status::LockClientStopped => 19,
            Status::TransactionNotFound => 20,
            Status::TransactionTimedOut => 21,
            Status::TransactionTimedOutClientConfiguration => 22,
            Status::DatabaseUnavailable => 23,
            Status::TransactionCommitFailed => 24,
            Status::TransactionStartFailed => 25,
            Status::MemoryPoolOutOfMemoryError => 26,
            Status::EquivalentSchemaRuleAlreadyExists => 27,
            Status::IndexWithNameAlreadyExists => 28,
            Status::ConstraintWithNameAlreadyExists => 29,
            Status::IndexAlreadyExists => 30,
            Status::ConstraintAlreadyExists => 31,
            Status::IndexNotFound => 32,
            Status::TokenNameError => 33,
            Status::IndexCreationFailed => 34,
            Status::ProcedureTimedOut => 35,
            Status::IndexDropFailed => 36,
            Status::ConstraintDropFailed => 37,
            Status::ConstraintCreationFailed => 38,
            Status::ForbiddenDueToTransactionType => 39,
            Status::AccessMode => 40,
            Status::Terminated => 41,
            Status::ExternalResourceFailed => 42,
            Status::NotSupported => 43,
            Status::General => 44,
        }
    }

    #[test]
    fn all_holds_every_status_once_and_codes_read_back() {
        for (i, status) in Status::ALL.into_iter().enumerate() {
            assert_eq!(position(status), i, "{status:?}");
            assert_eq!(Status::from_code(status.code()), Some(status));
        }
        assert_eq!(Status::from_code("Neo.ClientError.Nothing.Such"), None);
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transient_errors_are_classified_for_retry() {
        assert_eq!(
            Status::DeadlockDetected.classification(),
            Classification::TransientError
        );
        assert_eq!(
            Status::SyntaxError.classification(),
            Classification::ClientError
        );
        // A full disk must not make drivers retry forever.
        assert_eq!(
            Status::TransactionCommitFailed.classification(),
            Classification::DatabaseError
        );
    }
}
