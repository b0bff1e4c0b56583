//! The store's error type.

/// Errors raised by the store.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum StorageError {
    /// Another transaction wrote the same item since our snapshot (or is
    /// writing it now). Clients retry: mapped to a TransientError.
    #[error("write-write conflict on {0}; retry the transaction")]
    WriteConflict(String),
    /// Waiting for another transaction's write would close a cycle of
    /// waits: this transaction is the victim. Clients retry: a
    /// TransientError.
    #[error("{0}")]
    Deadlock(String),
    /// The transaction's deadline passed while it waited for another
    /// transaction's write (module `lock_wait`).
    #[error("{0}")]
    LockWaitTimedOut(String),
    /// The statement was stopped (RESET, termination, the client left)
    /// while it waited for another transaction's write.
    #[error("the transaction was stopped while it waited for another transaction's write")]
    LockWaitStopped,
    #[error("cannot delete node {0} because it still has relationships; use DETACH DELETE")]
    DeleteConnectedNode(i64),
    #[error("entity {0} not found or deleted")]
    EntityNotFound(String),
    #[error("property values of type {0} cannot be stored")]
    UnstorableValue(&'static str),
    #[error("the transaction is no longer active")]
    TxnClosed,
    #[error("replay failed: {0}")]
    Replay(String),
    /// An id space is exhausted (e.g. 2^28 relationships in one REL_E grid
    /// cell, or 2^28 vertex identifiers sharing one hash).
    #[error("storage capacity exceeded: {0}")]
    CapacityExceeded(&'static str),
    /// A refused commit could not be revoked, or the commit clock not
    /// rewound (see `txn::revoke`): the caller broke the rules.
    #[error("cannot undo a refused commit: {0}")]
    Revoke(String),
    /// A write would break a constraint (the message names the entity,
    /// label, key and value); nothing of the write was applied.
    #[error("{0}")]
    ConstraintViolation(String),
    /// An index or constraint equivalent to the one being created exists.
    #[error("{0}")]
    EquivalentSchemaRuleExists(String),
    /// An index equivalent to the one being created exists under another
    /// name (or a constraint needs an index that exists on its own).
    #[error("{0}")]
    IndexAlreadyExists(String),
    /// A constraint equivalent to the one being created exists under
    /// another name (or an index being created is a constraint's).
    #[error("{0}")]
    ConstraintAlreadyExists(String),
    /// An index with the name exists.
    #[error("{0}")]
    IndexNameTaken(String),
    /// A constraint with the name exists.
    #[error("{0}")]
    ConstraintNameTaken(String),
    /// `DROP INDEX` of a name that is no index (or one a constraint owns).
    #[error("{0}")]
    IndexNotFound(String),
    /// `DROP CONSTRAINT` of a name that is no constraint.
    #[error("{0}")]
    ConstraintNotFound(String),
    /// A constraint cannot be created over the data it would constrain.
    #[error("{0}")]
    ConstraintCreationFailed(String),
    /// Schema and data changes in one transaction.
    #[error("{0}")]
    SchemaAndDataInOneTransaction(String),
    /// A write of a vector-indexed property whose value the index cannot
    /// hold (wrong length, not numbers, NaN or infinite, a zero vector
    /// under cosine); nothing of the write is applied.
    #[error("{0}")]
    InvalidVector(String),
    /// A vector query refused: no vector index of that name and entity
    /// kind, `k` not positive, or a query vector the index cannot compare.
    #[error("{0}")]
    VectorQueryRefused(String),
    /// A full-text query refused: no full-text index of that name over
    /// that entity kind, an unknown analyzer, or text that is not Lucene
    /// query syntax.
    #[error("{0}")]
    FulltextQueryRefused(String),
}

pub type Result<T> = std::result::Result<T, StorageError>;
